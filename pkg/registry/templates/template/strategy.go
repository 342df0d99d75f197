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

// Package template holds the storage of Templates.
package template

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/apiserver/pkg/warning"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/registry"
	"stencil.dev/stencil/pkg/registry/templates/templatecheck"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// templateStrategy implements the create, update and delete behaviour of Templates.
type templateStrategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	// plugins says which plugin providers a Template of a namespace may use; nil allows none.
	plugins plugin.PolicyFunc
	// types type-checks the objects of a Template written, against the cluster's kinds; nil
	// checks none (local mode, --template-type-check=off).
	types *templatecheck.Types
}

var _ rest.RESTCreateUpdateStrategy = templateStrategy{}
var _ rest.RESTDeleteStrategy = templateStrategy{}

// NewStrategy returns the strategy of Templates; a Template whose generators or transformers
// need a plugin provider that plugins does not allow in its namespace is refused. types, when
// not nil, type-checks the objects of each Template written (templatecheck.Types): its
// findings are warnings, or a 422 when it refuses.
func NewStrategy(typer runtime.ObjectTyper, plugins plugin.PolicyFunc, types *templatecheck.Types) rest.RESTCreateUpdateStrategy {
	return templateStrategy{typer, names.SimpleNameGenerator, plugins, types}
}

// pluginsFor returns the plugins allowed in the request's namespace.
func (s templateStrategy) pluginsFor(ctx context.Context) plugin.Policy {
	if s.plugins == nil {
		return plugin.Policy{}
	}
	namespace, _ := genericapirequest.NamespaceFrom(ctx)
	return s.plugins(namespace)
}

// GetAttrs returns the labels and selectable fields of a Template.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	t, ok := obj.(*templates.Template)
	if !ok {
		return nil, nil, fmt.Errorf("not a Template: %T", obj)
	}
	return labels.Set(t.Labels), generic.ObjectMetaFieldsSet(&t.ObjectMeta, true), nil
}

// Match is the filter of list and watch requests.
func Match(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs}
}

// NamespaceScoped is true: a Template lives in a namespace.
func (templateStrategy) NamespaceScoped() bool { return true }

// PrepareForCreate records the creating user as the Template's author and the content as its
// revision 1, over any author and revision the client sent.
func (templateStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	t := obj.(*templates.Template)
	t.Author = authorFrom(ctx)
	t.Revision = stamp(t, 1)
	t.RolloutAuthor = nil
	if t.Rollout != nil || rolloutChanged(t, &templates.Template{}) {
		t.RolloutAuthor = authorFrom(ctx)
	}
	// The status is the controller's, written through templates/status only.
	t.Status = nil
}

// PrepareForUpdate records the updating user as the author when the content changes (any
// field but the metadata), so that nobody's edit is ever applied with the rights of an earlier
// author; an update of the metadata alone (labels, annotations, finalizers) keeps the author.
// A Template stored before authors were recorded gets its first author on any update.
//
// The revision counts the changes of the content the same way: a change of the content makes
// the next revision number (the Writer then stores the content under it), an update of the
// metadata keeps the revision, and a Template stored before revisions were recorded gets
// revision 1 on any update. Validation runs after this: a change it refuses is not stored,
// and its number is never used.
//
// The rollout's author is recorded the same way: whoever changes the rollout or a rollout
// annotation (pause, resume, undo, a plan) chooses when Automatic instances move, and they move
// only if that user may create what they apply.
func (templateStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	t, oldT := obj.(*templates.Template), old.(*templates.Template)
	changed := !apiequality.Semantic.DeepEqual(content(t), content(oldT))
	t.Author, t.Revision, t.Status, t.RolloutAuthor = oldT.Author, oldT.Revision, oldT.Status, oldT.RolloutAuthor
	if oldT.Author == nil || changed {
		t.Author = authorFrom(ctx)
	}
	if rolloutChanged(t, oldT) {
		t.RolloutAuthor = authorFrom(ctx)
	}
	switch {
	case oldT.Revision == nil:
		t.Revision = stamp(t, 1)
	case changed:
		t.Revision = stamp(t, oldT.Revision.Number+1)
	}
}

// rolloutAnnotations steer a Template's rollout: writing one is a change of the rollout.
var rolloutAnnotations = []string{v1alpha1.AnnotationRolloutPlanHash, v1alpha1.AnnotationRolloutResume, v1alpha1.AnnotationRolloutUndo}

// rolloutChanged says t changes how its instances move, from old: its rollout or a rollout
// annotation. Whoever writes that is the rollout's author (PrepareForUpdate).
func rolloutChanged(t, old *templates.Template) bool {
	if !apiequality.Semantic.DeepEqual(t.Rollout, old.Rollout) {
		return true
	}
	for _, a := range rolloutAnnotations {
		if t.Annotations[a] != old.Annotations[a] {
			return true
		}
	}
	return false
}

// stamp is revision number of t's content. A content that cannot be written as JSON gets no
// hash; validation refuses it before it is stored.
func stamp(t *templates.Template, number int64) *templates.RevisionStamp {
	_, hash, _ := templaterevision.Canonical(t)
	return &templates.RevisionStamp{Number: number, Hash: hash}
}

// content is what a Template renders from: everything but its type, metadata, author,
// revision, rollout and status. Pausing a rollout or changing its waves is no new content.
func content(t *templates.Template) templates.Template {
	c := *t
	c.TypeMeta, c.ObjectMeta, c.Author, c.Revision, c.Rollout, c.RolloutAuthor, c.Status = metav1.TypeMeta{}, metav1.ObjectMeta{}, nil, nil, nil, nil, nil
	return c
}

// authorFrom is the authenticated user of the request as an author; nil when there is none.
func authorFrom(ctx context.Context) *templates.TemplateAuthor {
	id, ok := registry.IdentityFrom(ctx)
	if !ok {
		return nil
	}
	return &templates.TemplateAuthor{Username: id.Username, UID: id.UID, Groups: id.Groups, Extra: id.Extra}
}

// Validate reports every problem of a new Template, the API's and the engine's, and a size
// beyond what etcd stores, in one list.
func (s templateStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	t := obj.(*templates.Template)
	return s.check(ctx, t, validation.ValidateTemplate(t))
}

// check adds the engine's checks and the size check to the API's errs. A Template of
// OpenShift's dialect that passes gets a warning for each thing OpenShift tolerates
// (duplicate parameter names, invalid labels, undeclared references; Stencil's dialect
// refuses them): they come from the same compile as its errors, so they are added here rather
// than in WarningsOnCreate, which would compile the template again.
//
// A Template the store takes is then type-checked against the cluster's kinds, when the
// server has a cluster (templatecheck.Types).
func (s templateStrategy) check(ctx context.Context, t *templates.Template, errs field.ErrorList) field.ErrorList {
	errs, tolerated := templatecheck.Check(t, s.pluginsFor(ctx), errs)
	if len(errs) == 0 && s.types != nil {
		var typeWarnings []string
		errs, typeWarnings = s.types.Check(ctx, t)
		tolerated = append(tolerated, typeWarnings...)
	}
	for _, w := range tolerated {
		warning.AddWarning(ctx, "", w)
	}
	return errs
}

// WarningsOnCreate tells the author of a template that uses plugins which providers the
// namespace runs; what a template of OpenShift's dialect gets away with is told by Validate.
func (s templateStrategy) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string {
	if t, ok := obj.(*templates.Template); ok && transform.UsesPlugins(t) {
		return []string{s.pluginsFor(ctx).Describe()}
	}
	return nil
}

// AllowCreateOnUpdate is false: a Template is created with POST, as with most resources.
func (templateStrategy) AllowCreateOnUpdate(context.Context) bool { return false }

// AllowUnconditionalUpdate lets kubectl replace work without a resourceVersion; an update that
// carries one is still checked and answers 409 when it is stale.
func (templateStrategy) AllowUnconditionalUpdate(context.Context) bool { return true }

// Canonicalize leaves the object as the client wrote it.
func (templateStrategy) Canonicalize(runtime.Object) {}

// ValidateUpdate checks an update as Validate checks a create, with the metadata rules of updates.
func (s templateStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	t := obj.(*templates.Template)
	return s.check(ctx, t, validation.ValidateTemplateUpdate(t, old.(*templates.Template)))
}

// WarningsOnUpdate warns as WarningsOnCreate.
func (s templateStrategy) WarningsOnUpdate(ctx context.Context, obj, _ runtime.Object) []string {
	return s.WarningsOnCreate(ctx, obj)
}
