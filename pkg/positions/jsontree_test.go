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

package positions

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestJSONTreeWalk: a JSONTree read again into the same memory, document after document, finds
// what encoding/json decodes (a repeated member name: the last), and a walk of an Index's
// Document by Step and by PlaceAt finds every field where NearestStart of its path does, for
// the tree's cases, the README's example as YAML and as JSON, and a file of several lines.
func TestJSONTreeWalk(t *testing.T) {
	var j JSONTree
	for i, d := range treeDocs {
		var want any
		if json.Unmarshal([]byte(d), &want) != nil {
			// The trace reads only JSON: the engine's output and the compiled template's.
			continue
		}
		if !j.Read([]byte(d)) {
			t.Errorf("case %d: not read", i)
			continue
		}
		if got := decodeTree(&j, j.Root()); !reflect.DeepEqual(got, want) {
			t.Errorf("case %d: the tree reads %#v, encoding/json %#v", i, got, want)
		}
	}
	indented, _ := json.MarshalIndent(map[string]any{"kind": "Template", "objects": []any{map[string]any{"a.b": 1, "c": []any{"x", map[string]any{}}}}}, "", "  ")
	for name, data := range map[string]string{"t.yaml": template, "t.json": string(indented), "case.json": treeDocs[4]} {
		x, err := Read(name, []byte(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc := x.Document()
		root, ok := x.Root()
		if doc == nil || !ok {
			t.Fatalf("%s: no document", name)
		}
		if objects := doc.Member(doc.Root(), "objects"); objects != NoValue {
			first := doc.Element(objects, 0)
			own := doc.Bytes(first)
			if !doc.Holds(first, own) || !doc.Holds(first, append([]byte(nil), own...)) || doc.Holds(first, []byte(`{"other":1}`)) {
				t.Errorf("%s: Holds does not tell the object's bytes", name)
			}
		}
		line := -1
		n := walkPlaces(t, name, x, doc, doc.Root(), root, nil, &line)
		if n < 3 {
			t.Errorf("%s: only %d fields walked", name, n)
		}
	}
}

// decodeTree decodes the value v of j as encoding/json does.
func decodeTree(j *JSONTree, v JSONValue) any {
	switch j.Kind(v) {
	case '{':
		m := map[string]any{}
		for i := range j.Len(v) {
			name, _ := j.MemberAt(v, i)
			m[string(name)] = decodeTree(j, j.Member(v, string(name)))
		}
		return m
	case '[':
		l := []any{}
		for i := range j.Len(v) {
			l = append(l, decodeTree(j, j.Element(v, i)))
		}
		return l
	case '"':
		return string(j.Text(v))
	}
	var out any
	if err := json.Unmarshal(j.Bytes(v), &out); err != nil {
		return fmt.Sprintf("not JSON: %q", j.Bytes(v))
	}
	return out
}

// walkPlaces checks the place of v (at path p, Place at) and of everything under it, and
// returns how many fields it checked.
func walkPlaces(t *testing.T, name string, x *Index, doc *JSONTree, v JSONValue, at Place, p Path, line *int) int {
	t.Helper()
	want, n := x.NearestStart(p)
	if !at.Exact() || n != len(p) {
		t.Errorf("%s: %s: not exact (NearestStart found %d steps)", name, p, n)
	}
	if got := x.Start(at, line); got != want {
		t.Errorf("%s: %s: the walk places it at %v, NearestStart at %v", name, p, got, want)
	}
	if got := x.Start(x.PlaceAt(v, len(p)), nil); got != want {
		t.Errorf("%s: %s: PlaceAt places it at %v, NearestStart at %v", name, p, got, want)
	}
	count := 1
	switch doc.Kind(v) {
	case '{':
		for i := range doc.Len(v) {
			nameBytes, m := doc.MemberAt(v, i)
			if doc.Member(v, string(nameBytes)) != m {
				continue // a repeated name: the last is the one found
			}
			s := Step{Key: string(nameBytes)}
			count += walkPlaces(t, name, x, doc, m, x.Step(at, s), append(p[:len(p):len(p)], s), line)
		}
	case '[':
		for i := range doc.Len(v) {
			s := Step{Key: fmt.Sprint(i), Index: i, IsIndex: true}
			count += walkPlaces(t, name, x, doc, doc.Element(v, i), x.Step(at, s), append(p[:len(p):len(p)], s), line)
		}
	}
	return count
}
