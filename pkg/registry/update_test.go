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
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// fakeInfo returns obj and err as the updated object, as a patch handler would.
type fakeInfo struct {
	obj    runtime.Object
	err    error
	panics bool
}

func (f fakeInfo) Preconditions() *metav1.Preconditions { return nil }
func (f fakeInfo) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	if f.panics {
		var m map[string]any
		m["boom"] = 1
	}
	return f.obj, f.err
}

var _ rest.UpdatedObjectInfo = fakeInfo{}

func TestCheckedUpdate(t *testing.T) {
	withVersion := func(rv string) runtime.Object {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "x", ResourceVersion: rv}}
	}
	patch := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{Verb: "patch"})
	put := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{Verb: "update"})
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "templates"}, "x", errors.New("stale"))
	cases := []struct {
		name string
		ctx  context.Context
		info fakeInfo
		code int32 // 0: no error; -1: the error as it was
	}{
		{"no version", put, fakeInfo{obj: withVersion("")}, 0},
		{"a version", put, fakeInfo{obj: withVersion("42")}, 0},
		{"abc", put, fakeInfo{obj: withVersion("abc")}, 422},
		{"negative", patch, fakeInfo{obj: withVersion("-1")}, 422},
		{"beyond 64 bits", put, fakeInfo{obj: withVersion("18446744073709551616")}, 422},
		{"API errors pass", patch, fakeInfo{err: conflict}, 409},
		{"strategic merge", patch, fakeInfo{err: fmt.Errorf("unknown patch type: bogus in map: map[]")}, 400},
		{"wrong kind of value", patch, fakeInfo{err: fmt.Errorf("expected a map, but received a string")}, 400},
		{"apply against the schema", patch, fakeInfo{err: fmt.Errorf("failed to create typed patch object (x): .parameters: expected list")}, 400},
		// The stored object failing is the server's problem, as in kube-apiserver.
		{"live object", patch, fakeInfo{err: fmt.Errorf("failed to create typed live object (x): broken")}, -1},
		// The patch machinery's panics are the patch's fault; elsewhere they are not caught.
		{"a panic applying a patch", patch, fakeInfo{panics: true}, 400},
		// Outside a patch the same words do not come from a patch.
		{"not a patch", put, fakeInfo{err: fmt.Errorf("unknown patch type: bogus")}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CheckedUpdate(tc.info, schema.GroupKind{Kind: "Template"}).UpdatedObject(tc.ctx, nil)
			switch {
			case tc.code == 0 && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.code == -1 && err != tc.info.err:
				t.Fatalf("error %v, want the original %v", err, tc.info.err)
			case tc.code > 0:
				var status apierrors.APIStatus
				if !errors.As(err, &status) || status.Status().Code != tc.code {
					t.Fatalf("error %v, want a %d", err, tc.code)
				}
			}
		})
	}
}

func TestCheckedUpdateLeavesOtherPanics(t *testing.T) {
	put := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{Verb: "update"})
	defer func() {
		if recover() == nil {
			t.Fatal("a panic outside a patch was swallowed")
		}
	}()
	_, _ = CheckedUpdate(fakeInfo{panics: true}, schema.GroupKind{Kind: "Template"}).UpdatedObject(put, nil)
}

func TestCheckReadVersion(t *testing.T) {
	for rv, ok := range map[string]bool{"": true, "0": true, "42": true, "abc": false, "-1": false, "1.5": false, "18446744073709551616": false} {
		err := checkReadVersion(rv)
		if (err == nil) != ok || err != nil && !apierrors.IsBadRequest(err) {
			t.Errorf("%q: %v, want ok=%v or a 400", rv, err, ok)
		}
	}
}
