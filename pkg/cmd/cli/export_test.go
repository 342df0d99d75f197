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

package cli

import (
	"strings"
	"testing"
)

func TestExportValidate(t *testing.T) {
	cases := []struct {
		name string
		o    ExportOptions
		want string // part of the error, "" for none
	}{
		{"the default kinds", ExportOptions{Name: "t", Output: "yaml"}, ""},
		{"types", ExportOptions{Name: "t", Output: "json", Resources: []string{"deploy,svc,widgets.example.com"}, Selector: "app=a"}, ""},
		{"objects", ExportOptions{Name: "t", Output: "yaml", Resources: []string{"deploy/web", "svc/web"}}, ""},
		{"stored elsewhere", ExportOptions{Name: "t", Output: "yaml", Create: true, ToNamespace: "b"}, ""},
		{"OpenShift's form", ExportOptions{Name: "t", Output: "openshift"}, ""},
		{"OpenShift's form stored", ExportOptions{Name: "t", Output: "openshift", Create: true}, "takes no -o openshift"},
		{"no name", ExportOptions{Output: "yaml"}, "--name is required"},
		{"an unknown format", ExportOptions{Name: "t", Output: "wide"}, "--output must be"},
		{"types and objects", ExportOptions{Name: "t", Output: "yaml", Resources: []string{"deploy", "svc/web"}}, "not both"},
		{"types as several arguments", ExportOptions{Name: "t", Output: "yaml", Resources: []string{"deploy", "svc"}}, "separated by commas"},
		{"a selector with objects", ExportOptions{Name: "t", Output: "yaml", Resources: []string{"svc/web"}, Selector: "a=b"}, "cannot be combined"},
		{"a namespace to store in without storing", ExportOptions{Name: "t", Output: "yaml", ToNamespace: "b"}, "--to-namespace needs --create"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}
