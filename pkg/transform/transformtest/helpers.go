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

package transformtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// Kinds returns a Registry of what each register function adds, as pkg/render builds the
// binary's: a test's registry names the kinds it runs.
func Kinds(register ...func(*transform.Registry)) *transform.Registry {
	reg := transform.NewRegistry()
	for _, r := range register {
		r(reg)
	}
	return reg
}

// YAMLDocs parses multi-document YAML into objects.
func YAMLDocs(t testing.TB, text string) []transform.Object {
	t.Helper()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	docs, err := filters.ParsePatch(mustJSONString(text))
	if err != nil {
		t.Fatalf("bad test YAML: %v\n%s", err, text)
	}
	objs := make([]transform.Object, len(docs))
	for i, d := range docs {
		objs[i] = d.(map[string]any)
	}
	return objs
}

func mustJSONString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// YAMLJSON converts one YAML document to JSON.
func YAMLJSON(t testing.TB, text string) []byte {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		t.Fatalf("bad test YAML: %v\n%s", err, text)
	}
	return j
}

// NewTransformer builds a transformer of reg from a YAML config.
func NewTransformer(t testing.TB, reg *transform.Registry, config string) (transform.Transformer, field.ErrorList) {
	t.Helper()
	raw := YAMLJSON(t, config)
	var h transform.Header
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	f, why := reg.Factory(h.APIVersion, h.Kind)
	if f == nil {
		t.Fatalf("no factory for %s %s: %s", h.APIVersion, h.Kind, why)
	}
	return f(raw, field.NewPath("transformers").Index(0))
}

// Case is one table test of a transformer.
type Case struct {
	Name    string // the subtest's
	Config  string // YAML transformer config
	In      string // YAML objects
	Want    string // YAML objects, when no error
	WantErr string // substring of the config or transform error
	Warning string // substring of an expected warning
}

// RunCases runs table tests of transformers of reg.
func RunCases(t *testing.T, reg *transform.Registry, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			tr, errs := NewTransformer(t, reg, tc.Config)
			if len(errs) > 0 {
				if tc.WantErr != "" && strings.Contains(errs.ToAggregate().Error(), tc.WantErr) {
					return
				}
				t.Fatalf("config errors: %v", errs.ToAggregate())
			}
			ctx := &transform.Context{}
			out, err := tr.Transform(ctx, YAMLDocs(t, tc.In))
			if tc.WantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.WantErr) {
					t.Fatalf("want error containing %q, got %v", tc.WantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("transform: %v", err)
			}
			AssertObjects(t, out, YAMLDocs(t, tc.Want))
			checkWarning(t, ctx.Warnings(), tc.Warning)
		})
	}
}

// checkWarning fails t unless one of warnings holds want, or, want empty, there is none.
func checkWarning(t *testing.T, warnings []string, want string) {
	t.Helper()
	if want == "" {
		if len(warnings) > 0 {
			t.Errorf("unexpected warnings: %q", warnings)
		}
		return
	}
	for _, w := range warnings {
		if strings.Contains(w, want) {
			return
		}
	}
	t.Errorf("want a warning containing %q, got %q", want, warnings)
}

// AssertObjects compares objects by their encoding.
func AssertObjects(t testing.TB, got, want []transform.Object) {
	t.Helper()
	g, w := MustYAML(t, got), MustYAML(t, want)
	if g != w {
		t.Fatalf("objects differ (-want +got):\n%s", cmp.Diff(strings.Split(w, "\n"), strings.Split(g, "\n")))
	}
}

// MustYAML renders objs as a YAML stream, each document after "---".
func MustYAML(t testing.TB, objs []transform.Object) string {
	t.Helper()
	raws, err := jsonbytes.EncodeObjects(objs)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range raws {
		y, err := yaml.JSONToYAML(r)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.String()
}

// RunPipeline runs p from bytes to bytes, as processing does: decode once, run every
// transformer, encode once. An error is an *Error, except when an object is not a JSON object.
func RunPipeline(p *transform.Pipeline, objects []json.RawMessage) ([]json.RawMessage, []string, error) {
	decoded, err := jsonbytes.DecodeObjects(objects)
	if err != nil {
		return nil, nil, err
	}
	ctx := &transform.Context{}
	decoded, err = p.Transform(ctx, decoded)
	if err != nil {
		return nil, ctx.Warnings(), err
	}
	out, err := jsonbytes.EncodeObjects(decoded)
	return out, ctx.Warnings(), err
}

// ConfigMaps returns n ConfigMaps, each with one value of size bytes.
func ConfigMaps(n, size int) []transform.Object {
	objects := make([]transform.Object, n)
	for i := range objects {
		objects[i] = transform.Object{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("c%d", i)},
			"data":     map[string]any{"a": strings.Repeat("x", size)}}
	}
	return objects
}

// DeploymentReferring is a Deployment whose container takes its environment from the
// ConfigMap name, for the tests of what follows a renamed ConfigMap.
func DeploymentReferring(name string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - envFrom:
        - configMapRef:
            name: ` + name + `
        name: c`
}

// StarlarkConfig is a Starlark transformer config with source.
func StarlarkConfig(t testing.TB, source string, extra map[string]any) json.RawMessage {
	t.Helper()
	c := map[string]any{"apiVersion": "example.com/v1", "kind": "Annotate", "metadata": map[string]any{"name": "annotate"},
		"provider": map[string]any{"starlark": map[string]any{"source": source}}}
	for k, v := range extra {
		c[k] = v
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// AddAnnotation is a Starlark script that sets the annotation owner to spec.value.
const AddAnnotation = `
def run(items, value):
    for item in items:
        item["metadata"].setdefault("annotations", {})["owner"] = value
run(ctx.resource_list["items"], ctx.resource_list["functionConfig"]["spec"]["value"])
`

// BenchStarlark is a Starlark script that sets the annotation krm to spec.value on every
// object: the Starlark side of the plugin benchmarks.
const BenchStarlark = `
value = ctx.resource_list["functionConfig"]["spec"]["value"]
for item in ctx.resource_list["items"]:
    item["metadata"].setdefault("annotations", {})["krm"] = value
`
