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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/rollout"
)

// Which revision of its Template an instance runs (docs/revisions.md):
//
//   - a pinned one (spec.templateRef.revision), whatever the policy;
//   - Manual: the one it runs (status.templateRevision) while its spec keeps the generation
//     that revision was applied for; a spec change moves it to the Template's current one;
//   - Automatic: the Template's current one, once its rollout (the Template's, when it has
//     one: pkg/controller/rollout) moved the instance; until then the one it runs.
//     TargetRevision is the one place that asks.
//
// A Template stored before revisions were recorded has none: it is rendered as it is.

// Policy is the instance's update policy: the one written, else Manual for a pinned instance
// and Automatic for any other.
func Policy(ti *templatesv1.TemplateInstance) templatesv1.UpdatePolicy {
	switch ref := ti.Spec.TemplateRef; {
	case ti.Spec.UpdatePolicy != "":
		return ti.Spec.UpdatePolicy
	case ref != nil && ref.Revision > 0:
		return templatesv1.UpdatePolicyManual
	}
	return templatesv1.UpdatePolicyAutomatic
}

// TargetRevision is the revision of t the instance should run; 0 when t records none.
func TargetRevision(ti *templatesv1.TemplateInstance, t *templates.Template) int64 {
	if t.Revision == nil || ti.Spec.TemplateRef == nil {
		return 0
	}
	if pin := ti.Spec.TemplateRef.Revision; pin > 0 {
		return pin
	}
	r := ti.Status.TemplateRevision
	if Policy(ti) == templatesv1.UpdatePolicyManual {
		if r != nil && r.Generation == ti.Generation {
			return r.Number
		}
		return t.Revision.Number
	}
	// Automatic: the Template's rollout says whether it has moved this instance yet.
	if r != nil && rollout.Holds(t, ti) {
		return r.Number
	}
	return t.Revision.Number
}

// RolloutAuthorOf is the author of the rollout of t (the last writer of its rollout or
// rollout annotations), when the instance follows it: an Automatic, unpinned instance moves
// when the rollout says, so whoever wrote that shaped what it applies, and it applies only
// what that user may create too (Authorize). Pinned and Manual instances do not follow it.
func RolloutAuthorOf(ti *templatesv1.TemplateInstance, t *templates.Template) (Author, bool) {
	w := t.RolloutAuthor
	if w == nil || w.Username == "" || ti.Spec.TemplateRef == nil || ti.Spec.TemplateRef.Revision > 0 || Policy(ti) != templatesv1.UpdatePolicyAutomatic {
		return Author{}, false
	}
	return Author{Template: t.Namespace + "/" + t.Name + "'s rollout", User: &user.DefaultInfo{Name: w.Username, UID: w.UID, Groups: w.Groups, Extra: w.Extra}}, true
}

// revisionToRender is what the instance renders: t itself when it should run t's current
// revision (or t records none), else the content of the revision it should run, with that
// revision's author.
func (p *Planner) revisionToRender(ctx context.Context, ti *templatesv1.TemplateInstance, t *templates.Template) (*templates.Template, error) {
	number := TargetRevision(ti, t)
	if number == 0 || number == t.Revision.Number {
		return t, nil
	}
	rt, err := p.cfg.Templates.Revision(ctx, t, number)
	if apierrors.IsNotFound(err) {
		why := "a pinned revision"
		if ti.Spec.TemplateRef.Revision == 0 {
			why = "the revision this Manual instance runs"
		}
		kept := "only the newest revisions and those instances use are kept"
		if number > t.Revision.Number {
			kept = "no such revision was stored yet"
		}
		return nil, Fail("RevisionNotFound", "revision %d of Template %s/%s (%s) does not exist: %s; the Template is at revision %d",
			number, t.Namespace, t.Name, why, kept, t.Revision.Number)
	}
	return rt, err
}
