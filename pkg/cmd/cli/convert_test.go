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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates/openshift"
)

// asTree reads JSON or YAML into plain values, without the "creationTimestamp: null" that
// Kubernetes' own writers add to metadata, so that two spellings of one template compare equal.
func asTree(t *testing.T, data string) map[string]any {
	t.Helper()
	var tree map[string]any
	if err := yaml.Unmarshal([]byte(data), &tree); err != nil {
		t.Fatalf("not JSON or YAML: %v\n%s", err, data)
	}
	if meta, ok := tree["metadata"].(map[string]any); ok && meta["creationTimestamp"] == nil {
		delete(meta, "creationTimestamp")
	}
	return tree
}

// convert runs stencil convert on the file at path and returns its output, checking its
// apiVersion.
func convert(t *testing.T, path, wantAPIVersion string, args ...string) string {
	t.Helper()
	stdout, stderr, code := run(t, "", append([]string{"convert", "-f", path}, args...)...)
	if code != 0 {
		t.Fatalf("convert %s %v: exit %d: %s", path, args, code, stderr)
	}
	if got := asTree(t, stdout)["apiVersion"]; got != wantAPIVersion {
		t.Fatalf("convert %s %v: apiVersion %v, want %s", path, args, got, wantAPIVersion)
	}
	return stdout
}

// TestConvertRoundTripOpenShift converts each shared OpenShift template to our form and back:
// the result is the template it started from.
func TestConvertRoundTripOpenShift(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"mysql-persistent.json", "django-psql-persistent.json", "cincinnati-deployment.yaml"} {
		t.Run(name, func(t *testing.T) {
			original, err := os.ReadFile(filepath.Join("../../process/testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			ours := convert(t, filepath.Join("../../process/testdata", name), "templates.stencil.dev/v1alpha1")
			if !strings.Contains(ours, "dialect: OpenShift") || strings.Contains(ours, openshift.StencilFieldsAnnotation) {
				t.Errorf("want dialect OpenShift and no Stencil fields annotation:\n%s", ours)
			}
			path := filepath.Join(dir, name+".yaml")
			if err := os.WriteFile(path, []byte(ours), 0o600); err != nil {
				t.Fatal(err)
			}
			back := convert(t, path, "template.openshift.io/v1", "-o", "json")
			if got, want := asTree(t, back), asTree(t, string(original)); !reflect.DeepEqual(got, want) {
				gotJSON, _ := json.MarshalIndent(got, "", " ")
				t.Errorf("round trip changed the template:\n%s", gotJSON)
			}
		})
	}
}

// TestConvertRoundTripStencil converts a template of ours, with what OpenShift's form has no
// field for, to OpenShift's form and back.
func TestConvertRoundTripStencil(t *testing.T) {
	const ours = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata:
  name: typed
  annotations:
    keep: me
parameters:
- name: REPLICAS
  type: int
  minimum: "1"
  value: "2"
- name: NAME
  pattern: ^[a-z]+$
  required: true
- name: PLAIN
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: ${NAME}
  spec:
    replicas: ${{REPLICAS}}
objectLabels:
  app: ${NAME}
generators:
- apiVersion: builtin
  kind: ConfigMapGenerator
  metadata:
    name: settings
  literals:
  - mode=${NAME}
transformers:
- apiVersion: builtin
  kind: PrefixSuffixTransformer
  metadata:
    name: prefix
  prefix: x-
transformersFrom:
- name: base
  importMode: append
transformerOrder:
- name: prefix
`
	dir := t.TempDir()
	path := filepath.Join(dir, "typed.yaml")
	if err := os.WriteFile(path, []byte(ours), 0o600); err != nil {
		t.Fatal(err)
	}
	theirs := convert(t, path, "template.openshift.io/v1")
	tree := asTree(t, theirs)
	annotations := tree["metadata"].(map[string]any)["annotations"].(map[string]any)
	if annotations["keep"] != "me" || annotations[openshift.StencilFieldsAnnotation] == nil {
		t.Fatalf("want the template's annotation and the Stencil fields annotation:\n%s", theirs)
	}
	for _, field := range []string{"objectLabels", "generators", "transformers", "type"} {
		if strings.Contains(theirs, "\n"+field+":") || strings.Contains(theirs, " "+field+":") {
			t.Errorf("OpenShift's form has no %s:\n%s", field, theirs)
		}
	}
	if tree["labels"] == nil {
		t.Errorf("objectLabels must become labels:\n%s", theirs)
	}
	back := filepath.Join(dir, "theirs.yaml")
	if err := os.WriteFile(back, []byte(theirs), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := asTree(t, convert(t, back, "templates.stencil.dev/v1alpha1")), asTree(t, ours); !reflect.DeepEqual(got, want) {
		gotJSON, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("round trip changed the template:\n%s", gotJSON)
	}
	// Converting to the form a template is already in changes nothing either.
	if got, want := asTree(t, convert(t, path, "templates.stencil.dev/v1alpha1", "--to", "stencil")), asTree(t, ours); !reflect.DeepEqual(got, want) {
		t.Errorf("--to stencil of a Stencil template changed it")
	}
}

func TestConvertFlags(t *testing.T) {
	for _, args := range [][]string{{"convert"}, {"convert", "-f", mysqlTemplate, "--to", "helm"}, {"convert", "-f", mysqlTemplate, "-o", "xml"}} {
		if _, stderr, code := run(t, "", args...); code == 0 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want an error", args, code, stderr)
		}
	}
}

// TestProcessLocalOpenShiftLeniency: what OpenShift tolerates is processed as OpenShift does,
// and said on stderr.
func TestProcessLocalOpenShiftLeniency(t *testing.T) {
	dir := "../../process/testdata/openshift-lenient"
	stdout, stderr, code := run(t, "", "process", "--local", "-f", filepath.Join(dir, "1-duplicate-parameters.yaml"), "-p", "MEMORY_LIMIT=2Gi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `memory: "1Gi"`) {
		t.Errorf("want the last declaration's value, as OpenShift:\n%s", stdout)
	}
	// Each warning at the place of the field it names, as editors read it.
	file := filepath.Join(dir, "1-duplicate-parameters.yaml")
	for _, want := range []string{"\n" + file + ":12:3: warning: parameters[2]: parameter MEMORY_LIMIT is declared 2 times",
		"\n" + file + ":12:3: warning: parameters[2]: the value given for MEMORY_LIMIT is not used"} {
		stderr := "\n" + stderr
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	stdout, stderr, code = run(t, "", "process", "--local", "-f", filepath.Join(dir, "5-empty-first-document.yaml"))
	if code != 0 || !strings.Contains(stdout, "name: converted") || !strings.Contains(stderr, "YAML document(s) are empty") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
