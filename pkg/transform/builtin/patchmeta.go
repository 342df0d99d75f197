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
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"stencil.dev/stencil/pkg/transform"
)

// The strategic-merge patch of a built-in kind follows the patchStrategy and patchMergeKey
// tags of its Go type in k8s.io/api (strategicpatch.PatchMetaFromStruct). Linking those types
// means linking every API group of k8s.io/api, whose initialisation was the largest part of
// what the CLI paid at every start (5 MiB of its peak memory; docs/performance.md). The
// patch needs only what PatchMetaFromStruct reads of the types, so that is what patchTypes
// holds (zz_generated.patchmeta.go, written from the types by hack/patch-meta in
// hack/update-codegen.sh; TestPatchMetaTable proves that every lookup on every kind answers as
// PatchMetaFromStruct does).

// patchType is what the patch reads of one Go type: its kind and name (for the patch's
// errors), its element (of a pointer, slice or array) and, for a struct, its JSON fields.
type patchType struct {
	kind   reflect.Kind
	name   string
	elem   int32
	fields []patchField
}

// patchField is a struct's field as encoding/json names it, with its tags.
type patchField struct {
	json, strategy, mergeKey string
	typ                      int32
}

// patchKind is a kind whose Go type is patchTypes[typ]; an unversioned kind (Status and the
// discovery types) is its type in every group and version, as runtime.Scheme.New answers.
type patchKind struct {
	group, version, kind string
	unversioned          bool
	typ                  int32
}

// patchKindIndex finds a kind's type, built on the first patch.
var patchKindIndex = sync.OnceValues(func() (map[transform.GVK]int32, map[string]int32) {
	byGVK, unversioned := make(map[transform.GVK]int32, len(patchKinds)), map[string]int32{}
	for _, k := range patchKinds {
		byGVK[transform.GVK{Group: k.group, Version: k.version, Kind: k.kind}] = k.typ
		if k.unversioned {
			unversioned[k.kind] = k.typ
		}
	}
	return byGVK, unversioned
})

// kindPatchMeta is the patch metadata of a built-in kind, false for any other kind.
func kindPatchMeta(id transform.GVK) (strategicpatch.LookupPatchMeta, bool) {
	byGVK, unversioned := patchKindIndex()
	if t, ok := byGVK[id]; ok {
		return tableMeta(t), true
	}
	if t, ok := unversioned[id.Kind]; ok {
		return tableMeta(t), true
	}
	return nil, false
}

// tableMeta is strategicpatch.PatchMetaFromStruct over patchTypes: the same answers and the
// same errors, word for word.
type tableMeta int32

var _ strategicpatch.LookupPatchMeta = tableMeta(0)

func (m tableMeta) LookupPatchMetadataForStruct(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	t := &patchTypes[m]
	if t.kind == reflect.Pointer {
		t = &patchTypes[t.elem]
	}
	if t.kind != reflect.Struct {
		return nil, strategicpatch.PatchMeta{}, fmt.Errorf("merging an object in json but data type is not struct, instead is: %s", t.kind)
	}
	// encoding/json's choice: the field of that name, else the first whose name equals it
	// but for case.
	var found *patchField
	for i := range t.fields {
		f := &t.fields[i]
		if f.json == key {
			found = f
			break
		}
		if found == nil && strings.EqualFold(f.json, key) {
			found = f
		}
	}
	if found == nil {
		return nil, strategicpatch.PatchMeta{}, fmt.Errorf("unable to find api field in struct %s for the json field %q", t.name, key)
	}
	var meta strategicpatch.PatchMeta
	meta.SetPatchStrategies(strings.Split(found.strategy, ","))
	meta.SetPatchMergeKey(found.mergeKey)
	return tableMeta(found.typ), meta, nil
}

func (m tableMeta) LookupPatchMetadataForSlice(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	sub, meta, err := m.LookupPatchMetadataForStruct(key)
	if err != nil {
		return nil, strategicpatch.PatchMeta{}, err
	}
	t := &patchTypes[sub.(tableMeta)]
	var elem int32
	switch t.kind {
	case reflect.Array, reflect.Slice:
		elem = t.elem
		if k := patchTypes[elem].kind; k == reflect.Array || k == reflect.Slice {
			return nil, strategicpatch.PatchMeta{}, errors.New("unexpected slice of slice")
		}
	case reflect.Pointer:
		elem = t.elem
		if k := patchTypes[elem].kind; k == reflect.Array || k == reflect.Slice {
			elem = patchTypes[elem].elem
		}
	default:
		return nil, strategicpatch.PatchMeta{}, fmt.Errorf("expected slice or array type, but got: %s", patchTypes[m].kind)
	}
	return tableMeta(elem), meta, nil
}

func (m tableMeta) Name() string {
	return patchTypes[m].kind.String()
}
