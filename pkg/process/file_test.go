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

package process

import (
	"fmt"
	"testing"
)

// TestReadTemplateFile: the places of a file's fields are the same read in the same pass
// (withPositions) or on the first call of Positions, for YAML, JSON and a YAML stream whose
// template is a later document; and the template is the one DecodeTemplateFile reads.
func TestReadTemplateFile(t *testing.T) {
	cases := []struct{ name, data, path, want string }{
		{"t.yaml", "apiVersion: v1\nkind: Template\nmetadata:\n  name: a\nobjects:\n- kind: ConfigMap\n  apiVersion: v1\n", "objects[0].kind", "t.yaml:6:3"},
		{"t.json", "{\n \"apiVersion\": \"v1\", \"kind\": \"Template\",\n \"metadata\": {\"name\": \"a\"},\n \"objects\": [{\"kind\": \"ConfigMap\", \"apiVersion\": \"v1\"}]}\n", "objects[0].kind", "t.json:4:15"},
		{"s.yaml", "---\n# Source: chart/t.yaml\n---\napiVersion: v1\nkind: Template\nmetadata:\n  name: a\nobjects:\n- kind: ConfigMap\n  apiVersion: v1\n", "objects[0].kind", "s.yaml:9:3"},
	}
	for _, c := range cases {
		for _, eager := range []bool{true, false} {
			f, err := ReadTemplateFile(c.name, []byte(c.data), eager)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if f.Template.Name != "a" || len(f.Template.Objects) != 1 {
				t.Errorf("%s: template %+v", c.name, f.Template)
			}
			if got := f.Positions().Locate(c.path); got != c.want {
				t.Errorf("%s (in the same pass: %v): %s at %q, want %q", c.name, eager, c.path, got, c.want)
			}
		}
	}
	if _, err := ReadTemplateFile("bad.json", []byte(`{"kind": "Template", "apiVersion": "v1", "objects": [}`), true); err == nil {
		t.Error("invalid JSON read")
	}
}

// TestSkippedDocuments: the documents after the one a template file's template is read from,
// that hold something, whichever document that was (the first, or the first that is not empty
// for OpenShift's dialect, as oc reads it).
func TestSkippedDocuments(t *testing.T) {
	stencil := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: a}\nobjects: []\n"
	openshift := "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata: {name: o}\nobjects: []\n"
	for _, c := range []struct {
		name, data string
		skipped    []string
	}{
		{"one document", stencil, nil},
		{"one document and empty ones", "---\n" + stencil + "---\n# nothing\n---\n", nil},
		{"JSON", `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"a"}}`, nil},
		{"three", stencil + "---\n" + openshift + "---\n# x\n---\nkind: ConfigMap\n", []string{"Template o", "ConfigMap"}},
		{"after empty leading ones", "---\n# Source: x\n---\n" + openshift + "---\n" + stencil, []string{"Template a"}},
	} {
		f, err := ReadTemplateFile("f.yaml", []byte(c.data), false)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, d := range f.Skipped() {
			got = append(got, DocumentName([]byte(c.data[d.Start:d.End])))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.skipped) {
			t.Errorf("%s: skipped %q, want %q", c.name, got, c.skipped)
		}
	}
}
