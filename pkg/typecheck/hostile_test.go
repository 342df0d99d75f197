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

package typecheck_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/typecheck"
	"stencil.dev/stencil/pkg/typecheck/kubeschemas"
)

// writeDir writes files into a new directory.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// recursiveDoc is an OpenAPI document whose schema names itself everywhere it can: in its
// allOf (twenty times, which unfolded would be 20^depth visits), its anyOf, its properties and
// its items, and a reference cycle of two schemas that never reaches a type.
const recursiveDoc = `{"openapi": "3.0.0", "components": {"schemas": {
  "loop": {"type": "object",
    "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Loop"}],
    "allOf": [` + `{"$ref": "#/components/schemas/loop"},` + `{"$ref": "#/components/schemas/loop"}` + `],
    "anyOf": [{"$ref": "#/components/schemas/loop"}, {"$ref": "#/components/schemas/a"}],
    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
      "next": {"$ref": "#/components/schemas/loop"}, "list": {"type": "array", "items": {"$ref": "#/components/schemas/loop"}},
      "cycle": {"$ref": "#/components/schemas/a"}, "size": {"type": "integer"}}},
  "a": {"$ref": "#/components/schemas/b"},
  "b": {"$ref": "#/components/schemas/a"}}}}`

// TestHostileSchemaDir: a schema directory written to hurt. A recursive schema is checked in
// one visit per schema (a finding deep in a nested object is still found); a reference cycle
// is a field that takes anything; a file over the bound, a YAML alias bomb and a file that is
// not YAML are errors that name the file, before anything is read into memory past the bound.
func TestHostileSchemaDir(t *testing.T) {
	allOf := strings.Repeat(`{"$ref": "#/components/schemas/loop"},`, 19) + `{"$ref": "#/components/schemas/loop"}`
	doc := strings.Replace(recursiveDoc, `{"$ref": "#/components/schemas/loop"},{"$ref": "#/components/schemas/loop"}`, allOf, 1)
	set, err := typecheck.LoadDir(writeDir(t, map[string]string{"loop.json": doc, "notes.txt": "not read"}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubeschemas.Checker(typecheck.Static{Set: set, Source: "--schema-dir"})
	if err != nil {
		t.Fatal(err)
	}
	// An object nested 300 deep, with an unknown field and a wrong type at the bottom.
	inner := `{"size": "big", "typo": 1, "cycle": {"anything": [1, {"x": true}]}}`
	for i := 0; i < 300; i++ {
		inner = `{"next": ` + inner + `, "list": [` + inner[:0] + `{"size": 1}]}`
	}
	file := `{"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template", "metadata": {"name": "t"},
  "objects": [{"apiVersion": "example.com/v1", "kind": "Loop", "metadata": {"name": "l"}, "next": ` + inner + `}]}`
	got := checkWith(t, c, file)
	if len(got) != 2 || !strings.HasSuffix(got[0], ".size error wrong-type") || !strings.HasSuffix(got[1], ".typo error unknown-field") ||
		strings.Count(got[0], ".next") != 301 {
		t.Errorf("findings: %q", got)
	}

	big := filepath.Join(t.TempDir(), "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(typecheck.MaxSchemaFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := typecheck.LoadDir(filepath.Dir(big)); err == nil || !strings.Contains(err.Error(), "big.yaml") || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("a file over the bound: %v", err)
	}

	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := 0; i < 9; i++ {
		name := fmt.Sprintf("l%d", i)
		bomb += fmt.Sprintf("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = typecheck.LoadDir(writeDir(t, map[string]string{"bomb.yaml": bomb}))
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "bomb.yaml") {
		t.Errorf("an alias bomb (10^10 values): %v", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 256<<20 {
		t.Errorf("reading an alias bomb allocated %d MiB", grown>>20)
	}

	if _, err := typecheck.LoadDir(writeDir(t, map[string]string{"bad.yaml": "a: [\n"})); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("a file that is not YAML: %v", err)
	}
}

// TestSchemaDirCRDs: a CRD manifest's served versions are kinds, its unserved ones are not,
// and a List of CRDs is read as its items.
func TestSchemaDirCRDs(t *testing.T) {
	crd := func(group, kind string) string {
		return `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": {"group": "` + group + `",
  "names": {"kind": "` + kind + `"}, "versions": [
    {"name": "v1", "served": true, "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}},
    {"name": "v0", "served": false, "schema": {"openAPIV3Schema": {"type": "object"}}}]}}`
	}
	set, err := typecheck.LoadDir(writeDir(t, map[string]string{
		"one.yaml":  crd("a.example.com", "A") + "\n---\n" + crd("b.example.com", "B"),
		"list.json": `{"apiVersion": "v1", "kind": "List", "items": [` + crd("c.example.com", "C") + `]}`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, gvk := range []typecheck.GroupVersionKind{{Group: "a.example.com", Version: "v1", Kind: "A"}, {Group: "b.example.com", Version: "v1", Kind: "B"}, {Group: "c.example.com", Version: "v1", Kind: "C"}} {
		if set.Kind(gvk) == nil {
			t.Errorf("%v: no schema", gvk)
		}
	}
	if set.Kind(typecheck.GroupVersionKind{Group: "a.example.com", Version: "v0", Kind: "A"}) != nil || set.Len() != 3 {
		t.Errorf("%d kinds; an unserved version is one", set.Len())
	}
}
