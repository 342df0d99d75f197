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

package render

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/plugin/exec"
)

// recordingMemory records what processing holds; capacity bounds one request. err is the
// answer of every Hold, growErr of every Grow.
type recordingMemory struct {
	capacity     int64
	holds        []int64
	plugins      []bool
	err, growErr error
}

func (m *recordingMemory) Hold(_ context.Context, n int64, plugins bool) error {
	m.holds = append(m.holds, n)
	m.plugins = append(m.plugins, plugins)
	return m.err
}

func (m *recordingMemory) Grow(_ context.Context, n int64, plugins bool) error {
	m.holds = append(m.holds, n)
	m.plugins = append(m.plugins, plugins)
	return m.growErr
}

func (m *recordingMemory) Capacity(bool) int64 { return m.capacity }

// bigOutput is a template whose output is about n times its parameter V, with transformers.
func bigOutput(n int, transformers ...string) *templates.Template {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d":"${V}"`, i)
	}
	return &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: "big"},
		Parameters:   []templates.Parameter{{Name: "V"}},
		Transformers: raw(transformers...),
		Objects:      raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{` + strings.Join(keys, ",") + `}}`)}
}

// kustomizeAnnotate is an inline Kustomization that annotates every object with 3 MiB.
var kustomizeAnnotate = `{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","metadata":{"name":"k"},` +
	`"commonAnnotations":{"big":"` + strings.Repeat("a", 3<<20) + `"}}`

const starlarkGrow = `{"apiVersion":"fn.example.com/v1","kind":"Grow","metadata":{"name":"grow"},"provider":{"starlark":{"source":` +
	`"for i in range(3000):\n    ctx.resource_list[\"items\"].append({\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c%d\" % i}, \"data\": {\"a\": \"x\" * 1000}})\n"}}}`

// TestOutputGrowsInOneRun is issue 37's finding 7 (outputs over 1 MiB were processed again at
// four times the limit): processing charged to a Memory, whose output limit grows as the
// output does, answers exactly what one run at the request's whole limit answers, whatever
// step makes the output pass the first limits (the engine, a built-in transformer, a
// Starlark script, a Kustomization, destinations), and runs each step once; it holds before
// compiling, grows by tierGrowth, and charges the plugins' share only when a plugin may run.
func TestOutputGrowsInOneRun(t *testing.T) {
	label := `{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"l"},"labels":{"x":"y"}}`
	annotate := `{"apiVersion":"builtin","kind":"AnnotationsTransformer","metadata":{"name":"a"},"annotations":{"big":"` + strings.Repeat("a", 3<<20) + `"}}`
	kb := strings.Repeat("v", 1<<10)
	cases := []struct {
		name         string
		template     *templates.Template
		value        string
		destinations int
		plugins      plugin.Policy
		wantHolds    int
		wantPlugins  bool
	}{
		{name: "small", template: bigOutput(2), value: "v", wantHolds: 1},
		{name: "the engine's output", template: bigOutput(3000), value: kb, wantHolds: 2},
		{name: "a parameter past the first limit", template: bigOutput(2), value: strings.Repeat("v", 5<<20), wantHolds: 3},
		{name: "a built-in transformer", template: bigOutput(1, label, annotate), value: "v", wantHolds: 2},
		{name: "a Starlark script", template: bigOutput(1, starlarkGrow), value: "v", plugins: plugin.Policy{Starlark: true}, wantHolds: 2, wantPlugins: true},
		{name: "a Kustomization", template: bigOutput(1, kustomizeAnnotate), value: "v", wantHolds: 2},
		{name: "destinations", template: bigOutput(300), value: kb, destinations: 5, wantHolds: 2},
	}
	r := NewRenderer(Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Template: tc.template, Plugins: tc.plugins,
				Request: process.Request{Parameters: map[string]string{"V": tc.value}}}
			for i := range tc.destinations {
				in.Destinations = append(in.Destinations, templates.Destination{Name: fmt.Sprintf("d%d", i)})
			}
			want, errs, err := r.Render(context.Background(), in)
			if err != nil || len(errs) > 0 {
				t.Fatal(err, errs)
			}
			memory := &recordingMemory{capacity: 1 << 40}
			in.Memory = memory
			runs := map[string]int{}
			observed := transform.WithStepObserver(context.Background(), func(kind string, _ time.Duration) { runs[kind]++ })
			got, errs, err := r.Render(observed, in)
			if err != nil || len(errs) > 0 {
				t.Fatal(err, errs)
			}
			if !reflect.DeepEqual(got.Objects, want.Objects) {
				t.Fatalf("the attempts answered other objects than one run")
			}
			if len(memory.holds) != tc.wantHolds {
				t.Fatalf("held %v, want %d attempts", memory.holds, tc.wantHolds)
			}
			for i := 1; i < len(memory.holds); i++ {
				if memory.holds[i] <= memory.holds[i-1] {
					t.Fatalf("the attempts' charges do not grow: %v", memory.holds)
				}
			}
			for kind, n := range runs {
				if n != 1 {
					t.Errorf("%s ran %d times", kind, n)
				}
			}
			if memory.plugins[0] != tc.wantPlugins {
				t.Fatalf("charged the plugins' share: %v, want %v", memory.plugins[0], tc.wantPlugins)
			}
		})
	}
}

// TestOutputWithinCapacity: a request whose output would need more memory than one request
// may hold is answered the problem of the largest limit that fits, naming that limit, and is
// never charged more than the capacity; a Memory's error ends processing as it is, whether it
// refuses the first charge or a growth in the engine, a transformer or destinations.
func TestOutputWithinCapacity(t *testing.T) {
	r := NewRenderer(Options{})
	in := Input{Template: bigOutput(3000), Request: process.Request{Parameters: map[string]string{"V": strings.Repeat("v", 1<<10)}}}
	capacity := int64(plainFactor * (2 << 20))
	memory := &recordingMemory{capacity: capacity}
	in.Memory = memory
	_, errs, err := r.Render(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	largest := cost{perByte: plainFactor, fixed: templateFactor * int64(templateBytes(in.Template))}.largestWithin(capacity, process.DefaultMaxOutputBytes)
	// The engine's limit is what the parameter values leave of the attempt's.
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, fmt.Sprintf("more than %d bytes", largest-1<<10)) {
		t.Fatalf("want one problem naming the limit %d, got %v", largest, errs)
	}
	for _, n := range memory.holds {
		if n > capacity {
			t.Fatalf("held %d, past the capacity %d", n, capacity)
		}
	}

	refused := errors.New("no memory")
	in.Memory = &recordingMemory{capacity: 1 << 40, err: refused}
	if _, _, err := r.Render(context.Background(), in); !errors.Is(err, refused) {
		t.Fatalf("want the Memory's error, got %v", err)
	}
	label := `{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"l"},"labels":{"x":"y"}}`
	annotate := `{"apiVersion":"builtin","kind":"AnnotationsTransformer","metadata":{"name":"a"},"annotations":{"big":"` + strings.Repeat("a", 3<<20) + `"}}`
	for name, grows := range map[string]Input{
		"the engine":   in,
		"transformers": {Template: bigOutput(1, label, annotate), Request: process.Request{Parameters: map[string]string{"V": "v"}}},
		"destinations": {Template: bigOutput(300), Request: process.Request{Parameters: map[string]string{"V": strings.Repeat("v", 1<<10)}},
			Destinations: []templates.Destination{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}},
	} {
		grows.Memory = &recordingMemory{capacity: 1 << 40, growErr: refused}
		if out, errs, err := r.Render(context.Background(), grows); err != refused {
			t.Errorf("%s grows past its first limit: want the Memory's refusal as it is, got %v, %v, %v", name, out, errs, err)
		}
	}
}

// TestExpansionFromParametersIsCharged: a parameter value that asks for expansion makes the
// objects decoded although the template did not: the trees are charged before they are built.
func TestExpansionFromParametersIsCharged(t *testing.T) {
	tpl := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: "e"}, Parameters: []templates.Parameter{{Name: "A"}},
		Objects: raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":"${{A}}"},"data":{"x":"{{.p}}"}}`)}
	memory := &recordingMemory{capacity: 1 << 40}
	_, errs, err := NewRenderer(Options{}).Render(context.Background(), Input{Template: tpl, Memory: memory, Properties: map[string]string{"p": "q"},
		Request: process.Request{Parameters: map[string]string{"A": `{"control.kubestellar.io/expand-templates":"true"}`}}})
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if len(memory.holds) != 2 || memory.holds[1] < treeFactor*firstAttemptBytes {
		t.Fatalf("held %v: the trees were not charged", memory.holds)
	}
}

// TestStepsCost: what a request's steps may hold is charged by their kind, each bounded by its
// own limit: a Kustomization's build by --max-kustomize-bytes, an exec plugin by its output
// limit, a Starlark run by its memory limit.
func TestStepsCost(t *testing.T) {
	r := NewRenderer(Options{Config: Config{Limits: transform.Limits{KustomizeBytes: 1 << 20, StarlarkMemoryBytes: 8 << 20}}})
	plugins := plugin.Policy{Starlark: true, Exec: &exec.Policy{Limits: exec.Limits{MaxOutputBytes: 2 << 20}}}
	b := 4 << 20
	for _, tc := range []struct {
		name  string
		steps plugin.Steps
		want  int64
	}{
		{"none", plugin.Steps{}, plainFactor * int64(b)},
		{"built-ins", plugin.Steps{Any: true}, treeFactor * int64(b)},
		{"Kustomization", plugin.Steps{Any: true, Kustomization: true}, treeFactor*int64(b) + kustomizeFactor*(1<<20)},
		{"Starlark", plugin.Steps{Any: true, Starlark: true}, 2*treeFactor*int64(b) + 8<<20},
		{"exec", plugin.Steps{Any: true, Exec: true}, treeFactor*int64(b) + execOutputFactor*(2<<20)},
	} {
		if got := r.costOf(tc.steps, 0, false, plugins).at(b); got != tc.want {
			t.Errorf("%s: cost %d, want %d", tc.name, got, tc.want)
		}
	}
}
