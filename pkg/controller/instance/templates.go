/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package instance

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
	"stencil.dev/stencil/pkg/render"
)

// Renderer renders a template as the processing endpoints do and tells which stored Templates
// it imported; renderrest.Adapter is the server's.
type Renderer interface {
	// RenderObjects renders in; a problem of the template or the values is a 422.
	RenderObjects(ctx context.Context, in render.Input) (*render.Output, error)
}

// TemplateReader reads the stored Templates that instances reference, in the internal form the
// Renderer takes. The controller reads a Template once per pass and uses that one object for
// everything: the content it renders, the author it checks and the resourceVersion it records
// in the instance's status; the question whether a pass is needed reads the version from the
// same reader.
type TemplateReader interface {
	// Template returns the Template namespace/name, or an error apierrors.IsNotFound knows.
	Template(ctx context.Context, namespace, name string) (*templates.Template, error)
	// Revision returns revision number of the stored Template t as a Template to render
	// (templaterevision.TemplateOf: its content and author), or an error apierrors.IsNotFound
	// knows, also for a revision of that name that t does not own (an earlier Template of the
	// same name wrote it).
	Revision(ctx context.Context, t *templates.Template, number int64) (*templates.Template, error)
}

// StorageTemplates is the TemplateReader of the server: its Templates' storage, read directly.
// A read of storage is consistent, which the controller's informer is not: a Template created
// just before an instance of it is always found (a cache may not have it yet, and the instance
// would report TemplateNotFound, which `stencil instantiate --wait` takes for a failure), and
// an upgrade renders the Template as stored, not as last seen. The Template informer is only
// the source of events that queue a Template's instances.
type StorageTemplates struct {
	// Getter is the Templates' storage; the namespace comes from the context.
	Getter rest.Getter
	// Revisions reads and writes the Templates' revisions.
	Revisions *templaterevision.Writer
}

// Template reads namespace/name from storage.
func (s StorageTemplates) Template(ctx context.Context, namespace, name string) (*templates.Template, error) {
	obj, err := s.Getter.Get(genericapirequest.WithNamespace(ctx, namespace), name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	t, ok := obj.(*templates.Template)
	if !ok {
		return nil, fmt.Errorf("the Templates' storage returned a %T", obj)
	}
	return t, nil
}

// Revision reads revision number of t from storage. The revision t holds is written again if
// it is missing (the server stopped between storing t and its revision): t is what it holds.
func (s StorageTemplates) Revision(ctx context.Context, t *templates.Template, number int64) (*templates.Template, error) {
	if s.Revisions == nil {
		return nil, apierrors.NewNotFound(templates.Resource("templaterevisions"), templatesv1.RevisionName(t.Name, number))
	}
	rev, err := s.Revisions.Get(ctx, t, number)
	if apierrors.IsNotFound(err) && t.Revision != nil && t.Revision.Number == number {
		if err := s.Revisions.Ensure(ctx, t); err != nil {
			return nil, err
		}
		rev, err = s.Revisions.Get(ctx, t, number)
	}
	if err != nil {
		return nil, err
	}
	return templaterevision.TemplateOf(rev)
}
