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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/preview"
	"stencil.dev/stencil/pkg/controller/rollout"
)

// The leader also runs the Templates' rollouts (pkg/controller/rollout), from the same
// caches: one worker over a queue of Templates, queued when a Template or one of its
// instances changes, and when a wave's timeout comes. Rollouts only write Templates' status;
// the instances move in their own passes, which ask TargetRevision.

// rolloutCaller is who asks for a rollout's plan when the Template records no rollout author
// (it was stored before they were recorded): the server itself, which may list every
// namespace's instances. It is a question to the authorizer about listing instances and
// reading their inputs, never an identity anything is done as: every object is still checked
// and applied as each instance's requester, with each author's rights.
var rolloutCaller = &user.DefaultInfo{Name: "system:stencil:rollout", Groups: []string{user.SystemPrivilegedGroup}}

// newRollouts builds the Reconciler of cfg: plans come from cfg.Previewer when there is one.
// A plan is previewed as the user who last wrote the rollout's annotations (the one who set
// the plan hash), as that user previewed it: an instance whose inputs that user may not read
// is in both plans the same way, and a user who may not preview at all gets a plan that never
// matches.
func newRollouts(cfg Config) *rollout.Reconciler {
	rc := rollout.Config{Client: cfg.Instances, Now: cfg.Now, Recorder: cfg.Recorder}
	if p := cfg.Previewer; p != nil {
		rc.PlanHash = func(ctx context.Context, t *templatesv1.Template, revision int64) (string, error) {
			stored, err := cfg.Templates.Template(ctx, t.Namespace, t.Name)
			if err != nil {
				return "", err
			}
			var caller user.Info = rolloutCaller
			if w := stored.RolloutAuthor; w != nil && w.Username != "" {
				caller = &user.DefaultInfo{Name: w.Username, UID: w.UID, Groups: w.Groups, Extra: w.Extra}
			}
			status, err := p.Preview(ctx, preview.Request{Template: stored, Revision: revision, Caller: caller})
			if apierrors.IsForbidden(err) {
				return "(" + caller.GetName() + ", who wrote the rollout's annotations, may not preview it: " + instance.StatusMessage(err) + ")", nil
			}
			if err != nil {
				return "", err
			}
			return status.PlanHash, nil
		}
	}
	return rollout.New(rc)
}

// enqueueRollout queues the rollout of the Template namespace/name.
func (t *term) enqueueRollout(namespace, name string) {
	t.rolloutQueue.Add(namespace + "/" + name)
}

func (c *Controller) workRollouts(ctx context.Context, t *term) {
	for c.nextRollout(ctx, t) {
	}
}

// nextRollout takes one step of one Template's rollout, of term t's queue.
func (c *Controller) nextRollout(ctx context.Context, t *term) bool {
	key, quit := t.rolloutQueue.Get()
	if quit {
		return false
	}
	defer t.rolloutQueue.Done(key)
	if ctx.Err() != nil {
		return false
	}
	after, err := c.syncRollout(ctx, t, key)
	switch {
	case apierrors.IsConflict(err):
		t.rolloutQueue.AddAfter(key, conflictRetry)
	case err != nil:
		klog.Infof("rollout of template %s: %v (retrying with backoff)", key, err)
		t.rolloutQueue.AddRateLimited(key)
	case after > 0:
		t.rolloutQueue.Forget(key)
		// A little past the timeout, so that the wave has timed out when it is looked at.
		t.rolloutQueue.AddAfter(key, after+100*time.Millisecond)
	default:
		t.rolloutQueue.Forget(key)
	}
	return true
}

// syncRollout reads the Template and its instances from the term's caches and reconciles its
// rollout; a Template gone has its rollout forgotten.
func (c *Controller) syncRollout(ctx context.Context, t *term, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	tpl, err := t.templates.Templates(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.rollouts.Forget(namespace, name)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	objs, err := t.byTemplate.ByIndex(byTemplate, key)
	if err != nil {
		return 0, err
	}
	instances := make([]*templatesv1.TemplateInstance, 0, len(objs))
	for _, obj := range objs {
		if ti, ok := obj.(*templatesv1.TemplateInstance); ok {
			instances = append(instances, ti)
		}
	}
	return c.rollouts.Reconcile(ctx, tpl, instances)
}

// movesInstances says whether a change of a Template from old to t may change which revision
// some instance should run: a new revision, a rollout added or removed, a rollout started or
// complete. A wave needs no event of the Template: the instances it moves are marked, and
// their own events queue them. A write of the rollout's counts or conditions alone moves
// nobody, and queueing every instance of the Template for it would cost a read of the
// Template each.
func movesInstances(old, t *templatesv1.Template) bool {
	if old == nil || old.Revision == nil || t.Revision == nil || old.Revision.Number != t.Revision.Number || (old.Rollout == nil) != (t.Rollout == nil) {
		return true
	}
	a, b := rolloutOf(old), rolloutOf(t)
	if a == nil || b == nil {
		return a != b
	}
	return a.Revision != b.Revision || a.Phase != b.Phase
}

func rolloutOf(t *templatesv1.Template) *templatesv1.RolloutStatus {
	if t.Status == nil {
		return nil
	}
	return t.Status.Rollout
}
