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
// Template, its instances and the time, it decides the next step of the rollout and writes it
// into the Template's status (templates/status); Holds is what the instance controller asks,
// per instance, to know whether it stays on the revision it runs. The rollout itself applies
// nothing and acts as nobody: each instance is moved by its own pass, as its requester, under
// the authorization rule (the requester and every author), so a rollout moves nothing its
// instances' rule would not allow.
package rollout

import (
	"slices"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Holds says whether an Automatic, unpinned instance named name, which runs revision running
// (0: it never applied one), stays on it rather than moving to the Template's current one:
// while the Template has a rollout and the rollout of its current revision has not moved it
// (or has not started yet: the status is written after the revision, and no instance may run
// ahead of it). An instance that never applied takes the current revision, as does every
// instance of a Template without a rollout or whose rollout is complete.
func Holds(t *templates.Template, name string, running int64) bool {
	if t.Rollout == nil || t.Revision == nil || running == 0 || running == t.Revision.Number {
		return false
	}
	var st *templates.RolloutStatus
	if t.Status != nil {
		st = t.Status.Rollout
	}
	if st == nil || st.Revision != t.Revision.Number {
		return true
	}
	return st.Phase != templates.RolloutComplete && !slices.Contains(st.Moved, name)
}
