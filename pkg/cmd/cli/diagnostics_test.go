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
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// brokenYAML is a template with five problems, found at once by processing.
const brokenYAML = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata:
  name: broken
parameters:
- name: A
  required: true
- name: NUM
  type: int
  value: x
objects:
- apiVersion: v1
  kind: ConfigMap
  data:
    a: ${A}
    b: ${MISSING}
- kind: Secret
transformers:
- apiVersion: builtin
  kind: PatchTransformer
  target:
    kind: Deployment
`

// brokenJSON is the same template as JSON, laid out over lines as people write it.
const brokenJSON = `{
  "apiVersion": "templates.stencil.dev/v1alpha1",
  "kind": "Template",
  "metadata": {"name": "broken"},
  "parameters": [
    {"name": "A", "required": true},
    {"name": "NUM", "type": "int", "value": "x"}
  ],
  "objects": [
    {"apiVersion": "v1", "kind": "ConfigMap",
     "data": {"a": "${A}", "b": "${MISSING}"}},
    {"kind": "Secret"}
  ],
  "transformers": [
    {"apiVersion": "builtin", "kind": "PatchTransformer", "target": {"kind": "Deployment"}}
  ]
}
`

// typesYAML has three fields of the wrong JSON type, found at once by the reader.
const typesYAML = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata:
  name: types
parameters:
- name: REPLICAS
  type: int
  maximum: true
  required: 'yes'
- name: TAG
  minLength: [2]
objects: []
`

// TestDiagnosticsPlaced: every problem of a template file is written FILE:LINE:COL: message,
// all at once, in the order of the file, for YAML and JSON, a file and standard input, stencil
// process --local, convert and parameters; exactly, since editors and CI annotators parse it.
func TestDiagnosticsPlaced(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"broken.yaml": brokenYAML, "broken.json": brokenJSON, "types.yaml": typesYAML,
		"syntax.yaml": "apiVersion: v1\nkind: Template\nobjects:\n- a: b\n  c\n d: [\n",
		"syntax.json": "{\"apiVersion\":\"v1\",\n \"kind\": \"Template\", x}",
		"offset.yaml": "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: m\nobjects: {a: 1}\n"}
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	f := func(name string) string { return filepath.Join(dir, name) }
	types := func(file string) string {
		return "error: cannot read the template (3 problems):\n" +
			file + ":8:3: error: parameters[0].maximum: Invalid value: true: must be a number or a string holding one\n" +
			file + `:9:3: error: parameters[0].required: Invalid value: "yes": must be true or false` + "\n" +
			file + ":11:3: error: parameters[1].minLength: Invalid value: [2]: must be an integer or a string holding one\n"
	}
	cases := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"processing, YAML", "", []string{"process", "--local", "-f", f("broken.yaml")},
			`error: unable to process template "broken" (5 problems):` + "\n" +
				f("broken.yaml") + ":6:3: error: parameters[0]: Required value: parameter A is required and must be specified\n" +
				f("broken.yaml") + `:10:3: error: parameters[1].value: Invalid value: "x": must be an integer` + "\n" +
				f("broken.yaml") + `:16:5: error: objects[0].data.b: Invalid value: "${MISSING}": MISSING is not a declared parameter` + "\n" +
				f("broken.yaml") + ":17:3: error: objects[1].apiVersion: Required value\n" +
				f("broken.yaml") + ":19:3: error: transformers[0].patch: Required value\n"},
		{"processing, JSON", "", []string{"process", "--local", "-f", f("broken.json")},
			`error: unable to process template "broken" (5 problems):` + "\n" +
				f("broken.json") + ":6:5: error: parameters[0]: Required value: parameter A is required and must be specified\n" +
				f("broken.json") + `:7:36: error: parameters[1].value: Invalid value: "x": must be an integer` + "\n" +
				f("broken.json") + `:11:28: error: objects[0].data.b: Invalid value: "${MISSING}": MISSING is not a declared parameter` + "\n" +
				f("broken.json") + ":12:5: error: objects[1].apiVersion: Required value\n" +
				f("broken.json") + ":15:5: error: transformers[0].patch: Required value\n"},
		// A value given on the command line for a parameter the file lacks: at the parameters.
		{"processing, standard input, an unknown parameter", brokenYAML, []string{"process", "--local", "-f", "-", "-p", "NOPE=1"},
			`error: unable to process template "broken" (6 problems):` + "\n" +
				`<stdin>:5:1: error: parameters[NOPE]: Invalid value: "NOPE": the template declares no such parameter (ignoreUnknownParameters, or --ignore-unknown-parameters, accepts it)` + "\n" +
				"<stdin>:6:3: error: parameters[0]: Required value: parameter A is required and must be specified\n" +
				`<stdin>:10:3: error: parameters[1].value: Invalid value: "x": must be an integer` + "\n" +
				`<stdin>:16:5: error: objects[0].data.b: Invalid value: "${MISSING}": MISSING is not a declared parameter` + "\n" +
				"<stdin>:17:3: error: objects[1].apiVersion: Required value\n" +
				"<stdin>:19:3: error: transformers[0].patch: Required value\n"},
		{"reading, process", "", []string{"process", "--local", "-f", f("types.yaml")}, types(f("types.yaml"))},
		{"reading, convert", "", []string{"convert", "-f", f("types.yaml")}, types(f("types.yaml"))},
		{"reading, parameters", typesYAML, []string{"parameters", "-f", "-"}, types("<stdin>")},
		// The YAML libraries give the line of a syntax error, not its column.
		{"YAML syntax", "", []string{"convert", "-f", f("syntax.yaml")},
			f("syntax.yaml") + ":6:1: error: cannot read the template as YAML: yaml: line 6: could not find expected ':'\n"},
		{"JSON syntax", "", []string{"process", "--local", "-f", f("syntax.json")},
			f("syntax.json") + ":2:22: error: cannot read the template: expected a string\n"},
		// The decoder names an offset of the JSON the YAML was read into: at the field there.
		// Before, it was taken for an offset of the YAML, and not placed.
		{"YAML decoded", "", []string{"process", "--local", "-f", f("offset.yaml")},
			f("offset.yaml") + ":5:1: error: cannot read the template: objects must be an array\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := run(t, tc.stdin, tc.args...)
			if code == 0 || stdout != "" {
				t.Fatalf("exit %d, stdout %q", code, stdout)
			}
			if stderr != tc.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, tc.want)
			}
		})
	}
}

// endless is an endless standard input: a YAML document that never ends.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "a: b\n"[e.n%5]
		e.n++
	}
	return len(p), nil
}

// TestHostileFiles: a file larger than any template (a runaway generator piped in) is refused
// having read 64 MiB and no more; an alias bomb and nesting deeper than any template are
// refused in their reader's words, at their line when it has one.
func TestHostileFiles(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var out, errOut bytes.Buffer
	in := &endless{}
	code := Run(IOStreams{In: io.Reader(in), Out: &out, ErrOut: &errOut}, []string{"process", "--local", "-f", "-"})
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	if code == 0 || errOut.String() != "error: <stdin>: the file is larger than 64 MiB, more than any template: not read\n" {
		t.Errorf("endless input: exit %d, %q", code, errOut.String())
	}
	t.Logf("endless input: %d MiB read, %d MiB allocated", in.n>>20, allocated>>20)
	if in.n > 65<<20 || allocated > 400<<20 {
		t.Errorf("endless input: %d bytes read, %d allocated", in.n, allocated)
	}

	bomb := "apiVersion: v1\nkind: Template\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	prev := "a"
	for _, level := range strings.Split("bcdefghi", "") {
		bomb += level + ": &" + level + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", ") + "]\n"
		prev = level
	}
	for _, tc := range []struct{ name, stdin, want string }{
		{"billion laughs", bomb, "<stdin>: error: cannot read the template as YAML: yaml: document contains excessive aliasing\n"},
		{"100,000 levels", "a: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), "<stdin>: error: cannot read the template as YAML: yaml: exceeded max depth of 10000\n"},
		{"20,000 levels of block sequences", "a:\n" + strings.Repeat("- ", 20_000) + "x\n", "<stdin>:2:1: error: cannot read the template as YAML: yaml: line 2: exceeded max depth of 10000\n"},
	} {
		if _, stderr, code := run(t, tc.stdin, "process", "--local", "-f", "-"); code == 0 || stderr != tc.want {
			t.Errorf("%s: exit %d, stderr %q, want %q", tc.name, code, stderr, tc.want)
		}
	}
}
