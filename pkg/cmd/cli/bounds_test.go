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

// boundsYAML is a template as a JSON Schema user writes it: bounds and lengths as numbers.
const boundsYAML = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: bounds}
parameters:
- {name: REPLICAS, type: int, value: "2", minimum: 1, maximum: 10}
- {name: RATIO, type: number, value: "0.5", minimum: 0.1, maximum: "1"}
- {name: TAG, value: v1, minLength: 2, maxLength: "8"}
- {name: ZONES, type: json, value: '["a"]', items: {type: string, maxLength: 3}, maxItems: 2}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {replicas: "${REPLICAS}", ratio: "${RATIO}", tag: "${TAG}", zones: "${ZONES}"}}
`

// TestBoundsOffline is issue 25's numeric bounds in stencil offline: process --local,
// parameters and convert take numbers for every numeric keyword and enforce them (on 3731d16
// each said "cannot read the template: json: cannot unmarshal number into Go struct field
// Parameter.parameters.minimum of type string"); a keyword of the wrong JSON type is an error
// at its field path, worded about the template.
func TestBoundsOffline(t *testing.T) {
	stdout, stderr, code := run(t, boundsYAML, "process", "--local", "-f", "-", "-p", "REPLICAS=10", "-p", "ZONES=[\"b\",\"c\"]")
	if code != 0 || !strings.Contains(stdout, "replicas: \"10\"") {
		t.Fatalf("process: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, tc := range []struct{ param, refused string }{
		{"REPLICAS=11", "must be at most 10"}, {"RATIO=0.05", "must be at least 0.1"}, {"TAG=v", "at least 2 characters"},
		{"ZONES=[\"a\",\"b\",\"c\"]", "at most 2"}, {"ZONES=[\"abcd\"]", "at most 3 characters"},
	} {
		if _, stderr, code := run(t, boundsYAML, "process", "--local", "-f", "-", "-p", tc.param); code == 0 || !strings.Contains(stderr, tc.refused) {
			t.Errorf("-p %s: exit %d, stderr without %q:\n%s", tc.param, code, tc.refused, stderr)
		}
	}
	stdout, stderr, code = run(t, boundsYAML, "parameters", "-f", "-", "-o", "json-schema")
	if code != 0 || !strings.Contains(stdout, `"maximum": 10`) || !strings.Contains(stdout, `"maxLength": 8`) {
		t.Fatalf("parameters -o json-schema: exit %d\n%s%s", code, stdout, stderr)
	}
	// convert keeps the bounds as written, in both forms.
	stdout, stderr, code = run(t, boundsYAML, "convert", "-f", "-", "--to", "openshift", "-o", "json")
	if code != 0 || !strings.Contains(stdout, `\"minimum\":1,\"maximum\":10`) || !strings.Contains(stdout, `\"maximum\":\"1\"`) {
		t.Fatalf("convert --to openshift: exit %d\n%s%s", code, stdout, stderr)
	}

	bad := strings.Replace(boundsYAML, "maximum: 10}", "maximum: true, required: 'yes'}", 1)
	wantAll := `parameters[0].required: Invalid value: "yes": must be true or false`
	for _, args := range [][]string{{"process", "--local", "-f", "-"}, {"parameters", "-f", "-"}, {"convert", "-f", "-", "--to", "openshift"}} {
		_, stderr, code := run(t, bad, args...)
		if code == 0 || !strings.Contains(stderr, "parameters[0].maximum: Invalid value: true: must be a number or a string holding one") || !strings.Contains(stderr, wantAll) ||
			strings.Contains(stderr, "Go struct field") || strings.Contains(stderr, "of type") {
			t.Errorf("%s: exit %d, stderr:\n%s", strings.Join(args, " "), code, stderr)
		}
	}
}
