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

// Package rollout moves a Template's Automatic instances to a new revision of its content
// wave by wave (docs/revisions.md#rollouts). Reconcile is the one entry point: given a
// Template, its instances and the time, it decides the next step of the rollout, marks the
// instances a wave moves (their annotation templates.stencil.dev/rollout-moved) and writes the
// rollout's progress into the Template's status (templates/status), whose size does not grow
// with the number of instances; Holds is what the instance controller asks, per instance, to
// know whether it stays on the revision it runs. The rollout itself applies nothing and acts
// as nobody: each instance is moved by its own pass, as its requester, under the authorization
// rule (the requester and every author), so a rollout moves nothing its instances' rule would
// not allow.
package rollout

import (
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// Holds says whether an Automatic, unpinned instance stays on the revision it runs rather than
// moving to its Template t's current one: while t has a rollout and the rollout of its
// current revision has not moved it (or has not started yet: the status is written after the
// revision, and no instance may run ahead of it). An instance that never applied takes the
// current revision (one created without a cluster too, once someone consents to apply it), as does every instance of a Template without a rollout or whose rollout is
// complete. It reads the instance's own mark, never a list: one question costs the same
// whatever the number of instances.
func Holds(t *templates.Template, ti *templatesv1.TemplateInstance) bool {
	runs := running(ti)
	if t.Rollout == nil || t.Revision == nil || runs == 0 || runs == t.Revision.Number || templatesv1.CreatedWithoutCluster(ti) {
		return false
	}
	var st *templates.RolloutStatus
	if t.Status != nil {
		st = t.Status.Rollout
	}
	if st == nil || st.Revision != t.Revision.Number {
		return true
	}
	return st.Phase != templates.RolloutComplete && MovedIn(ti, st.Revision, t.UID) == 0
}

// movedValue is the value of AnnotationRolloutMoved for the wave of the rollout of revision
// of the Template whose uid is uid.
func movedValue(revision int64, wave int32, uid types.UID) string {
	return strconv.FormatInt(revision, 10) + "/" + strconv.FormatInt(int64(wave), 10) + "/" + string(uid)
}

// MovedIn is the wave of the rollout of revision of the Template whose uid is uid that moved
// the instance, from its annotation; 0 when none did.
func MovedIn(ti metav1.Object, revision int64, uid types.UID) int32 {
	rev, rest, ok := strings.Cut(ti.GetAnnotations()[templatesv1.AnnotationRolloutMoved], "/")
	if !ok || rev != strconv.FormatInt(revision, 10) {
		return 0
	}
	wave, owner, ok := strings.Cut(rest, "/")
	if !ok || owner != string(uid) {
		return 0
	}
	n, err := strconv.ParseInt(wave, 10, 32)
	if err != nil || n < 1 {
		return 0
	}
	return int32(n)
}
