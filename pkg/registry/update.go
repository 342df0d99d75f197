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

package registry

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"
)

// CheckedUpdate wraps the UpdatedObjectInfo of a PUT or PATCH so that what the request got
// wrong is answered with a 4xx. The generic store and the patch handler return two such
// problems as plain errors, which the API server answers with a 500 (kube-apiserver does the
// same for its own resources): a resourceVersion that is not one this server hands out, and a
// patch that the strategic-merge or server-side-apply machinery cannot apply. Both are
// checked here, where the updated object is built and before the store reads its version.
func CheckedUpdate(objInfo rest.UpdatedObjectInfo, kind schema.GroupKind) rest.UpdatedObjectInfo {
	return checkedUpdate{UpdatedObjectInfo: objInfo, kind: kind}
}

type checkedUpdate struct {
	rest.UpdatedObjectInfo
	kind schema.GroupKind
}

// UpdatedObject builds the updated object as the wrapped info does and checks its
// resourceVersion.
func (u checkedUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (obj runtime.Object, err error) {
	if isPatch(ctx) {
		// The strategic merge library panics on some patches (a $setElementOrder list whose
		// items are objects the patch does not hold), which the API server answers by
		// dropping the connection. It works on the request's own copies of the object, so
		// nothing is left half done: the patch is refused, and the panic logged for a report.
		defer func() {
			if r := recover(); r != nil {
				klog.ErrorS(nil, "Refused a patch that the patch machinery could not apply", "kind", u.kind, "failure", r, "stack", string(debug.Stack()))
				obj, err = nil, apierrors.NewBadRequest(fmt.Sprintf("the patch cannot be applied: %v", r))
			}
		}()
	}
	obj, err = u.UpdatedObjectInfo.UpdatedObject(ctx, oldObj)
	if err != nil {
		return nil, patchError(ctx, err)
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	// The storage's versions are etcd revisions; the store parses them with ParseUint and
	// reports a failure as a server error.
	if rv := accessor.GetResourceVersion(); rv != "" {
		if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
			return nil, apierrors.NewInvalid(u.kind, accessor.GetName(), field.ErrorList{field.Invalid(
				field.NewPath("metadata", "resourceVersion"), rv,
				"must be a resourceVersion read from this server, or empty to update whatever the current version is")})
		}
	}
	return obj, nil
}

// patchFaults are the errors of applying a patch that only the patch can cause: the strategic
// merge library's, which the patch handler passes on as they are for all but a few, and
// server-side apply's check of the applied configuration against the schema (upstream,
// kubernetes/kubernetes#139253). Errors about the stored object are not among them: those
// stay server errors.
var patchFaults = []string{
	"failed to create typed patch object",
	"unknown patch type:",
	"invalid value for special key:",
	"does not contain declared merge key",
	"cannot merge lists without merge key",
	"merging lists cannot yet be specified in the patch",
	"list element types are not identical",
	"invalid element type in merging list",
	"cannot find merge key",
	"unexpected patch strategy",
	"doesn't match $setElementOrder",
}

func isPatch(ctx context.Context) bool {
	info, ok := genericapirequest.RequestInfoFrom(ctx)
	return ok && info.Verb == "patch"
}

// patchError turns an error that applying a patch's content caused into a 400, as the patch
// handler does for the errors it knows.
func patchError(ctx context.Context, err error) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	if !isPatch(ctx) {
		return err
	}
	msg := err.Error()
	for _, fault := range patchFaults {
		if strings.Contains(msg, fault) {
			return apierrors.NewBadRequest("the patch cannot be applied: " + msg)
		}
	}
	// "expected a map, but received a string": the patch gave a value of the wrong kind.
	if strings.HasPrefix(msg, "expected a ") && strings.Contains(msg, ", but received a ") {
		return apierrors.NewBadRequest("the patch cannot be applied: " + msg)
	}
	return err
}
