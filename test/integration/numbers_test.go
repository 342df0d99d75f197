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

package integration

import (
	"encoding/json"
	"strings"
	"testing"
)

// hugeInteger has 401 digits: JSON allows it, no int64 or float64 holds it.
var hugeInteger = "1" + strings.Repeat("0", 400)

// numberTemplate is a Template whose first object carries number at .spec.n; extra is spliced
// in as more top-level members.
func numberTemplate(name, number, extra string) []byte {
	return []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"` + name + `"},` +
		`"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"spec":{"n":` + number + `}}]` + extra + `}`)
}

// TestNumbersOutOfRange is finding 3 of issue 17: a number no float64 holds, in objects or a
// transformer config, made structured-merge-diff panic while it tracked managed fields, before
// any validation ran; every such request got no answer. The server now refuses it when it
// decodes the body, as kube-apiserver refuses such a number in a custom resource, with a 400
// naming the field.
func TestNumbersOutOfRange(t *testing.T) {
	panicsBefore := len(shared.logMentions(t, "panic"))
	stored := shared.mustDo(t, "POST", apiPath("numbers", "templates"), ctJSON, numberTemplate("stored", "1", ""))
	if stored.status != 201 {
		t.Fatalf("creating the template to update: %d %s", stored.status, stored.body)
	}
	transformer := `,"transformers":[{"apiVersion":"builtin","kind":"ReplicaCountTransformer","replica":{"name":"x","count":1e400}}]`
	openshift := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"os"},"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"n":-1e999}]}`
	cases := []struct {
		name, method, path, contentType, body string
		field                                 string
	}{
		{"create", "POST", "templates", ctJSON, string(numberTemplate("a", "1e400", "")), "objects[0].spec.n"},
		{"create, 401 digits", "POST", "templates", ctJSON, string(numberTemplate("a", hugeInteger, "")), "objects[0].spec.n"},
		{"create, dry run", "POST", "templates?dryRun=All", ctJSON, string(numberTemplate("a", "1e400", "")), "objects[0].spec.n"},
		{"create, transformer config", "POST", "templates", ctJSON, string(numberTemplate("a", "1", transformer)), "transformers[0].replica.count"},
		{"update", "PUT", "templates/stored", ctJSON, string(numberTemplate("stored", "1e400", "")), "objects[0].spec.n"},
		{"update, dry run", "PUT", "templates/stored?dryRun=All", ctJSON, string(numberTemplate("stored", hugeInteger, "")), "objects[0].spec.n"},
		// The patch handler reads a merge patch's numbers itself, and refuses this one.
		{"merge patch", "PATCH", "templates/stored", ctMergePatch, `{"transformerOverrides":[{"n":1e400}]}`, ""},
		{"process", "POST", "processedtemplates", ctJSON, string(numberTemplate("a", "1e400", transformer)), "objects[0].spec.n"},
		{"process an OpenShift template", "POST", "processedtemplates", ctJSON, openshift, "objects[0].n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := shared.mustDo(t, tc.method, apiPath("numbers", tc.path), tc.contentType, []byte(tc.body))
			st, ok := resp.apiStatus()
			if resp.status != 400 || !ok || !strings.Contains(st.Message, tc.field+": Invalid value") && tc.field != "" {
				t.Fatalf("status %d, want 400 naming %s: %.600s", resp.status, tc.field, resp.body)
			}
		})
	}
	if panics := shared.logMentions(t, "panic"); len(panics) > panicsBefore {
		t.Fatalf("the server panicked: %s", panics[panicsBefore])
	}
}

// TestNumberValuesOutOfRange covers the other half of finding 3: a value substituted as JSON
// that holds such a number was written into the output as it is, which kubectl cannot read.
// It is now a string, as any value that is not JSON Kubernetes can read; an int parameter
// must hold an integer Kubernetes can read.
func TestNumberValuesOutOfRange(t *testing.T) {
	template := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"values"},
	  "parameters":[{"name":"P","value":"1e400"},{"name":"Q","value":"[1,{\"a\":-1e999}]"},{"name":"R","value":"12"}],
	  "objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"spec":{"p":"${{P}}","q":"${{Q}}","r":"${{R}}"}}]}`
	resp := shared.mustDo(t, "POST", apiPath("numbers", "processedtemplates"), ctJSON, []byte(template))
	if resp.status != 201 {
		t.Fatalf("status %d: %s", resp.status, resp.body)
	}
	var list struct {
		Items []struct {
			Spec map[string]any `json:"spec"`
		} `json:"items"`
	}
	if err := json.Unmarshal(resp.body, &list); err != nil || len(list.Items) != 1 {
		t.Fatalf("the answer does not decode as kubectl would decode it (%v): %s", err, resp.body)
	}
	got := list.Items[0].Spec
	if got["p"] != "1e400" || got["q"] != `[1,{"a":-1e999}]` || got["r"] != float64(12) {
		t.Fatalf("spec %v: want p and q as strings, r as the number 12", got)
	}

	// A stored template's processing: the caller's value takes the same rule.
	if resp := shared.mustDo(t, "POST", apiPath("numbers", "templates"), ctJSON, []byte(template)); resp.status != 201 {
		t.Fatalf("creating: %d %s", resp.status, resp.body)
	}
	resp = shared.mustDo(t, "POST", apiPath("numbers", "templates/values/processed"), ctJSON, []byte(`{"parameters":{"R":"-1e400"}}`))
	if resp.status != 201 || !strings.Contains(string(resp.body), `"r":"-1e400"`) {
		t.Fatalf("status %d, want r as a string: %s", resp.status, resp.body)
	}

	// An int parameter is substituted as a number, so its value must be one.
	intTemplate := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"ints"},
	  "parameters":[{"name":"N","type":"int","value":"` + hugeInteger + `"}],
	  "objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"spec":{"n":"${{N}}"}}]}`
	resp = shared.mustDo(t, "POST", apiPath("numbers", "templates"), ctJSON, []byte(intTemplate))
	if causes := resp.causes(); resp.status != 422 || strings.Join(causes, ",") != "parameters[0].value: FieldValueInvalid" {
		t.Fatalf("status %d causes %v, want 422 on parameters[0].value: %.400s", resp.status, causes, resp.body)
	}
}
