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

package builtin

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	forkedjson "k8s.io/apimachinery/third_party/forked/golang/json"
	"k8s.io/client-go/kubernetes/scheme"

	"stencil.dev/stencil/pkg/transform"
)

var updatePatchMeta = flag.Bool("update", false, "rewrite patchmeta_table.go from the k8s.io/api types")

// TestPatchMetaTable: the table the patch reads answers, for every kind of client-go's
// kubernetes scheme (the kinds the engine found Go types for before) and every field and
// list of every type they reach, what strategicpatch.PatchMetaFromStruct answers over the Go
// types: the same sub-schemas, strategies, merge keys and errors, word for word, for field
// names as written, in another case, and unknown. With -update it rewrites the table.
func TestPatchMetaTable(t *testing.T) {
	table := generatePatchMeta(t)
	if *updatePatchMeta {
		if err := os.WriteFile("patchmeta_table.go", table, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if current, err := os.ReadFile("patchmeta_table.go"); err != nil || !bytes.Equal(current, table) {
		t.Fatalf("patchmeta_table.go is not what the k8s.io/api types give (%v): go test ./pkg/transform/builtin -run TestPatchMetaTable -update", err)
	}
	visited := map[string]bool{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		obj, err := scheme.Scheme.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		want, err := strategicpatch.NewPatchMetaFromStruct(obj)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := kindPatchMeta(transform.GVK{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind})
		if !ok {
			t.Fatalf("%v: not in the table", gvk)
		}
		comparePatchMeta(t, gvk.String(), want, got, visited)
	}
	for _, id := range []transform.GVK{{Group: "example.com", Version: "v9", Kind: "Status"}, {Group: "example.com", Version: "v1", Kind: "Widget"}, {Version: "v1", Kind: "widget"}} {
		_, err := scheme.Scheme.New(schema.GroupVersionKind{Group: id.Group, Version: id.Version, Kind: id.Kind})
		if _, ok := kindPatchMeta(id); ok != (err == nil) {
			t.Errorf("%v: in the table %v, a Go type: %v", id, ok, err)
		}
	}
}

// comparePatchMeta compares every lookup of want and got, each struct type once.
func comparePatchMeta(t *testing.T, path string, want strategicpatch.PatchMetaFromStruct, got strategicpatch.LookupPatchMeta, visited map[string]bool) {
	t.Helper()
	if want.Name() != got.Name() {
		t.Fatalf("%s: name %q, want %q", path, got.Name(), want.Name())
	}
	key := want.T.PkgPath() + "." + want.T.String()
	if visited[key] {
		return
	}
	visited[key] = true
	keys := []string{"zzUnknown", ""}
	if st := want.T; st.Kind() == reflect.Struct || (st.Kind() == reflect.Pointer && st.Elem().Kind() == reflect.Struct) {
		for _, f := range jsonFields(derefStruct(st)) {
			keys = append(keys, f, strings.ToUpper(f))
		}
	}
	for _, k := range keys {
		for _, slice := range []bool{false, true} {
			lookup := func(m strategicpatch.LookupPatchMeta) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
				if slice {
					return m.LookupPatchMetadataForSlice(k)
				}
				return m.LookupPatchMetadataForStruct(k)
			}
			wantSub, wantMeta, wantErr := lookup(want)
			gotSub, gotMeta, gotErr := lookup(got)
			where := fmt.Sprintf("%s.%s (slice %v)", path, k, slice)
			if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
				t.Fatalf("%s: error %v, want %v", where, gotErr, wantErr)
			}
			if wantErr != nil {
				continue
			}
			if !slices.Equal(wantMeta.GetPatchStrategies(), gotMeta.GetPatchStrategies()) || wantMeta.GetPatchMergeKey() != gotMeta.GetPatchMergeKey() {
				t.Fatalf("%s: %v %q, want %v %q", where, gotMeta.GetPatchStrategies(), gotMeta.GetPatchMergeKey(), wantMeta.GetPatchStrategies(), wantMeta.GetPatchMergeKey())
			}
			comparePatchMeta(t, where, wantSub.(strategicpatch.PatchMetaFromStruct), gotSub, visited)
		}
	}
}

func derefStruct(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// jsonFields are the names encoding/json gives the fields of struct t, inlined embedded
// structs' fields included, in the order of the fields.
func jsonFields(t reflect.Type) []string {
	var names []string
	for _, f := range reflect.VisibleFields(t) {
		if inlined(t, f) || !reachable(t, f) {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

// inlined reports an embedded struct without a JSON name: its fields are its parent's.
func inlined(_ reflect.Type, f reflect.StructField) bool {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return f.Anonymous && name == "" && derefStruct(f.Type).Kind() == reflect.Struct
}

// reachable reports whether every struct a promoted field comes through is inlined.
func reachable(t reflect.Type, f reflect.StructField) bool {
	for i := 1; i < len(f.Index); i++ {
		if !inlined(t, t.FieldByIndex(f.Index[:i])) {
			return false
		}
	}
	return true
}

// generatePatchMeta writes patchmeta_table.go: every type the kinds reach, breadth first
// from the kinds in order.
func generatePatchMeta(t *testing.T) []byte {
	var kinds []schema.GroupVersionKind
	for gvk := range scheme.Scheme.AllKnownTypes() {
		kinds = append(kinds, gvk)
	}
	slices.SortFunc(kinds, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	index := map[reflect.Type]int32{}
	var types []reflect.Type
	visit := func(rt reflect.Type) int32 {
		if i, ok := index[rt]; ok {
			return i
		}
		index[rt] = int32(len(types))
		types = append(types, rt)
		return index[rt]
	}
	var out bytes.Buffer
	head, err := os.ReadFile("../../../hack/boilerplate.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	out.Write(head)
	out.WriteString("\n// Code generated by TestPatchMetaTable (go test ./pkg/transform/builtin -run TestPatchMetaTable -update). DO NOT EDIT.\n\npackage builtin\n\nimport \"reflect\"\n\n")
	out.WriteString("var patchKinds = []patchKind{\n")
	for _, gvk := range kinds {
		rt := scheme.Scheme.AllKnownTypes()[gvk]
		obj, _ := scheme.Scheme.New(gvk)
		unversioned, _ := scheme.Scheme.IsUnversioned(obj)
		fmt.Fprintf(&out, "{group: %q, version: %q, kind: %q, unversioned: %v, typ: %d},\n", gvk.Group, gvk.Version, gvk.Kind, unversioned, visit(derefStruct(rt)))
	}
	out.WriteString("}\n\nvar patchTypes = []patchType{\n")
	for i := 0; i < len(types); i++ {
		rt := types[i]
		elem := int32(-1)
		var fields []string
		switch rt.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			elem = visit(rt.Elem())
		case reflect.Struct:
			names := jsonFields(rt)
			for a, x := range names {
				for _, y := range names[a+1:] {
					if strings.EqualFold(x, y) {
						t.Fatalf("%v: fields %q and %q differ in case only: the table keeps no order for that", rt, x, y)
					}
				}
				ft, strategies, mergeKey, err := forkedjson.LookupPatchMetadataForStruct(rt, x)
				if err != nil {
					t.Fatalf("%v.%s: %v", rt, x, err)
				}
				fields = append(fields, fmt.Sprintf("{json: %q, strategy: %q, mergeKey: %q, typ: %d}", x, strings.Join(strategies, ","), mergeKey, visit(ft)))
			}
		}
		kind := rt.Kind().String()
		kind = strings.ToUpper(kind[:1]) + kind[1:]
		fmt.Fprintf(&out, "{kind: reflect.%s, name: %q, elem: %d", kind, rt.Name(), elem)
		if len(fields) > 0 {
			fmt.Fprintf(&out, ", fields: []patchField{\n%s,\n}", strings.Join(fields, ",\n"))
		}
		out.WriteString("},\n")
	}
	out.WriteString("}\n")
	formatted, err := format.Source(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return formatted
}
