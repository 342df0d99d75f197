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

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/appliers"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance"
	"stencil.dev/stencil/pkg/registry/templates/adoption"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// adoptionREST builds adoptions over the instances' storage, planning with the controller's
// rules as each caller in the cluster the instances' objects live in; a server without a
// cluster serves it and refuses every adoption.
func (c completedConfig) adoptionREST(revisions instance.TemplateReader, instances adoption.Instances,
	renderer *renderrest.Adapter, noCluster bool) (*adoption.REST, error) {
	authz := c.GenericConfig.Authorization.Authorizer
	if noCluster {
		return adoption.NewREST(instances, nil, authz), nil
	}
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
	planner, err := templateinstance.NewAdoptionPlanner(templateinstance.AdoptionConfig{Templates: revisions, Renderer: renderer,
		Appliers: impersonating, Mapper: mapper, Authorizer: authz, SelfReview: actAsSelf, HashKey: c.ExtraConfig.HashKey})
	if err != nil {
		return nil, err
	}
	return adoption.NewREST(instances, versionedPlanner{planner}, authz), nil
}

// versionedPlanner converts between the registry's internal types and the controller's
// versioned ones.
type versionedPlanner struct {
	p *templateinstance.AdoptionPlanner
}

func (v versionedPlanner) PlanAdoption(ctx context.Context, ti *templates.TemplateInstance) (*templates.AdoptionStatus, error) {
	var in v1alpha1.TemplateInstance
	if err := Scheme.Convert(ti, &in, nil); err != nil {
		return nil, err
	}
	status, err := v.p.PlanAdoption(ctx, &in)
	if err != nil {
		return nil, err
	}
	out := &templates.AdoptionStatus{}
	return out, v1alpha1.Convert_v1alpha1_AdoptionStatus_To_templates_AdoptionStatus(status, out, nil)
}
