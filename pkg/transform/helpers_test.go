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

package transform

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// testKinds is every kind, as pkg/render registers them.
var testKinds = func() *Registry {
	reg := NewRegistry()
	RegisterBuiltins(reg)
	RegisterGenerators(reg)
	RegisterKustomization(reg)
	return reg
}()

// yamlDocs parses multi-document YAML into objects.
func yamlDocs(t testing.TB, text string) []Object {
	t.Helper()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	docs, err := ParsePatch(mustJSONString(text))
	if err != nil {
		t.Fatalf("bad test YAML: %v\n%s", err, text)
	}
	objs := make([]Object, len(docs))
	for i, d := range docs {
		objs[i] = d.(map[string]any)
	}
	return objs
}

func mustJSONString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// yamlJSON converts one YAML document to JSON.
func yamlJSON(t testing.TB, text string) []byte {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		t.Fatalf("bad test YAML: %v\n%s", err, text)
	}
	return j
}

// newTransformer builds a transformer from a YAML config.
func newTransformer(t testing.TB, config string) (Transformer, field.ErrorList) {
	t.Helper()
	raw := yamlJSON(t, config)
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	f, why := testKinds.Factory(h.APIVersion, h.Kind)
	if f == nil {
		t.Fatalf("no factory for %s %s: %s", h.APIVersion, h.Kind, why)
	}
	return f(raw, field.NewPath("transformers").Index(0))
}

// transformCase is one table test of a transformer.
type transformCase struct {
	name    string
	config  string // YAML transformer config
	in      string // YAML objects
	want    string // YAML objects, when no error
	wantErr string // substring of the config or transform error
	warning string // substring of an expected warning
}

// runCases runs table tests of transformers.
func runCases(t *testing.T, cases []transformCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, errs := newTransformer(t, tc.config)
			if len(errs) > 0 {
				if tc.wantErr != "" && strings.Contains(errs.ToAggregate().Error(), tc.wantErr) {
					return
				}
				t.Fatalf("config errors: %v", errs.ToAggregate())
			}
			ctx := &Context{}
			out, err := tr.Transform(ctx, yamlDocs(t, tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error containing %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("transform: %v", err)
			}
			assertObjects(t, out, yamlDocs(t, tc.want))
			checkWarning(t, ctx.Warnings(), tc.warning)
		})
	}
}

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

// assertObjects compares objects by their encoding.
func assertObjects(t testing.TB, got, want []Object) {
	t.Helper()
	g, w := mustYAML(t, got), mustYAML(t, want)
	if g != w {
		t.Fatalf("objects differ (-want +got):\n%s", cmp.Diff(strings.Split(w, "\n"), strings.Split(g, "\n")))
	}
}

func mustYAML(t testing.TB, objs []Object) string {
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

// runPipeline runs p from bytes to bytes, as processing does: decode once, run every
// transformer, encode once. An error is an *Error, except when an object is not a JSON object.
func runPipeline(p *Pipeline, objects []json.RawMessage) ([]json.RawMessage, []string, error) {
	decoded, err := jsonbytes.DecodeObjects(objects)
	if err != nil {
		return nil, nil, err
	}
	ctx := &Context{}
	decoded, err = p.Transform(ctx, decoded)
	if err != nil {
		return nil, ctx.Warnings(), err
	}
	out, err := jsonbytes.EncodeObjects(decoded)
	return out, ctx.Warnings(), err
}
