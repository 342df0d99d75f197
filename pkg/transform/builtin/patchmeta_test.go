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
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/builtin/patchmetagen"
)

// TestPatchMetaTable: the table the patch reads answers, for every kind of client-go's
// kubernetes scheme (the kinds the engine found Go types for before) and every field and
// list of every type they reach, what strategicpatch.PatchMetaFromStruct answers over the Go
// types: the same sub-schemas, strategies, merge keys and errors, word for word, for field
// names as written, in another case, and unknown. The table must be what hack/patch-meta
// writes from the k8s.io/api types linked now (hack/update-codegen.sh after an upgrade).
func TestPatchMetaTable(t *testing.T) {
	head, err := os.ReadFile("../../../hack/boilerplate.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	table, err := patchmetagen.Generate(head)
	if err != nil {
		t.Fatal(err)
	}
	if current, err := os.ReadFile("zz_generated.patchmeta.go"); err != nil || !bytes.Equal(current, table) {
		t.Fatalf("zz_generated.patchmeta.go is not what the k8s.io/api types give (%v): run hack/update-codegen.sh", err)
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
		for _, f := range patchmetagen.JSONFields(patchmetagen.DerefStruct(st)) {
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
