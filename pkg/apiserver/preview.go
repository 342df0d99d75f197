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

package apiserver

import (
	"context"
	"fmt"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/appliers"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/preview"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// previewer builds the Previewer of templates/{name}/preview over the server's storage, its
// renderer, and, with a cluster, clients that act as each requester there.
func (c completedConfig) previewer(templateREST rest.Getter, revisions *templaterevision.Writer, instances rest.Lister,
	renderer *renderrest.Adapter, noCluster bool) (*preview.Previewer, error) {
	cfg := preview.Config{
		Templates: instance.StorageTemplates{Getter: templateREST, Revisions: revisions},
		Instances: instanceLister{instances}, Renderer: renderer,
		Authorizer: c.GenericConfig.Authorization.Authorizer, Memory: c.ExtraConfig.ProcessingMemory, HashKey: c.ExtraConfig.HashKey,
	}
	if !noCluster {
		target, actAsSelf := c.ExtraConfig.ClusterConfig, false
		if opts := c.ExtraConfig.Instances; opts != nil && opts.Target != nil {
			target, actAsSelf = opts.Target, opts.ActAsSelf
		}
		impersonating, err := appliers.New(target, actAsSelf)
		if err != nil {
			return nil, err
		}
		mapper, err := restMapper(target)
		if err != nil {
			return nil, err
		}
		cfg.Appliers, cfg.Mapper, cfg.SelfReview = impersonating, mapper, actAsSelf
	}
	return preview.New(cfg), nil
}

// instanceLister lists the TemplateInstances of a namespace from their storage, in the
// versioned form the controller's rules read.
type instanceLister struct{ storage rest.Lister }

// List reads every instance of namespace in one list.
func (l instanceLister) List(ctx context.Context, namespace string) ([]*v1alpha1.TemplateInstance, error) {
	obj, err := l.storage.List(genericapirequest.WithNamespace(ctx, namespace), &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*templates.TemplateInstanceList)
	if !ok {
		return nil, fmt.Errorf("the instances' storage listed a %T", obj)
	}
	out := make([]*v1alpha1.TemplateInstance, len(list.Items))
	for i := range list.Items {
		out[i] = &v1alpha1.TemplateInstance{}
		if err := v1alpha1.Convert_templates_TemplateInstance_To_v1alpha1_TemplateInstance(&list.Items[i], out[i], nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}
