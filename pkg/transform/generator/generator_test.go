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

package generator

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// runGenerators compiles the generator configs (YAML), then the transformers, and runs them
// over the objects (YAML).
func runGenerators(t *testing.T, objects string, generators []string, transformers ...string) ([]transform.Object, error) {
	t.Helper()
	var gens []json.RawMessage
	for _, g := range generators {
		gens = append(gens, transformtest.YAMLJSON(t, g))
	}
	configs := transform.GeneratorConfigs(gens)
	for _, c := range transformers {
		configs = append(configs, transform.Config{Raw: transformtest.YAMLJSON(t, c)})
	}
	p, errs := testKinds.Compile(plugin.Policy{}, configs)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	raw, err := jsonbytes.EncodeObjects(transformtest.YAMLDocs(t, objects))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := transformtest.RunPipeline(p, raw)
	if err != nil {
		return nil, err
	}
	return jsonbytes.DecodeObjects(out)
}

func TestGeneratorOptions(t *testing.T) {
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {template: {spec: {containers: [{name: c, envFrom: [{configMapRef: {name: cfg}}]}]}}}`
	for _, tc := range []struct {
		name         string
		objects      string
		generators   []string
		transformers []string
		want         string
	}{{
		name:       "literals only: a hashed name, and the reference follows it",
		objects:    deployment,
		generators: []string{"{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1]}"},
		want: transformtest.DeploymentReferring("cfg-89g4tffbfk") + `
---
apiVersion: v1
data:
  A: "1"
kind: ConfigMap
metadata:
  name: cfg-89g4tffbfk`,
	}, {
		name:       "the same content has the same suffix whatever the name",
		generators: []string{"{kind: ConfigMapGenerator, metadata: {name: other}, literals: [A=1]}"},
		want: `apiVersion: v1
data:
  A: "1"
kind: ConfigMap
metadata:
  name: other-89g4tffbfk`,
	}, {
		name:       "labels and annotations go to metadata and do not change the hash",
		generators: []string{"{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1], options: {labels: {app: a}, annotations: {note: x}}}"},
		want: `apiVersion: v1
data:
  A: "1"
kind: ConfigMap
metadata:
  annotations:
    note: x
  labels:
    app: a
  name: cfg-89g4tffbfk`,
	}, {
		name:       "disableNameSuffixHash keeps the name",
		objects:    deployment,
		generators: []string{"{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1], options: {disableNameSuffixHash: true}}"},
		want: transformtest.DeploymentReferring("cfg") + `
---
apiVersion: v1
data:
  A: "1"
kind: ConfigMap
metadata:
  name: cfg`,
	}, {
		name:       "immutable",
		generators: []string{"{kind: SecretGenerator, name: s, namespace: team, literals: [k=v], options: {immutable: true, disableNameSuffixHash: true}}"},
		want: `apiVersion: v1
data:
  k: dg==
immutable: true
kind: Secret
metadata:
  name: s
  namespace: team
type: Opaque`,
	}, {
		name:       "behavior create next to an object of the same name is refused",
		objects:    "{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}}",
		generators: []string{"{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1]}"},
		want:       `error: generator "cfg" (ConfigMapGenerator): the ConfigMap cfg exists already: behavior must be merge or replace`,
	}, {
		name:       "merge without an object is refused",
		generators: []string{"{kind: ConfigMapGenerator, metadata: {name: cfg}, behavior: merge, literals: [A=1]}"},
		want:       `error: generator "cfg" (ConfigMapGenerator): the ConfigMap cfg does not exist; cannot merge it`,
	}, {
		name:       "replace keeps the old object's place, name and metadata, and takes only the new data",
		objects:    "{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg, labels: {a: old, b: old}}, data: {X: x}}\n---\n" + deployment,
		generators: []string{"{kind: ConfigMapGenerator, metadata: {name: cfg}, behavior: replace, literals: [A=1], options: {labels: {b: new}}}"},
		want: `apiVersion: v1
data:
  A: "1"
kind: ConfigMap
metadata:
  labels:
    a: old
    b: new
  name: cfg
---
` + transformtest.DeploymentReferring("cfg"),
	}, {
		name:         "a generated object renamed by a transformer is hashed after it",
		objects:      deployment,
		generators:   []string{"{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1]}"},
		transformers: []string{"{kind: PrefixSuffixTransformer, prefix: p-}"},
		want: strings.Replace(transformtest.DeploymentReferring("p-cfg-89g4tffbfk"), "name: web", "name: p-web", 1) + `
---
apiVersion: v1
data:
  A: "1"
kind: ConfigMap
metadata:
  name: p-cfg-89g4tffbfk`,
	}, {
		name:         "the mark follows an object a Kustomization rebuilt",
		generators:   []string{"{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1]}"},
		transformers: []string{"{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, commonAnnotations: {team: a}}"},
		want: `apiVersion: v1
data:
  A: "1"
kind: ConfigMap
metadata:
  annotations:
    team: a
  name: cfg-89g4tffbfk`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runGenerators(t, tc.objects, tc.generators, tc.transformers...)
			if err != nil {
				if want := strings.TrimPrefix(tc.want, "error: "); want == tc.want || err.Error() != want {
					t.Fatalf("error %q, want %s", err, tc.want)
				}
				return
			}
			if g := strings.TrimPrefix(strings.TrimSpace(transformtest.MustYAML(t, got)), "---\n"); g != strings.TrimSpace(tc.want) {
				t.Fatalf("got:\n%s\nwant:\n%s", g, tc.want)
			}
		})
	}
}

func TestValidateGenerators(t *testing.T) {
	for _, tc := range []struct {
		name      string
		generator string
		want      []string
	}{
		{"valid", "{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1], envs: ['B=2'], files: [{key: c, content: x}]}", nil},
		{"parameters in values are checked after substitution", "{kind: ConfigMapGenerator, metadata: {name: '${NAME}'}, behavior: '${B}', literals: ['${KV}']}", nil},
		{"no kind", "{metadata: {name: cfg}}", []string{"generators[0].kind: Required value"}},
		{"unknown kind", "{kind: JobGenerator, metadata: {name: cfg}}", []string{`generators[0].kind: Unsupported value: "JobGenerator": supported values: "ConfigMapGenerator", "SecretGenerator"`}},
		{"plugins not enabled", "{apiVersion: team.example.com/v1, kind: App, metadata: {name: cfg}}", []string{`generators[0].apiVersion: Forbidden: the execPlugin (team.example.com) provider is not enabled on this server: an administrator must enable it`}},
		{"no name", "{kind: SecretGenerator, literals: [a=b]}", []string{"generators[0].metadata.name: Required value: the name of the generated Secret"}},
		{"bad behavior", "{kind: ConfigMapGenerator, metadata: {name: c}, behavior: upsert}", []string{`generators[0].behavior: Unsupported value: "upsert"`}},
		{"literal without =", "{kind: ConfigMapGenerator, metadata: {name: c}, literals: [A, =B]}", []string{
			`generators[0].literals[0]: Invalid value: "A": expected key=value`, `generators[0].literals[1]: Invalid value: "=B": expected key=value`}},
		{"repeated and invalid keys", "{kind: ConfigMapGenerator, metadata: {name: c}, literals: [A=1, A=2, 'a b=3']}", []string{
			`generators[0].literals[1]: Invalid value: "A": configmap c illegally repeats the key "A"`, `generators[0].literals[2]: Invalid value: "a b"`}},
		{"a file path is refused", "{kind: ConfigMapGenerator, metadata: {name: c}, files: [app.properties]}", []string{
			`generators[0].files[0]: Invalid value: "app.properties": file paths are not read`}},
		{"an env file path is refused", "{kind: ConfigMapGenerator, metadata: {name: c}, envs: [app.env]}", []string{
			`generators[0].envs[0]: Invalid value: "app.env": looks like a file path`}},
		{"a bad env line", "{kind: ConfigMapGenerator, metadata: {name: c}, env: \"1A=x\"}", []string{`generators[0].env: Invalid value: "": line 1: "1A" is not a valid key name`}},
		{"file without key or content", "{kind: ConfigMapGenerator, metadata: {name: c}, files: [{content: x}, {key: k}, {key: b, contentBase64: '%%'}]}", []string{
			"generators[0].files[0].key: Required value", "generators[0].files[1].content: Required value", "generators[0].files[2].contentBase64: Invalid value"}},
		{"unknown field", "{kind: ConfigMapGenerator, metadata: {name: c}, literal: [A=1]}", []string{"generators[0].literal: Forbidden: unknown field"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := &templates.Template{Generators: []runtime.RawExtension{{Raw: transformtest.YAMLJSON(t, tc.generator)}}}
			errs := testKinds.ValidateGenerators(plugin.Policy{}, tm)
			if len(errs) != len(tc.want) {
				t.Fatalf("errors %v, want %d: %v", errs, len(tc.want), tc.want)
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tc.want[i]) {
					t.Errorf("error %d: %q, want prefix %q", i, e.Error(), tc.want[i])
				}
			}
		})
	}
}
