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
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const mysqlTemplate = "../../process/testdata/mysql-persistent.json"

// run runs the stencil command line in memory.
func run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}, args)
	return out.String(), errOut.String(), code
}

// list is the part of a v1 List the tests look at.
type list struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []struct {
		Kind       string            `json:"kind"`
		Metadata   map[string]any    `json:"metadata"`
		StringData map[string]string `json:"stringData"`
	} `json:"items"`
}

func TestProcessLocalMySQL(t *testing.T) {
	stdout, stderr, code := run(t, "", "process", "--local", "-f", mysqlTemplate, "-p", "MYSQL_USER=u")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var l list
	if err := yaml.Unmarshal([]byte(stdout), &l); err != nil {
		t.Fatalf("output is not YAML: %v\n%s", err, stdout)
	}
	if l.APIVersion != "v1" || l.Kind != "List" || len(l.Items) != 4 {
		t.Fatalf("want a v1 List of 4 objects, got %s %s with %d items", l.APIVersion, l.Kind, len(l.Items))
	}
	secret := l.Items[0]
	if secret.Kind != "Secret" || secret.StringData["database-user"] != "u" {
		t.Errorf("secret: %+v", secret)
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9]{16}$`).MatchString(secret.StringData["database-password"]) {
		t.Errorf("password not generated: %q", secret.StringData["database-password"])
	}
}

func TestProcessJSONFromStdinWithParamFile(t *testing.T) {
	template, err := os.ReadFile(mysqlTemplate)
	if err != nil {
		t.Fatal(err)
	}
	paramFile := filepath.Join(t.TempDir(), "params.env")
	content := "# values\nMYSQL_USER=fromfile\n\nMYSQL_PASSWORD=p=w\r\nDATABASE_SERVICE_NAME=db\n"
	if err := os.WriteFile(paramFile, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, string(template), "process", "--local", "-f", "-", "-o", "json",
		"--param-file", paramFile, "-p", "MYSQL_USER=fromflag", "-l", "a=1,b=2", "-l", "c=3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "Warning: -p MYSQL_USER overrides the value from") {
		t.Errorf("no override warning: %q", stderr)
	}
	var l list
	if err := json.Unmarshal([]byte(stdout), &l); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	secret := l.Items[0]
	if secret.StringData["database-user"] != "fromflag" || secret.StringData["database-password"] != "p=w" {
		t.Errorf("-p must win over the file, and values keep their '=': %v", secret.StringData)
	}
	labels := secret.Metadata["labels"].(map[string]any)
	if secret.Metadata["name"] != "db" || labels["a"] != "1" || labels["b"] != "2" || labels["c"] != "3" {
		t.Errorf("metadata %v", secret.Metadata)
	}
}

func TestProcessParametersTable(t *testing.T) {
	stdout, stderr, code := run(t, "", "process", "--local", "-f", mysqlTemplate, "--parameters")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if !regexp.MustCompile(`^NAME\s+DESCRIPTION\s+GENERATOR\s+VALUE\s+REQUIRED$`).MatchString(lines[0]) {
		t.Errorf("header %q", lines[0])
	}
	if len(lines) != 10 {
		t.Errorf("want 9 parameters, got:\n%s", stdout)
	}
	if !regexp.MustCompile(`^MYSQL_USER\s+Username for MySQL user.*\s+expression\s+user\[A-Z0-9\]\{3\}\s+true$`).MatchString(lines[4]) {
		t.Errorf("MYSQL_USER row %q", lines[4])
	}
}

func TestProcessErrors(t *testing.T) {
	broken := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"broken"},
		"parameters":[{"name":"A","required":true},{"name":"N","type":"int","value":"x"}],
		"objects":[{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"${A}","b":"${MISSING}"}},{"kind":"Secret"}],
		"transformers":[{"apiVersion":"builtin","kind":"PatchTransformer","target":{"kind":"Deployment"}}]}`
	cases := []struct {
		name  string
		stdin string
		args  []string
		want  []string
	}{
		{"every template error at once", broken, []string{"process", "--local", "-f", "-"},
			[]string{`unable to process template "broken"`, "parameters[1].value", "objects[0].data.b", "objects[1].apiVersion",
				"parameters[0]: Required value", "transformers[0].patch: Required value"}},
		{"every value error at once", "", []string{"process", "--local", "-f", mysqlTemplate, "-p", "NOPE=1", "-p", "MYSQL_DATABASE="},
			[]string{"parameters[NOPE]", "parameters[6]: Required value: parameter MYSQL_DATABASE is required"}},
		{"malformed flags", "", []string{"process", "--local", "-f", mysqlTemplate, "-p", "novalue", "-p", "A=1", "-p", "A=2", "-l", "x"},
			[]string{`-p "novalue"`, "-p A: the parameter is given more than once", `-l "x"`}},
		{"no server", "", []string{"process", "-f", mysqlTemplate, "--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify"}, []string{"connection refused"}},
		{"unknown parameter to a server", "", []string{"process", "-f", mysqlTemplate, "-p", "NOPE=1"}, []string{"unknown parameter name NOPE"}},
		{"name and file", "", []string{"process", "mysql", "-f", mysqlTemplate}, []string{"not both"}},
		{"output dir without destinations", "", []string{"process", "--local", "-f", mysqlTemplate, "--output-dir", "x"}, []string{"give --destination"}},
		{"bad output", "", []string{"process", "--local", "-f", mysqlTemplate, "-o", "xml"}, []string{"--output must be yaml or json"}},
		{"no file", "", []string{"process", "--local"}, []string{"give a stored template's NAME, or a file with -f"}},
		{"not a template", `{"apiVersion":"v1","kind":"Pod"}`, []string{"process", "--local", "-f", "-"}, []string{`not a Template`}},
		{"invalid label", "", []string{"process", "--local", "-f", mysqlTemplate, "-l", "bad key=x"}, []string{"labels: Invalid value"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := run(t, tc.stdin, tc.args...)
			if code == 0 {
				t.Fatalf("exit 0, want an error; stdout:\n%s", stdout)
			}
			if stdout != "" {
				t.Errorf("nothing may be printed on stdout on error, got %q", stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
	_, _, code := run(t, "", "process", "--local", "-f", mysqlTemplate, "-p", "NOPE=1", "-p", "MYSQL_USER=u", "--ignore-unknown-parameters")
	if code != 0 {
		t.Errorf("--ignore-unknown-parameters: exit %d", code)
	}
}

func TestProcessLocalDestinationsAndCustomTransforms(t *testing.T) {
	dir := t.TempDir()
	tpl := filepath.Join(dir, "app.yaml")
	cts := filepath.Join(dir, "cts.yaml")
	writeFile(t, tpl, `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
transformers:
- {apiVersion: builtin, kind: CleanupTransformer}
objects:
- apiVersion: v1
  kind: Service
  metadata: {name: web, uid: x}
  spec: {clusterIP: 10.0.0.1, ports: [{port: 80, nodePort: 30080}]}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: hello
    annotations: {control.kubestellar.io/expand-templates: "true"}
  data: {where: "{{.clusterName}} {{.tier}}", secret: s}
`)
	writeFile(t, cts, `apiVersion: templates.stencil.dev/v1alpha1
kind: CustomTransform
metadata: {name: no-secrets}
spec: {resource: configmaps, remove: ["$.data.secret"]}
`)
	out := filepath.Join(dir, "out")
	_, stderr, code := run(t, "", "process", "--local", "-f", tpl, "-f", cts, "--property", "tier=gold",
		"--destination", "virgo", "--destination", "leo", "--output-dir", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, dest := range []string{"virgo", "leo"} {
		data, err := os.ReadFile(filepath.Join(out, dest+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, want := range []string{"where: " + dest + " gold", "templates.stencil.dev/destination: " + dest, "kind: Service"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s.yaml lacks %q:\n%s", dest, want, text)
			}
		}
		for _, gone := range []string{"secret: s", "nodePort", "clusterIP", "uid"} {
			if strings.Contains(text, gone) {
				t.Errorf("%s.yaml still has %q:\n%s", dest, gone, text)
			}
		}
	}
}

// TestProcessLocalRefusesWhatTheServerRefuses checks that --local runs the server's checks on
// CustomTransforms, and names the problems with the server's field paths.
func TestProcessLocalRefusesWhatTheServerRefuses(t *testing.T) {
	dir := t.TempDir()
	cts := filepath.Join(dir, "cts.yaml")
	for _, tc := range []struct {
		name, spec string
		want       []string
	}{{
		name: "an invalid path",
		spec: `{resource: configmaps, remove: ["$.data.ok", "$", "$.a..b"]}`,
		want: []string{`spec.remove[1]: Invalid value: "$"`, `spec.remove[2]: Invalid value: "$.a..b"`},
	}, {
		name: "kind and resource",
		spec: `{resource: configmaps, kind: ConfigMap, remove: ["$.data"]}`,
		want: []string{"spec.kind: Forbidden: give resource or kind, not both"},
	}, {
		name: "neither kind nor resource, nor paths",
		spec: `{apiGroup: "Not_A_Group"}`,
		want: []string{"spec.apiGroup: Invalid value", "spec.resource: Required value", "spec.remove: Required value"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, cts, "apiVersion: templates.stencil.dev/v1alpha1\nkind: CustomTransform\nmetadata: {name: ct}\nspec: "+tc.spec+"\n")
			_, stderr, code := run(t, "", "process", "--local", "-f", mysqlTemplate, "-f", cts, "-p", "MYSQL_USER=u")
			if code == 0 {
				t.Fatal("--local accepted a CustomTransform the server refuses")
			}
			if !strings.Contains(stderr, `CustomTransform.templates.stencil.dev "ct" is invalid`) {
				t.Errorf("stderr does not name the CustomTransform:\n%s", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestTransformersLocal(t *testing.T) {
	tpl := filepath.Join(t.TempDir(), "app.yaml")
	writeFile(t, tpl, `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
transformers:
- {apiVersion: builtin, kind: LabelTransformer, labels: {a: b}}
- {apiVersion: builtin, kind: PrefixSuffixTransformer, metadata: {name: pre}, prefix: x-}
transformerOrder: [{name: pre}, {name: label-transformer}]
`)
	stdout, stderr, code := run(t, "", "transformers", "--local", "-f", tpl)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Index(stdout, "PrefixSuffixTransformer") > strings.Index(stdout, "LabelTransformer") {
		t.Fatalf("transformerOrder not applied:\n%s", stdout)
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestParametersMaskSecrets(t *testing.T) {
	tmpl := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"s"},
		"parameters":[{"name":"TOKEN","value":"hunter2","secret":true},{"name":"GEN","generate":"expression","from":"[a-z]{4}","secret":true},{"name":"PLAIN","value":"visible"}]}`
	stdout, stderr, code := run(t, tmpl, "parameters", "-f", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "hunter2") || !strings.Contains(stdout, "(masked)") || !strings.Contains(stdout, "visible") ||
		!strings.Contains(stdout, "[a-z]{4}") {
		t.Errorf("a secret default must show as (masked), the rest as it is:\n%s", stdout)
	}
	stdout, _, _ = run(t, tmpl, "parameters", "-f", "-", "--show-secrets")
	if !strings.Contains(stdout, "hunter2") || strings.Contains(stdout, "(masked)") {
		t.Errorf("--show-secrets must print the value:\n%s", stdout)
	}
}

func TestParametersTableShowsRules(t *testing.T) {
	tmpl := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"ruled"},
		"parameters":[{"name":"MIN","type":"int","value":"1"},{"name":"MAX","type":"int","value":"3"}],
		"rules":[{"rule":"params.MIN <= params.MAX","message":"MIN must not exceed MAX","fieldPath":"MIN"}],
		"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"min":"${MIN}"}}]}`
	stdout, stderr, code := run(t, tmpl, "parameters", "-f", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 6 || lines[3] != "" {
		t.Fatalf("want 2 parameters, a blank line and 1 rule, got:\n%s", stdout)
	}
	if !regexp.MustCompile(`^RULE\s+MESSAGE\s+FIELD$`).MatchString(lines[4]) ||
		!regexp.MustCompile(`^params\.MIN <= params\.MAX\s+MIN must not exceed MAX\s+MIN$`).MatchString(lines[5]) {
		t.Errorf("rules table:\n%s", strings.Join(lines[4:], "\n"))
	}
}

// TestProcessSaysWhatItSkips: stencil process processes the first template of a file, as oc
// process does (the parameters given are that template's), and warns of every other document
// that holds something, at its line, by kind and name. Before, they were left out silently.
func TestProcessSaysWhatItSkips(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "multi.yaml")
	writeFile(t, file, `---
apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: first}
parameters: [{name: NAME, value: a}]
objects: [{apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}"}}]
---
# a comment only: nothing to say
---
apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: second}
objects: []
---
apiVersion: v1
kind: ConfigMap
metadata: {name: plain}
`)
	out, errOut, code := run(t, "", "process", "--local", "-f", file, "-p", "NAME=x", "-o", "json")
	if code != 0 || !strings.Contains(out, `"name":"x"`) && !strings.Contains(out, `"name": "x"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		file + ":10:1: warning: document 2 (Template second) is not processed",
		file + ":15:1: warning: document 3 (ConfigMap plain) is not processed",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("standard error lacks %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(errOut, "warning:"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, errOut)
	}
	single := filepath.Join(dir, "single.yaml")
	writeFile(t, single, "---\napiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: a}\nobjects: []\n---\n# trailing\n")
	if _, errOut, code := run(t, "", "process", "--local", "-f", single); code != 0 || strings.Contains(errOut, "not processed") {
		t.Errorf("a file of one template: exit %d\n%s", code, errOut)
	}
}
