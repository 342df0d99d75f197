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
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// Config is what a Planner is built from.
type Config struct {
	// Templates reads the Templates that instances reference, and their revisions.
	Templates TemplateReader
	// Renderer renders templates as the processing endpoints do.
	Renderer Renderer
	// Mapper maps the rendered objects' kinds to the target cluster's resources.
	Mapper meta.RESTMapper
	// Authorizer answers the SubjectAccessReviews about requesters and template authors.
	Authorizer authorizer.Authorizer
	// SelfReview checks a requester's rights on the objects with the Applier's MayI (a
	// SelfSubjectAccessReview of the target cluster) instead of Authorizer: local mode's
	// --target-kubeconfig, whose own identity acts for the only local user.
	SelfReview bool
	// HashKey keys the hash of what an instance renders (status.templateRevision.appliedHash,
	// a preview's renderedHash), which anyone who may read the instance reads: without the
	// server's key, nobody can test a guess of a value the objects hold against it. Every
	// replica has the same key.
	HashKey []byte
	// CheckRendered, when set, is told how many objects an instance rendered before they are
	// decoded, and refuses what its caller will not take (a published artifact's object
	// count): a template repeating an object a hundred thousand times then costs its rendered
	// bytes, never a decoded tree of each.
	CheckRendered func(ctx context.Context, ti *templatesv1.TemplateInstance, objects int) error
}

// Planner does what a pass over an instance does up to the apply; safe for concurrent use.
type Planner struct {
	cfg Config
}

// New returns a Planner of cfg.
func New(cfg Config) (*Planner, error) {
	if cfg.Templates == nil || cfg.Renderer == nil || cfg.Mapper == nil || cfg.Authorizer == nil || len(cfg.HashKey) == 0 {
		return nil, errors.New("instance: Config needs Templates, Renderer, Mapper, Authorizer and HashKey")
	}
	return &Planner{cfg: cfg}, nil
}

// Config is the Planner's configuration, to build another one from.
func (p *Planner) Config() Config { return p.cfg }

// Pass is what one pass decided before acting: what the instance renders, the plan, the
// members it keeps and the objects of its inventory it would prune. The rule allowed all of
// it.
type Pass struct {
	Rendered *Rendered
	Plan     []*Planned
	// Objects are the members of the plan, as the inventory lists them; Keep their keys.
	Objects []templatesv1.TemplateInstanceObject
	Keep    map[string]bool
	// Prune are the objects of the instance's inventory the plan drops.
	Prune []Target
}

// Pass renders, plans and authorizes one pass over ti as its requester (a), pruning against
// the instance's inventory (status.objects). The Rendered of its answer is set also with an
// error, so that the caller can Scrub what it reports of the error.
func (p *Planner) Pass(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier) (*Pass, error) {
	r, err := p.Render(ctx, ti, a)
	out := &Pass{Rendered: r}
	if err != nil {
		return out, err
	}
	if out.Plan, err = p.Plan(ti, r); err != nil {
		return out, err
	}
	out.Objects, out.Keep = Members(out.Plan)
	out.Prune = p.PruneTargets(ti.Status.Objects, out.Keep)
	return out, p.Authorize(ctx, ti, a, out.Plan, r.Authors, out.Prune)
}
