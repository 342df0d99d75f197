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

package templateinstance

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// An instance acts only with what every identity whose input shaped its action may do: the
// requester, who wrote the instance's spec, and the author of every stored Template rendered
// into it (the referenced one and each one imported through transformersFrom), who wrote what
// the objects are. The requester's rights are enforced by impersonation and checked in the
// preflight; the authors' rights are checked here, with SubjectAccessReviews, before anything
// is applied or pruned. Otherwise a user who may edit a Template would act with the rights of
// whoever instantiated it (a confused deputy).

// author is the last writer of the content of one stored Template an instance renders.
type author struct {
	// template is namespace/name of the Template.
	template string
	// user is nil when the Template records no author.
	user user.Info
}

// authorOf reads the author the server recorded in t.
func authorOf(t *templates.Template) author {
	a := author{template: t.Namespace + "/" + t.Name}
	if w := t.Author; w != nil && w.Username != "" {
		a.user = &user.DefaultInfo{Name: w.Username, UID: w.UID, Groups: w.Groups, Extra: w.Extra}
	}
	return a
}

// target is one object the instance would write (create and patch) or prune (delete).
type target struct {
	resource schema.GroupVersionResource
	ref      templatesv1.TemplateInstanceObject
	verbs    []string
}

// pruneTargets are the objects of the instance's inventory that the new plan lacks and that a
// pass would delete; an object whose kind the cluster no longer serves is gone with its kind.
func (c *Controller) pruneTargets(old []templatesv1.TemplateInstanceObject, keep map[string]bool) []target {
	var out []target
	for _, o := range old {
		if keep[inventory.ObjectKey(o)] {
			continue
		}
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			continue
		}
		mapping, err := inventory.Mapping(c.cfg.Mapper, gv.WithKind(o.Kind))
		if err != nil {
			continue
		}
		verbs := []string{"delete"}
		if o.Lifecycle == templatesv1.LifecycleRetain {
			// Left in place: only its labels and managed fields are written.
			verbs = []string{"patch"}
		}
		out = append(out, target{resource: mapping.Resource, ref: o, verbs: verbs})
	}
	return out
}

// writeTargets are the objects of the plan, each to be created or patched; the instance's own
// Secret of generated values is the controller's bookkeeping, not the template's content.
func writeTargets(plan []*planned) []target {
	out := make([]target, 0, len(plan))
	for _, p := range plan {
		if !p.generated {
			out = append(out, target{resource: p.resource, ref: p.ref, verbs: []string{"create", "patch"}})
		}
	}
	return out
}

// authorizeAuthors checks that every author other than the requester may do what the pass
// would do to each target. It refuses with every object each author may not touch, naming
// both; a Template without a recorded author refuses the pass, as nobody vouches for it.
func (c *Controller) authorizeAuthors(ctx context.Context, ti *templatesv1.TemplateInstance, authors []author, targets []target) error {
	requester := identityKey(requesterInfo(ti.Spec.Requester))
	var refused []string
	checked := map[string]bool{}
	for _, a := range authors {
		if a.user == nil {
			return noAuthor(a)
		}
		key := identityKey(a.user)
		if key == requester || checked[key] {
			continue
		}
		checked[key] = true
		for _, t := range targets {
			for _, verb := range t.verbs {
				attrs := authorizer.AttributesRecord{User: a.user, Verb: verb, APIGroup: t.resource.Group, APIVersion: t.resource.Version,
					Resource: t.resource.Resource, Namespace: t.ref.Namespace, Name: t.ref.Name, ResourceRequest: true}
				allowed, reason, err := c.authorize(ctx, attrs)
				if err != nil {
					return err
				}
				if !allowed {
					refused = append(refused, fmt.Sprintf("%s: %s, the author of %s, may not %s it: %s",
						inventory.DescribeObject(t.ref), a.user.GetName(), templatesOf(authors, key), verb, reason))
					break
				}
			}
		}
	}
	if len(refused) > 0 {
		return fail("AuthorForbidden", "nothing was applied; a template's author may not do what the instance would: %s", strings.Join(refused, "; "))
	}
	return nil
}

// What an instance reads is its requester's: the values of its spec and of the Secrets and
// ConfigMaps it reads them from (parametersFrom, and the Secret that keeps its generated
// values). A Template's author chooses where each value goes, so an author who may not read
// one of them could read it through the objects the instance makes (a ConfigMap of it, an
// object named after it) or through what the instance reports. Every author other than the
// requester must therefore be allowed to get the instance and every source it reads, asked
// once the imported Templates are known and before any value is checked or used: a refusal
// renders nothing and names sources and authors, never a value.

// authorizeInputs checks that every author other than the requester may get the instance and
// each source of read; a Template without a recorded author refuses, as nobody vouches for it.
func (c *Controller) authorizeInputs(ctx context.Context, ti *templatesv1.TemplateInstance, authors []author, read []inventory.Source) error {
	requester := identityKey(requesterInfo(ti.Spec.Requester))
	targets := []authorizer.AttributesRecord{{Verb: "get", APIGroup: templates.GroupName, APIVersion: templatesv1.SchemeGroupVersion.Version,
		Resource: "templateinstances", Namespace: ti.Namespace, Name: ti.Name, ResourceRequest: true}}
	names := []string{"TemplateInstance " + ti.Namespace + "/" + ti.Name + " (its values)"}
	for _, src := range read {
		targets = append(targets, authorizer.AttributesRecord{Verb: "get", APIVersion: "v1", Resource: src.Resource(),
			Namespace: ti.Namespace, Name: src.Name, ResourceRequest: true})
		names = append(names, src.Kind+" "+ti.Namespace+"/"+src.Name)
	}
	var refused []string
	checked := map[string]bool{}
	for _, a := range authors {
		if a.user == nil {
			return noAuthor(a)
		}
		key := identityKey(a.user)
		if key == requester || checked[key] {
			continue
		}
		checked[key] = true
		for i, attrs := range targets {
			attrs.User = a.user
			allowed, reason, err := c.authorize(ctx, attrs)
			if err != nil {
				return err
			}
			if !allowed {
				refused = append(refused, fmt.Sprintf("%s, the author of %s, may not get %s: %s", a.user.GetName(), templatesOf(authors, key), names[i], reason))
			}
		}
	}
	if len(refused) > 0 {
		return fail("InputForbidden", "nothing was rendered; a template's author may not read what the instance reads: %s", strings.Join(refused, "; "))
	}
	return nil
}

// noAuthor is the failure of a Template that records no author.
func noAuthor(a author) error {
	return fail("NoAuthor", "nothing was applied: Template %s records no author (it was stored before Stencil recorded "+
		"authors); what a Template renders is applied only when its author may create it, and any update of the "+
		"Template records its writer as the author", a.template)
}

// authorsOf are the authors of the Templates imported.
func authorsOf(imported []*templates.Template) []author {
	out := make([]author, 0, len(imported))
	for _, t := range imported {
		out = append(out, authorOf(t))
	}
	return out
}

// templatesOf names the Templates whose author has the identity key.
func templatesOf(authors []author, key string) string {
	var names []string
	for _, a := range authors {
		if a.user != nil && identityKey(a.user) == key {
			names = append(names, a.template)
		}
	}
	if len(names) == 1 {
		return "Template " + names[0]
	}
	return "Templates " + strings.Join(names, ", ")
}
