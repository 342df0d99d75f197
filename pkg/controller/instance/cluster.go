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
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// Object names one object of the target cluster: its resource, namespace and name.
type Object struct {
	Resource  schema.GroupVersionResource
	Namespace string
	Name      string
}

// Applier acts in the target cluster as one requester: every read and write of an instance's
// objects, and of the Secrets and ConfigMaps of its values, goes through it, so that the
// cluster itself enforces the requester's RBAC and admission. A pass only reads through it
// (SourceData, SecretsData, MayI); what carries the plan out (the controller's apply, a
// preview's dry-run) writes through it too.
type Applier interface {
	// Get reads an object.
	Get(ctx context.Context, o Object) (*unstructured.Unstructured, error)
	// Apply applies obj with server-side apply under the controller's field manager, never
	// forcing a conflict; with dryRun the cluster only checks it (admission and validation).
	Apply(ctx context.Context, o Object, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error)
	// ApplyForced applies obj as Apply does but forces conflicts: adoption takes the fields
	// of another tool's managers over.
	ApplyForced(ctx context.Context, o Object, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error)
	// Patch patches the object under the controller's field manager: adoption moves field
	// ownership and removes another tool's ownership metadata, a retained object is released;
	// each patch conditional on the object's resourceVersion.
	Patch(ctx context.Context, o Object, patchType types.PatchType, data []byte, dryRun bool) (*unstructured.Unstructured, error)
	// List visits the objects of a resource in a namespace that selector selects, reading
	// them a page at a time: an object the visit keeps is its own to keep small.
	List(ctx context.Context, resource schema.GroupVersionResource, namespace, selector string, visit func(*unstructured.Unstructured) error) error
	// Delete deletes the object if its uid is uid, letting its dependents go in the background.
	Delete(ctx context.Context, o Object, uid types.UID) error
	// SourceData reads the data of a Secret or ConfigMap (its data and binaryData).
	SourceData(ctx context.Context, namespace string, src inventory.Source) (map[string][]byte, error)
	// SecretsData lists the Secrets of a namespace that selector selects: their data by name.
	SecretsData(ctx context.Context, namespace, selector string) (map[string]map[string][]byte, error)
	// MayI asks the target cluster whether the applier's own identity may do what attrs
	// describe (a SelfSubjectAccessReview); it answers the reason of a refusal.
	MayI(ctx context.Context, attrs authorizer.Attributes) (bool, string, error)
}

// Appliers hands out the Applier that acts as a requester.
type Appliers interface {
	// For returns the Applier of r.
	For(r *templatesv1.TemplateInstanceRequester) (Applier, error)
}

// RequesterInfo is the requester as the authorizer and the renderer see a user.
func RequesterInfo(r *templatesv1.TemplateInstanceRequester) user.Info {
	return &user.DefaultInfo{Name: r.Username, UID: r.UID, Groups: r.Groups, Extra: r.Extra}
}

// IdentityKey tells identities apart: two users with one key are the same to an authorizer.
func IdentityKey(u user.Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q", u.GetName(), u.GetUID(), u.GetGroups())
	extra := u.GetExtra()
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %q=%q", k, extra[k])
	}
	return b.String()
}
