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

package plugin

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// twoObjects are a ConfigMap and a Service.
const twoObjects = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n---\n{apiVersion: v1, kind: Service, metadata: {name: b}}"

func TestStarlarkPolicy(t *testing.T) {
	tm := &templates.Template{Transformers: []runtime.RawExtension{{Raw: transformtest.StarlarkConfig(t, "pass", nil)}}}
	errs := testKinds.ValidateTransformers(Policy{}, tm)
	if len(errs) != 1 || errs[0].Field != "transformers[0].provider.starlark" ||
		!strings.Contains(errs[0].Detail, "the starlark provider is not enabled on this server: an administrator must enable it") {
		t.Fatalf("a disabled provider: %v", errs)
	}
	if errs := testKinds.ValidateTransformers(Policy{Starlark: true}, tm); len(errs) != 0 {
		t.Fatalf("an enabled provider: %v", errs)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "annotate.star"), []byte(transformtest.AddAnnotation), 0o600); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"apiVersion": "example.com/v1", "kind": "Annotate", "spec": map[string]any{"value": "v"},
		"provider": map[string]any{"starlark": map[string]any{"path": "annotate.star"}}})
	tm.Transformers[0].Raw = raw
	errs = testKinds.ValidateTransformers(Policy{Starlark: true}, tm)
	if len(errs) != 1 || errs[0].Field != "transformers[0].provider.starlark.path" || !strings.Contains(errs[0].Detail, "the server reads no files") {
		t.Fatalf("a path on the server: %v", errs)
	}
	p, errs := testKinds.Compile(Policy{Starlark: true, LocalFiles: true, LocalDir: dir}, []transform.Config{{Raw: raw}})
	if len(errs) > 0 {
		t.Fatalf("a path with --local: %v", errs)
	}
	objects, _ := jsonbytes.DecodeObjects([]json.RawMessage{json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`)})
	out, err := p.Transform(&transform.Context{}, objects)
	if err != nil || transform.NestedString(out[0], "metadata", "annotations", "owner") != "v" {
		t.Fatalf("the script from a file did not run: %v %v", out, err)
	}
}

// TestStarlarkLocalPathStaysBesideTheTemplate: provider.starlark.path reads only regular
// files inside the template's directory (issue 24: it read /etc/passwd).
func TestExecPolicyRefusals(t *testing.T) {
	policy := execPolicy(t)
	for _, tc := range []struct {
		name, config string
		plugins      Policy
		want         string
	}{
		{"no plugin dir: exec refused", "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: annotate}}}", Policy{},
			"transformers[0].provider.exec: Forbidden: the exec provider is not enabled on this server: an administrator must enable it"},
		{"no plugin dir: seed 000 refused", "{apiVersion: team.example.com/v1, kind: X}", Policy{},
			"transformers[0].apiVersion: Forbidden: the execPlugin (team.example.com) provider is not enabled"},
		{"a path out of the directory", "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: ../src/main.go}}}", Policy{Exec: policy},
			"must stay inside the plugin directory"},
		{"an absolute path", "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: /bin/sh}}}", Policy{Exec: policy},
			"must be a path relative to the plugin directory"},
		{"an image with no mapping is never pulled", "{apiVersion: fn.example.com/v1, kind: X, provider: {container: {image: 'evil/miner:latest'}}}", Policy{Exec: policy},
			`the image "evil/miner:latest" is not allowed on this server`},
		{"a plugin group not installed", "{apiVersion: other.example.com/v1, kind: X}", Policy{Exec: policy}, "no plugin for this API group"},
		{"two providers", "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: a}, container: {image: b}}}", Policy{Exec: policy},
			"give exactly one of starlark, exec or container"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := testKinds.Compile(tc.plugins, []transform.Config{{Raw: transformtest.YAMLJSON(t, tc.config)}})
			if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Fatalf("errors %v, want %q", errs, tc.want)
			}
		})
	}
}

// TestHashFollowsRebuiltObjects: a Starlark transformer and an exec plugin give back new
// objects, not the generator's; the generated ConfigMap still gets its hash suffix, and the
// reference to it follows.
func TestHashFollowsRebuiltObjects(t *testing.T) {
	gen := transform.Config{Raw: transformtest.YAMLJSON(t, "{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1]}"), Generator: true}
	starlark := transform.Config{Raw: transformtest.StarlarkConfig(t, transformtest.AddAnnotation, map[string]any{"spec": map[string]any{"value": "v"}})}
	krm := transform.Config{Raw: transformtest.YAMLJSON(t, "{apiVersion: fn.example.com/v1, kind: A, metadata: {name: krm}, provider: {exec: {path: annotate}}, spec: {value: x}}")}
	p, errs := testKinds.Compile(Policy{Starlark: true, Exec: execPolicy(t)}, []transform.Config{gen, starlark, krm})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	objects := transformtest.YAMLDocs(t, transformtest.DeploymentReferring("cfg"))
	out, err := p.Transform(transform.NewContext(t.Context(), 0), objects)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || transform.NameOf(out[1]) != "cfg-89g4tffbfk" || transform.NestedString(out[1], "metadata", "annotations", "krm") != "x" {
		t.Fatalf("got:\n%s", transformtest.MustYAML(t, out))
	}
	if !strings.Contains(transformtest.MustYAML(t, out[:1]), "name: cfg-89g4tffbfk") {
		t.Fatalf("the reference did not follow:\n%s", transformtest.MustYAML(t, out))
	}
}

// TestPluginsRunConcurrently: one compiled pipeline (as the server caches it) runs a Starlark
// transformer and an exec plugin for several requests at once.
func TestPluginsRunConcurrently(t *testing.T) {
	starlark := transform.Config{Raw: transformtest.StarlarkConfig(t, transformtest.AddAnnotation, map[string]any{"spec": map[string]any{"value": "v"}})}
	krm := transform.Config{Raw: transformtest.YAMLJSON(t, "{apiVersion: fn.example.com/v1, kind: A, metadata: {name: krm}, provider: {exec: {path: annotate}}, spec: {value: x}}")}
	p, errs := testKinds.Compile(Policy{Starlark: true, Exec: execPolicy(t)}, []transform.Config{starlark, krm})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	var wg sync.WaitGroup
	failures := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := p.Transform(transform.NewContext(t.Context(), 0), transformtest.YAMLDocs(t, twoObjects))
			if err == nil && (len(out) != 2 || transform.NestedString(out[1], "metadata", "annotations", "owner") != "v") {
				err = errors.New("wrong objects")
			}
			if err != nil {
				failures <- err
			}
		}()
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Error(err)
	}
}
