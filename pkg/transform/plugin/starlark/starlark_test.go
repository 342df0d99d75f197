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
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// runStarlark compiles one Starlark transformer and runs it over objects under limits.
func runStarlark(t *testing.T, source string, limits transform.Limits, maxBytes int, objects ...string) ([]transform.Object, []string, error) {
	t.Helper()
	p, errs := testKinds.Compile(starlarkPlugins{}, []transform.Config{{Raw: transformtest.StarlarkConfig(t, source, map[string]any{"spec": map[string]any{"value": "team-a"}})}})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	var decoded []transform.Object
	for _, o := range objects {
		decoded = append(decoded, transformtest.YAMLDocs(t, o)...)
	}
	ctx := transform.NewContext(t.Context(), maxBytes).SetLimits(limits)
	out, err := p.Transform(ctx, decoded)
	return out, ctx.Warnings(), err
}

func TestStarlarkAddsAnAnnotation(t *testing.T) {
	out, _, err := runStarlark(t, transformtest.AddAnnotation, transform.Limits{}, 0,
		"{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {num: '1'}}",
		"{apiVersion: apps/v1, kind: Deployment, metadata: {name: b, annotations: {team: a}}, spec: {replicas: 2}}")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(transformtest.MustYAML(t, out))
	want := `---
apiVersion: v1
data:
  num: "1"
kind: ConfigMap
metadata:
  annotations:
    owner: team-a
  name: a
---
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    owner: team-a
    team: a
  name: b
spec:
  replicas: 2`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestStarlarkBounds(t *testing.T) {
	object := "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}"
	for _, tc := range []struct {
		name     string
		source   string
		limits   transform.Limits
		maxBytes int
		want     error
		wantText string
	}{
		{name: "an infinite loop is stopped by the step limit", source: "while True:\n    pass", limits: transform.Limits{StarlarkSteps: 100_000}, want: errStarlarkSteps},
		{name: "a slow loop is stopped by the clock", source: "while True:\n    pass", limits: transform.Limits{StarlarkSteps: 1 << 62, StarlarkTimeout: 50 * time.Millisecond}, want: errStarlarkTimeout},
		{name: "load() is refused", source: `load("@stdlib//json.star", "json")`, wantText: `load("@stdlib//json.star") is not allowed`},
		{name: "a repeated string past the memory limit", source: `x = "x" * (1 << 29)`, want: errStarlarkMemory},
		{name: "a doubling string", source: "s = 'x'\nfor i in range(64):\n    s = s + s", want: errStarlarkMemory},
		{name: "a doubling string, augmented", source: "s = 'x'\nfor i in range(64):\n    s += s", want: errStarlarkMemory},
		{name: "a list from a huge range", source: "l = list(range(1 << 40))", want: errStarlarkMemory},
		{name: "a list extended by a huge range", source: "l = []\nl.extend(range(1 << 40))", want: errStarlarkMemory},
		{name: "str of a value shared at every level", source: "l = [1]\nfor i in range(60):\n    l = [l, l]\ns = str(l)", want: errStarlarkMemory},
		{name: "a format of a shared value", source: "l = [1]\nfor i in range(60):\n    l = [l, l]\ns = '%s' % (l,)", want: errStarlarkMemory},
		{name: "replace that multiplies", source: "s = 'x' * 100000\nt = s.replace('', s)", want: errStarlarkMemory},
		{name: "join of many references", source: "s = 'x' * 1000000\nt = ''.join([s] * 1000)", want: errStarlarkMemory},
		{name: "substrings kept in a loop share their string", source: "s = 'x' * 1000000\nl = []\nfor i in range(1000):\n    l.append(s[1:])", wantText: "ok"},
		{name: "stepped slices kept in a loop", source: "s = 'x' * 1000000\nl = []\nfor i in range(1000):\n    l.append(s[::2])", want: errStarlarkMemory},
		{name: "an integer squared in a loop", source: "x = 3\nfor i in range(40):\n    x = x * x", want: errStarlarkMemory},
		{name: "an integer shifted in a loop", source: "x = 1\nfor i in range(100000):\n    x <<= 511", want: errStarlarkMemory},
		{name: "large integers multiply", source: `ctx.resource_list["items"][0]["data"] = {"ms": str(1700000000 * 1000 * 1000)}`, wantText: "ok"},
		{name: "output past the request's limit", source: `ctx.resource_list["items"][0]["data"] = {"big": "x" * 500000}`, maxBytes: 100000, want: errStarlarkOutput},
		{name: "the script's own error names its line", source: "x = 1\ny = x + 'a'", wantText: "starlark: line 2"},
		{name: "items that are not objects", source: `ctx.resource_list["items"] = [1]`, wantText: "items[0] is not an object"},
		{name: "a guard cannot be rebound", source: "_stencil_call = 1", wantText: "reserved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wantText == "reserved" {
				_, errs := testKinds.Compile(starlarkPlugins{}, []transform.Config{{Raw: transformtest.StarlarkConfig(t, tc.source, nil)}})
				if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), "reserved") {
					t.Fatalf("want a 422 about reserved names, got %v", errs)
				}
				return
			}
			_, _, err := runStarlark(t, tc.source, tc.limits, tc.maxBytes, object)
			if tc.wantText == "ok" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var te *transform.Error
			if !errors.As(err, &te) || te.Name != "annotate" {
				t.Fatalf("want an error naming the transformer, got %v", err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %q, want %q", err, tc.want)
			}
			if tc.wantText != "" && !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("error %q, want it to say %q", err, tc.wantText)
			}
		})
	}
}

func TestStarlarkLocalPathStaysBesideTheTemplate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "template")
	for _, d := range []string{dir, filepath.Join(dir, "lib")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		filepath.Join(dir, "a.star"):        "pass",
		filepath.Join(dir, "lib", "b.star"): "pass",
		filepath.Join(root, "secret"):       "fail('read')",
		filepath.Join(dir, "big.star"):      strings.Repeat("#", maxStarlarkFileBytes+1),
	} {
		if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"out.star": "../secret", "up": "..", "in.star": "lib/b.star"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.star"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := Options{LocalFiles: true, LocalDir: dir}
	for path, want := range map[string]string{
		"a.star":                     "",
		"lib/b.star":                 "",
		"./lib/../a.star":            "",
		"in.star":                    "",
		"/etc/passwd":                "must be a path relative to the template's directory",
		filepath.Join(dir, "a.star"): "must be a path relative to the template's directory",
		"../secret":                  "must stay inside the template's directory",
		"lib/../../secret":           "must stay inside the template's directory",
		"out.star":                   "a symbolic link leads out of it",
		"up/secret":                  "a symbolic link leads out of it",
		"fifo.star":                  "is not a regular file",
		"lib":                        "is not a regular file",
		"missing.star":               "no such file in the template's directory",
		"big.star":                   "is larger than",
	} {
		_, err := local.readLocalScript(path)
		if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if _, err := (Options{LocalFiles: true}).readLocalScript("a.star"); err == nil || !strings.Contains(err.Error(), "not read from a file") {
		t.Errorf("no template directory: %v", err)
	}
}
