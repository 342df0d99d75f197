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

package preview

import (
	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// ObjectReleased is the change of a preview for an object the candidate no longer renders
// whose lifecycle is retain: it stays, no longer the instance's, and is no prune.
const ObjectReleased = "Released"

// releaseRetained marks the removed objects of a preview that are retained, in the inventory
// or in what the instance runs now, as released.
func releaseRetained(changes []templates.ObjectChange, inventoried []templatesv1.TemplateInstanceObject) []templates.ObjectChange {
	retained := map[string]bool{}
	for _, o := range inventoried {
		if o.Lifecycle == templatesv1.LifecycleRetain {
			retained[inventory.ObjectKey(o)] = true
		}
	}
	for i, c := range changes {
		if c.Change == "Removed" && retained[inventory.ObjectKey(templatesv1.TemplateInstanceObject{APIVersion: c.APIVersion, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name})] {
			changes[i].Change = ObjectReleased
		}
	}
	return changes
}
