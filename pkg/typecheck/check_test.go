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

package typecheck_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/typecheck"
	"stencil.dev/stencil/pkg/typecheck/kubeschemas"
)

// check type-checks a template file's objects with the core schemas and writes each finding
// as "path severity rule".
func check(t *testing.T, file string) []string {
	t.Helper()
	c, err := kubeschemas.Checker(nil)
	if err != nil {
		t.Fatal(err)
	}
	return checkWith(t, c, file)
}

func checkWith(t *testing.T, c *typecheck.Checker, file string) []string {
	t.Helper()
	tmpl, dialect, err := process.DecodeTemplate([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range c.Check(context.Background(), tmpl, dialect).Findings {
		out = append(out, fmt.Sprintf("%s %s %s", f.Path, f.Severity, f.Rule))
	}
	return out
}

// deployment is a template of one Deployment with spec written by the case.
func deployment(params, spec string) string {
	return `{"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template", "metadata": {"name": "t"},
  "parameters": [` + params + `],
  "objects": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "${APP}"}},
    "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
      "spec": {"containers": [{"name": "web", "image": "nginx"}]}}` + spec + `}}]}`
}

// TestSubstitutionTypes: what substitution writes into a field decides its JSON type. Each
// case is one field of a Deployment's spec and the findings it must give (none: it fits).
func TestSubstitutionTypes(t *testing.T) {
	const app = `{"name": "APP", "value": "web"}`
	cases := []struct {
		name, params, spec string
		want               []string
	}{
		{"text into an integer", `{"name": "REPLICAS", "value": "2"}`, `, "replicas": "${REPLICAS}"`,
			[]string{"objects[0].spec.replicas error wrong-type"}},
		{"typed int", `{"name": "REPLICAS", "type": "int", "value": "2"}`, `, "replicas": "${{REPLICAS}}"`, nil},
		{"typed bool into an integer", `{"name": "ON", "type": "bool", "value": "true"}`, `, "replicas": "${{ON}}"`,
			[]string{"objects[0].spec.replicas error wrong-type"}},
		{"typed number into an integer", `{"name": "N", "type": "number", "value": "2"}`, `, "replicas": "${{N}}"`,
			[]string{"objects[0].spec.replicas warning wrong-type"}},
		{"typed string whose default is an integer", `{"name": "R", "value": "3"}`, `, "replicas": "${{R}}"`, nil},
		{"typed string whose default is a word", `{"name": "R", "value": "three"}`, `, "replicas": "${{R}}"`,
			[]string{"objects[0].spec.replicas warning wrong-type"}},
		{"typed string without a default", `{"name": "R"}`, `, "replicas": "${{R}}"`, nil},
		{"text in text", `{"name": "S", "value": "Recreate"}`, `, "strategy": {"type": "${S}"}`, nil},
		{"literal outside the enum", ``, `, "strategy": {"type": "Sideways"}`,
			[]string{"objects[0].spec.strategy.type error enum-value"}},
		{"escaped reference is a literal", ``, `, "replicas": "$${X}"`,
			[]string{"objects[0].spec.replicas error wrong-type"}},
		{"unknown member", ``, `, "replica": 2`, []string{"objects[0].spec.replica error unknown-field"}},
		{"substituted member name is any field", `{"name": "K", "value": "replicas"}`, `, "${K}": 2`, nil},
		{"int-or-string takes text", `{"name": "P", "value": "25%"}`, `, "strategy": {"rollingUpdate": {"maxSurge": "${P}"}}`, nil},
		{"null is a field left out", ``, `, "replicas": null`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			params := app
			if c.params != "" {
				params += ", " + c.params
			}
			got := check(t, deployment(params, c.spec))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestRequiredAndEmbedded: a required field left out is found at its object, in the
// template's object and inside lists; a container without a name is one.
func TestRequiredAndEmbedded(t *testing.T) {
	file := `{"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template", "metadata": {"name": "t"},
  "objects": [
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"name": "http"}]}},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}]}`
	got := strings.Join(check(t, file), "\n")
	want := strings.Join([]string{
		"objects[0].spec.ports[0].port error required-field",
		"objects[1].spec.template.spec.containers[0].name error required-field",
		"objects[1].spec.selector error required-field",
	}, "\n")
	if got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
}

// TestUncheckedKinds: a kind of a group no schema describes is a note, a kind of a known
// group in a version it is not served in a warning that names the versions that serve it.
func TestUncheckedKinds(t *testing.T) {
	file := `{"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template", "metadata": {"name": "t"},
  "objects": [
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"anything": 1}},
    {"apiVersion": "apps/v1beta1", "kind": "Deployment", "metadata": {"name": "d"}},
    {"apiVersion": "v1", "kind": "${KIND}", "metadata": {"name": "k"}}],
  "parameters": [{"name": "KIND", "value": "ConfigMap"}]}`
	got := strings.Join(check(t, file), "\n")
	want := strings.Join([]string{
		"objects[0] note unchecked-kind",
		"objects[1].apiVersion warning unknown-kind",
	}, "\n")
	if got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
}
