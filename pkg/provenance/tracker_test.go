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

package provenance

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/redact"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// seed gives every leaf of obj the source path "objects[i].<its path>" (as the engine would
// for a literal template).
func seed(v any, path string) *Node {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			n := &Node{}
			for _, k := range keys {
				n.Members = append(n.Members, Member{Name: k, Node: seed(x[k], path+"."+k)})
			}
			return n
		}
	case []any:
		if len(x) > 0 {
			n := &Node{Elements: make([]*Node, len(x))}
			for i, e := range x {
				n.Elements[i] = seed(e, path+"["+string(rune('0'+i))+"]")
			}
			return n
		}
	}
	return Leaf(Source{Kind: Template, Path: path}, nil)
}

func fieldsOf(t *testing.T, m *Map, object int) map[string]Field {
	t.Helper()
	out := map[string]Field{}
	for _, f := range m.Objects[object].Fields {
		out[f.Path] = f
	}
	return out
}

// TestTrackerFollowsFields: a step that changes a value, one that inserts an array element
// before others (as a patch does to containers), one that rebuilds and renames an object (as
// a Kustomization or a plugin does), one that adds an object and one that changes nothing:
// each field keeps its source and gets exactly the steps that set or changed it.
func TestTrackerFollowsFields(t *testing.T) {
	obj := decode(t, `{"kind":"Deployment","metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx"}],"args":["a","b"]}}`)
	objects := []map[string]any{obj}
	tr := NewTracker(objects, []ObjectSeed{{Root: seed(obj, "objects[0]"), Source: Source{Kind: Template, Path: "objects[0]"}}}, 6, 0)

	run := func(info StepInfo, fn func([]map[string]any) []map[string]any) {
		tr.Before(objects)
		objects = fn(objects)
		tr.After(info, objects)
	}
	run(StepInfo{Kind: "ImageTagTransformer"}, func(o []map[string]any) []map[string]any {
		o[0]["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:1.27"
		return o
	})
	run(StepInfo{Kind: "PatchTransformer"}, func(o []map[string]any) []map[string]any {
		spec := o[0]["spec"].(map[string]any)
		spec["containers"] = append([]any{map[string]any{"name": "sidecar", "image": "envoy"}}, spec["containers"].([]any)...)
		return o
	})
	run(StepInfo{Kind: "Kustomization"}, func(o []map[string]any) []map[string]any {
		rebuilt := decode(t, `{"kind":"Deployment","metadata":{"name":"prod-web"},"spec":{"containers":[{"name":"sidecar","image":"envoy"},{"name":"app","image":"nginx:1.27"}],"args":["a","b"]}}`)
		return []map[string]any{rebuilt, decode(t, `{"kind":"ConfigMap","metadata":{"name":"made"}}`)}
	})
	run(StepInfo{Kind: "Nothing", Source: &Source{Kind: Template, Path: "transformers[3]"}}, func(o []map[string]any) []map[string]any { return o })

	m, err := tr.Map(objects, nil)
	if err != nil {
		t.Fatal(err)
	}
	Compact(m)
	if len(m.Steps) != 4 || len(m.Objects) != 2 {
		t.Fatalf("steps %+v, %d objects", m.Steps, len(m.Objects))
	}
	f := fieldsOf(t, m, 0)
	want := map[string]Field{
		"kind":                     {Path: "kind", Source: Source{Kind: Template, Path: "objects[0].kind"}},
		"metadata.name":            {Path: "metadata.name", Source: Source{Kind: Template, Path: "objects[0].metadata.name"}, Steps: []int32{2}},
		"spec.containers[0].name":  {Path: "spec.containers[0].name", Source: Source{Kind: Step}, Steps: []int32{1}},
		"spec.containers[0].image": {Path: "spec.containers[0].image", Source: Source{Kind: Step}, Steps: []int32{1}},
		"spec.containers[1].name":  {Path: "spec.containers[1].name", Source: Source{Kind: Template, Path: "objects[0].spec.containers[0].name"}},
		"spec.containers[1].image": {Path: "spec.containers[1].image", Source: Source{Kind: Template, Path: "objects[0].spec.containers[0].image"}, Steps: []int32{0}},
		"spec.args[0]":             {Path: "spec.args[0]", Source: Source{Kind: Template, Path: "objects[0].spec.args[0]"}},
		"spec.args[1]":             {Path: "spec.args[1]", Source: Source{Kind: Template, Path: "objects[0].spec.args[1]"}},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("fields:\n%+v\nwant\n%+v", f, want)
	}
	made := m.Objects[1]
	if made.Source.Kind != Step || !reflect.DeepEqual(made.Steps, []int32{2}) || len(made.Fields) != 2 || made.Fields[0].Source.Kind != Step {
		t.Errorf("the object the step made: %+v", made)
	}
	if m.Steps[3].Kind != "Nothing" {
		t.Errorf("a transformer that changed nothing is kept: %+v", m.Steps)
	}
}

// TestTrackerBound: past its bound the tracker stops and says so, and a map is refused.
func TestTrackerBound(t *testing.T) {
	obj := decode(t, `{"kind":"ConfigMap","data":{"a":"1"}}`)
	objects := []map[string]any{obj}
	tr := NewTracker(objects, []ObjectSeed{{Root: seed(obj, "objects[0]")}}, 2, 3)
	tr.Before(objects)
	obj["data"].(map[string]any)["b"], obj["data"].(map[string]any)["c"] = "2", "3"
	if err := tr.After(StepInfo{Kind: "Grow"}, objects); err != ErrTooManyFields {
		t.Fatalf("after growing past the bound: %v", err)
	}
	if _, err := tr.Map(objects, nil); err != ErrTooManyFields {
		t.Fatalf("map: %v", err)
	}
}

// TestMaskSecrets: a member name or an object name holding a secret value is masked; the
// template's places name the member as the template wrote it (${PASSWORD}).
func TestMaskSecrets(t *testing.T) {
	obj := decode(t, `{"kind":"ConfigMap","metadata":{"name":"cm-hunter2"},"data":{"hunter2":"x"}}`)
	root := seed(obj, "objects[0]")
	root.Member("data").Member("hunter2").Field.Source.Path = "objects[0].data[${PASSWORD}]"
	tr := NewTracker([]map[string]any{obj}, []ObjectSeed{{Root: root}}, 4, 0)
	secrets := &redact.Set{}
	secrets.Add("hunter2", "")
	tr.SetSecrets(secrets)
	m, err := tr.Map([]map[string]any{obj}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(m)
	if m.Objects[0].Name != "(masked)" || reflect.DeepEqual(fieldsOf(t, m, 0)["data[(masked)]"], Field{}) || strings.Contains(string(data), "hunter2") {
		t.Errorf("not masked: %s", data)
	}
}

// TestTrackerRecordsRemovals: a member, an array element and every member of an emptied
// object that a step removes are in the map's Removed with that step, at their paths before
// it; a member a later step adds back is not; forks, Append and Compact keep them right.
func TestTrackerRecordsRemovals(t *testing.T) {
	obj := decode(t, `{"kind":"Deployment","metadata":{"name":"web","labels":{"a":"1"}},"spec":{"replicas":3,"keep":1,"args":["x","y","z"],"gone":{"b":1}}}`)
	objects := []map[string]any{obj}
	tr := NewTracker(objects, []ObjectSeed{{Root: seed(obj, "objects[0]"), Source: Source{Kind: Template, Path: "objects[0]"}}}, 8, 0)
	run := func(info StepInfo, fn func(map[string]any)) {
		tr.Before(objects)
		fn(objects[0])
		if err := tr.After(info, objects); err != nil {
			t.Fatal(err)
		}
	}
	run(StepInfo{Kind: "Unused"}, func(map[string]any) {})
	run(StepInfo{Kind: "CustomTransform", Name: "drop"}, func(o map[string]any) {
		spec := o["spec"].(map[string]any)
		delete(spec, "replicas")
		delete(spec, "gone")
		spec["args"] = []any{"x", "z"}
		o["metadata"].(map[string]any)["labels"] = map[string]any{}
	})
	run(StepInfo{Kind: "Patch"}, func(o map[string]any) { o["spec"].(map[string]any)["gone"] = "back" })
	m, err := tr.Map(objects, nil)
	if err != nil {
		t.Fatal(err)
	}
	Compact(m)
	want := []RemovedField{{Path: "metadata.labels.a", Step: 0}, {Path: "spec.args[2]", Step: 0}, {Path: "spec.replicas", Step: 0}}
	if !reflect.DeepEqual(m.Objects[0].Removed, want) || m.Steps[0].Name != "drop" {
		t.Errorf("removed %+v (steps %+v), want %+v", m.Objects[0].Removed, m.Steps, want)
	}
	matches, err := Find(m, "Deployment/web", "spec.replicas")
	if err != nil || len(matches) != 1 || strings.Join(Explain(m, matches[0]), "\n") != `processing: step 1, CustomTransform "drop" removed spec.replicas` {
		t.Errorf("why spec.replicas: %v %v", matches, err)
	}
	// A destination's fork carries the removals; appended after one more step of its own,
	// their step indices stay those of the shared steps.
	copies := jsonbytes.CopyObjects(objects)
	fork := tr.Fork(objects, copies)
	fork.Before(copies)
	copies[0]["kind"] = "Deployment"
	if err := fork.After(StepInfo{Kind: "Destination"}, copies); err != nil {
		t.Fatal(err)
	}
	fm, err := fork.Map(copies, nil)
	if err != nil {
		t.Fatal(err)
	}
	combined := &Map{Steps: []StepInfo{{Kind: "Other"}}}
	Append(combined, fm, 0)
	if got := combined.Objects[0].Removed; len(got) != 3 || got[0].Step != 2 || combined.Steps[got[0].Step].Name != "drop" {
		t.Errorf("appended: %+v, steps %+v", got, combined.Steps)
	}
}
