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

package export

import (
	"errors"
	"strings"
	"testing"
)

// TestExportOfNothing: a template without objects re-creates nothing, so an export that keeps
// no object is an error that says why (nothing read, or each object made by something else),
// never an empty Template.
func TestExportOfNothing(t *testing.T) {
	cases := []struct {
		name    string
		objects []string
		want    []string // parts of the message
	}{
		{"nothing read", nil, []string{"nothing to export: no objects were read"}},
		{"what every namespace has", liveApp[:2], []string{
			"each of the 2 objects read is made by something else",
			"v1 ServiceAccount default: every namespace gets it from the ServiceAccount controller",
			"v1 ConfigMap kube-root-ca.crt: every namespace gets it from the root CA publisher"}},
		{"a ReplicaSet of a Deployment not read", liveApp[len(liveApp)-1:], []string{
			"each of the 1 objects read", "apps/v1 ReplicaSet shop-5d4f: "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, parameterize := range []bool{true, false} {
				res, err := Export(decode(t, tc.objects...), Options{Name: "shop", Parameterize: parameterize})
				var nothing *NothingToExportError
				if !errors.As(err, &nothing) || res != nil {
					t.Fatalf("got %v, %v; want a NothingToExportError", res, err)
				}
				for _, part := range tc.want {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("%q does not say %q", err, part)
					}
				}
			}
		})
	}
	// One object kept is a template.
	if res, err := Export(decode(t, liveApp[2]), Options{Name: "shop", Parameterize: true}); err != nil || len(res.Template.Objects) != 1 {
		t.Errorf("one ServiceAccount: %v, %v", res, err)
	}
}
