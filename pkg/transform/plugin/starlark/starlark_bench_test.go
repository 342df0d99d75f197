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

package starlark

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// Issue 24 asked which route bounds a Starlark script for less: guards in-process (what
// Stencil does), or the kernel's limits on a child process, as exec plugins run. The same
// script runs three ways over the same 200 objects, each from the objects' bytes to the
// result's bytes:
//   - plain: go.starlark.net as it is, no guard (the floor either route adds to);
//   - guarded: the Starlark transformer, every operation through its guard;
//   - child: a prototype of the other route, the script run plain in a new process (this
//     test binary, started again) that reads the objects as JSON and writes them back; it
//     leaves out what a real one would add (rlimits, a cgroup, confinement), so it is the
//     child route's lower bound.

// benchCompute is a script that works in Starlark rather than in conversions: string
// methods, comprehensions, sorting, comparisons, dict and list updates on every object.
const benchCompute = `
spec = ctx.resource_list["functionConfig"]["spec"]
registry = spec["value"]
for item in ctx.resource_list["items"]:
    md = item["metadata"]
    labels = md.setdefault("labels", {})
    parts = md["name"].split("-")
    labels["parts"] = str(len(parts))
    labels["slug"] = "-".join([p.upper() for p in parts if p])[:63]
    keys = sorted([k for k in item.keys()])
    if item["kind"] == "Deployment":
        for c in item["spec"]["template"]["spec"]["containers"]:
            c["image"] = registry + "/" + c["image"].split("/")[-1]
            c["env"] = c.get("env", []) + [{"name": "KEYS", "value": ",".join(keys)}]
    elif labels.get("app") in [md["name"], "none"]:
        md.setdefault("annotations", {})["selector"] = "%s=%s" % ("app", labels["app"])
`

// benchLoop is the guards' worst case: arithmetic and comparisons of names, each a call to a
// guard, and little else.
const benchLoop = `
n = 0
total = 0
for item in ctx.resource_list["items"]:
    for i in range(100):
        if i % 3 == n % 3:
            total = total + i * 2
        n = n + 1
ctx.resource_list["items"][0]["metadata"]["annotations"] = {"total": str(total)}
`

var benchScripts = map[string]string{"annotate": transformtest.BenchStarlark, "compute": benchCompute, "loop": benchLoop}

// starlarkChildEnv makes the test binary a child that runs one script (see TestMain).
const starlarkChildEnv = "STENCIL_STARLARK_BENCH_CHILD"

// TestMain lets BenchmarkStarlarkRoutes start this binary as the child of its prototype.
func TestMain(m *testing.M) {
	if os.Getenv(starlarkChildEnv) != "" {
		if err := starlarkChild(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childInput is what the prototype's parent writes to the child: the objects as they are.
type childInput struct {
	Source         string            `json:"source"`
	Items          []json.RawMessage `json:"items"`
	FunctionConfig map[string]any    `json:"functionConfig"`
}

// starlarkChild runs a script plain over the objects it reads, and writes them back.
func starlarkChild(in io.Reader, out io.Writer) error {
	var input childInput
	if err := json.NewDecoder(in).Decode(&input); err != nil {
		return err
	}
	objects, err := jsonbytes.DecodeObjects(input.Items)
	if err != nil {
		return err
	}
	result, err := runPlainScript(input.Source, objects, input.FunctionConfig)
	if err != nil {
		return err
	}
	encoded, err := jsonbytes.EncodeObjects(result)
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(encoded)
}

// runPlainScript runs source with go.starlark.net alone, as a ResourceList transformer.
func runPlainScript(source string, objects []transform.Object, config map[string]any) ([]transform.Object, error) {
	size := 0
	items := make([]any, len(objects))
	for i, o := range objects {
		items[i] = o
	}
	list := starlark.NewDict(4)
	_ = list.SetKey(starlark.String("items"), toStarlark(items, &size))
	_ = list.SetKey(starlark.String("functionConfig"), toStarlark(config, &size))
	env := starlark.StringDict{"ctx": starlarkstruct.FromStringDict(starlark.String("ctx"), starlark.StringDict{"resource_list": list})}
	if _, err := starlark.ExecFileOptions(starlarkOptions, &starlark.Thread{}, "plain.star", source, env); err != nil {
		return nil, err
	}
	v, _, _ := list.Get(starlark.String("items"))
	conv := &conversion{output: -1, memory: 1 << 62, run: &starlarkRun{}}
	converted, err := conv.value(v, 0)
	if err != nil {
		return nil, err
	}
	out := make([]transform.Object, 0, len(objects))
	for _, o := range converted.([]any) {
		out = append(out, o.(map[string]any))
	}
	return out, nil
}

func benchConfig(source string) (transform.Config, map[string]any) {
	config := map[string]any{"apiVersion": "fn.example.com/v1", "kind": "Compute", "spec": map[string]any{"value": "registry.example.com"}}
	withProvider := map[string]any{"provider": map[string]any{"starlark": map[string]any{"source": source}}}
	for k, v := range config {
		withProvider[k] = v
	}
	raw, _ := json.Marshal(withProvider)
	return transform.Config{Raw: raw}, config
}

// starlarkRoute is one way of running a script from objects' bytes to the result's bytes.
type starlarkRoute func(tb testing.TB, source string, in []json.RawMessage) []json.RawMessage

func must[T any](tb testing.TB, v T, err error) T {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

var starlarkRoutes = map[string]starlarkRoute{
	"plain": func(tb testing.TB, source string, in []json.RawMessage) []json.RawMessage {
		_, config := benchConfig(source)
		objects, err := jsonbytes.DecodeObjects(in)
		objects = must(tb, objects, err)
		result, err := runPlainScript(source, objects, config)
		result = must(tb, result, err)
		out, err := jsonbytes.EncodeObjects(result)
		return must(tb, out, err)
	},
	"guarded": func(tb testing.TB, source string, in []json.RawMessage) []json.RawMessage {
		c, _ := benchConfig(source)
		p, errs := testKinds.Compile(starlarkPlugins{}, []transform.Config{c})
		if len(errs) > 0 {
			tb.Fatal(errs.ToAggregate())
		}
		out, _, err := transformtest.RunPipeline(p, in)
		return must(tb, out, err)
	},
	"child": func(tb testing.TB, source string, in []json.RawMessage) []json.RawMessage {
		_, config := benchConfig(source)
		input, err := json.Marshal(childInput{Source: source, Items: in, FunctionConfig: config})
		input = must(tb, input, err)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), starlarkChildEnv+"=1")
		cmd.Stdin = bytes.NewReader(input)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			tb.Fatalf("child: %v: %s", err, stderr.String())
		}
		var items []json.RawMessage
		if err := json.Unmarshal(out, &items); err != nil {
			tb.Fatal(err)
		}
		// The next transformer works on objects, as after an exec plugin.
		if _, err := jsonbytes.DecodeObjects(items); err != nil {
			tb.Fatal(err)
		}
		return items
	},
}

func BenchmarkStarlarkRoutes(b *testing.B) {
	in := transformtest.Pairs(100)
	for _, script := range []string{"annotate", "compute", "loop"} {
		for _, route := range []string{"plain", "guarded", "child"} {
			b.Run(script+"/"+route, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					starlarkRoutes[route](b, benchScripts[script], in)
				}
			})
		}
	}
}

// TestStarlarkRoutesAgree: the three routes make the same objects.
func TestStarlarkRoutesAgree(t *testing.T) {
	in := transformtest.Pairs(3)
	for name, source := range benchScripts {
		var want []any
		for _, route := range []string{"plain", "guarded", "child"} {
			var got []any
			b, err := json.Marshal(starlarkRoutes[route](t, source, in))
			if err := json.Unmarshal(must(t, b, err), &got); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = got
				continue
			}
			if a, b := fmt.Sprint(got), fmt.Sprint(want); a != b {
				t.Fatalf("%s: route %s made\n%s\nnot\n%s", name, route, a, b)
			}
		}
	}
}
