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
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// An instance acts only with what every identity whose input shaped its action may do: the
// requester, who wrote the instance's spec, and the author of every stored Template rendered
// into it (the referenced one and each one imported through transformersFrom), who wrote what
// the objects are. The requester's rights are enforced by impersonation and checked before
// anything is applied; the authors' rights are checked with SubjectAccessReviews, before
// anything is applied or pruned. Otherwise a user who may edit a Template would act with the
// rights of whoever instantiated it (a confused deputy).
//
// What an instance reads is its requester's: the values of its spec and of the Secrets and
// ConfigMaps it reads them from (parametersFrom, and the Secret that keeps its generated
// values). A Template's author chooses where each value goes, so an author who may not read
// one of them could read it through the objects the instance makes (a ConfigMap of it, an
// object named after it) or through what the instance reports. Every author other than the
// requester must therefore be allowed to get the instance and every source it reads, asked
// once the imported Templates are known and before any value is checked or used: a refusal
// renders nothing and names sources and authors, never a value.

// Author is the last writer of the content of one stored Template an instance renders.
type Author struct {
	// Template is namespace/name of the Template.
	Template string
	// User is nil when the Template records no author.
	User user.Info
}

// AuthorOf reads the author the server recorded in t.
func AuthorOf(t *templates.Template) Author {
	a := Author{Template: t.Namespace + "/" + t.Name}
	if w := t.Author; w != nil && w.Username != "" {
		a.User = &user.DefaultInfo{Name: w.Username, UID: w.UID, Groups: w.Groups, Extra: w.Extra}
	}
	return a
}

// AuthorsOf are the authors of the Templates imported.
func AuthorsOf(imported []*templates.Template) []Author {
	out := make([]Author, 0, len(imported))
	for _, t := range imported {
		out = append(out, AuthorOf(t))
	}
	return out
}

// Target is one object the instance would write (create and patch) or prune (delete).
type Target struct {
	Resource schema.GroupVersionResource
	Ref      templatesv1.TemplateInstanceObject
	Verbs    []string
}

// PruneTargets are the objects of the instance's inventory old that keep lacks, which a pass
// would delete; an object whose kind the cluster no longer serves is gone with its kind.
func (p *Planner) PruneTargets(old []templatesv1.TemplateInstanceObject, keep map[string]bool) []Target {
	var out []Target
	for _, o := range old {
		if keep[inventory.ObjectKey(o)] {
			continue
		}
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			continue
		}
		mapping, err := inventory.Mapping(p.cfg.Mapper, gv.WithKind(o.Kind))
		if err != nil {
			continue
		}
		verbs := []string{"delete"}
		if o.Lifecycle == templatesv1.LifecycleRetain {
			// Left in place: only its labels and managed fields are written.
			verbs = []string{"patch"}
		}
		out = append(out, Target{Resource: mapping.Resource, Ref: o, Verbs: verbs})
	}
	return out
}

// WriteTargets are the objects of the plan, each to be created or patched; the instance's own
// Secret of generated values is the controller's bookkeeping, not the template's content.
func WriteTargets(plan []*Planned) []Target {
	out := make([]Target, 0, len(plan))
	for _, pl := range plan {
		if !pl.Generated {
			out = append(out, Target{Resource: pl.Resource, Ref: pl.Ref, Verbs: []string{"create", "patch"}})
		}
	}
	return out
}

// Authorize is the authorization rule of objects: a SubjectAccessReview for the requester
// (through a's SelfSubjectAccessReview with SelfReview), for create and patch of every object
// of the plan (the generated-values Secret too) and delete of every object pruned, then the
// same for every author (AuthorizeAuthors). A refusal names every refused object (Forbidden);
// an error of the authorizer is returned as it is.
func (p *Planner) Authorize(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, plan []*Planned, authors []Author, prune []Target) error {
	requester := RequesterInfo(ti.Spec.Requester)
	targets := make([]Target, 0, len(plan)+len(prune))
	for _, pl := range plan {
		targets = append(targets, Target{Resource: pl.Resource, Ref: pl.Ref, Verbs: []string{"create", "patch"}})
	}
	var refused []string
	for _, t := range append(targets, prune...) {
		for _, verb := range t.Verbs {
			attrs := authorizer.AttributesRecord{User: requester, Verb: verb, APIGroup: t.Resource.Group, APIVersion: t.Resource.Version,
				Resource: t.Resource.Resource, Namespace: t.Ref.Namespace, Name: t.Ref.Name, ResourceRequest: true}
			allowed, reason, err := p.AskObject(ctx, a, attrs)
			if err != nil {
				return err
			}
			if !allowed {
				refused = append(refused, fmt.Sprintf("%s: %s may not %s it: %s", inventory.DescribeObject(t.Ref), requester.GetName(), verb, reason))
				break
			}
		}
	}
	if len(refused) > 0 {
		return Fail("Forbidden", "nothing was applied; refused: %s", strings.Join(refused, "; "))
	}
	return p.AuthorizeAuthors(ctx, ti, authors, append(WriteTargets(plan), prune...))
}

// AuthorizeAuthors checks that every author other than the requester may do what the pass
// would do to each target. It refuses with every object each author may not touch, naming
// both (AuthorForbidden); a Template without a recorded author refuses the pass (NoAuthor),
// as nobody vouches for it.
func (p *Planner) AuthorizeAuthors(ctx context.Context, ti *templatesv1.TemplateInstance, authors []Author, targets []Target) error {
	var refused []string
	err := eachAuthor(ti, authors, func(a Author, key string) error {
		for _, t := range targets {
			for _, verb := range t.Verbs {
				attrs := authorizer.AttributesRecord{User: a.User, Verb: verb, APIGroup: t.Resource.Group, APIVersion: t.Resource.Version,
					Resource: t.Resource.Resource, Namespace: t.Ref.Namespace, Name: t.Ref.Name, ResourceRequest: true}
				allowed, reason, err := p.Ask(ctx, attrs)
				if err != nil {
					return err
				}
				if !allowed {
					refused = append(refused, fmt.Sprintf("%s: %s, the author of %s, may not %s it: %s",
						inventory.DescribeObject(t.Ref), a.User.GetName(), templatesOf(authors, key), verb, reason))
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return Fail("AuthorForbidden", "nothing was applied; a template's author may not do what the instance would: %s", strings.Join(refused, "; "))
	}
	return nil
}

// AuthorizeInputs checks that every author other than the requester may get the instance
// and each source of read (InputForbidden, naming authors and sources); a Template without a
// recorded author refuses (NoAuthor).
func (p *Planner) AuthorizeInputs(ctx context.Context, ti *templatesv1.TemplateInstance, authors []Author, read []inventory.Source) error {
	targets := []authorizer.AttributesRecord{{Verb: "get", APIGroup: templates.GroupName, APIVersion: templatesv1.SchemeGroupVersion.Version,
		Resource: "templateinstances", Namespace: ti.Namespace, Name: ti.Name, ResourceRequest: true}}
	names := []string{"TemplateInstance " + ti.Namespace + "/" + ti.Name + " (its values)"}
	for _, src := range read {
		targets = append(targets, authorizer.AttributesRecord{Verb: "get", APIVersion: "v1", Resource: src.Resource(),
			Namespace: ti.Namespace, Name: src.Name, ResourceRequest: true})
		names = append(names, src.Kind+" "+ti.Namespace+"/"+src.Name)
	}
	var refused []string
	err := eachAuthor(ti, authors, func(a Author, key string) error {
		for i, attrs := range targets {
			attrs.User = a.User
			allowed, reason, err := p.Ask(ctx, attrs)
			if err != nil {
				return err
			}
			if !allowed {
				refused = append(refused, fmt.Sprintf("%s, the author of %s, may not get %s: %s", a.User.GetName(), templatesOf(authors, key), names[i], reason))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return Fail("InputForbidden", "nothing was rendered; a template's author may not read what the instance reads: %s", strings.Join(refused, "; "))
	}
	return nil
}

// eachAuthor calls check once for every author other than the requester (key: its
// IdentityKey), and refuses a Template that records no author (NoAuthor): nobody vouches for
// it. check's error stops it.
func eachAuthor(ti *templatesv1.TemplateInstance, authors []Author, check func(a Author, key string) error) error {
	requester := IdentityKey(RequesterInfo(ti.Spec.Requester))
	checked := map[string]bool{}
	for _, a := range authors {
		if a.User == nil {
			return noAuthor(a)
		}
		key := IdentityKey(a.User)
		if key == requester || checked[key] {
			continue
		}
		checked[key] = true
		if err := check(a, key); err != nil {
			return err
		}
	}
	return nil
}

// noAuthor is the failure of a Template that records no author.
func noAuthor(a Author) error {
	return Fail("NoAuthor", "nothing was applied: Template %s records no author (it was stored before Stencil recorded "+
		"authors); what a Template renders is applied only when its author may create it, and any update of the "+
		"Template records its writer as the author", a.Template)
}

// templatesOf names the Templates whose author has the identity key.
func templatesOf(authors []Author, key string) string {
	var names []string
	for _, a := range authors {
		if a.User != nil && IdentityKey(a.User) == key {
			names = append(names, a.Template)
		}
	}
	if len(names) == 1 {
		return "Template " + names[0]
	}
	return "Templates " + strings.Join(names, ", ")
}

// Ask asks the Planner's authorizer (a SubjectAccessReview in a cluster) about attrs; err is
// an outage of the authorizer, never a refusal.
func (p *Planner) Ask(ctx context.Context, attrs authorizer.AttributesRecord) (bool, string, error) {
	return authz.Ask(ctx, p.cfg.Authorizer, attrs)
}

// AskObject asks whether the requester may act on an object of the target: through the
// authorizer, or, with SelfReview (the target's own identity acts), with a's
// SelfSubjectAccessReview there. err is an outage, never a refusal.
func (p *Planner) AskObject(ctx context.Context, a Applier, attrs authorizer.AttributesRecord) (bool, string, error) {
	if !p.cfg.SelfReview {
		return p.Ask(ctx, attrs)
	}
	allowed, reason, err := a.MayI(ctx, attrs)
	if err != nil {
		return false, "", err
	}
	if !allowed && reason == "" {
		reason = "no rule allows it"
	}
	return allowed, reason, nil
}
