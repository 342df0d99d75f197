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
	"fmt"
	"maps"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// Transform applies the patch to every selected object. A patch (or, without a target, a
// document) that selects nothing is not an error, as for Kustomize's targeted patches, but a
// warning, since it is almost always a mistake (kustomize#4379).
func (t *patchTransformer) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	var renames []filters.Rename
	deleted := map[int]bool{}
	matched := 0
	docMatched := make([]bool, len(t.ids))
	for i, obj := range objects {
		if err := ctx.Spend(0); err != nil {
			return nil, err
		}
		docs := t.selectedDocs(ctx, obj, docMatched)
		if len(docs) == 0 {
			continue
		}
		matched++
		before := transform.GVKOf(obj)
		oldName := transform.NameOf(obj)
		if t.json != nil || t.options.AllowNameChange {
			ctx.RecordOrigin(obj)
		}
		for _, doc := range docs {
			del, err := t.apply(ctx, obj, doc)
			if err != nil {
				return nil, fmt.Errorf("patching %s: %w", transform.Describe(obj), err)
			}
			if del {
				deleted[i] = true
				break
			}
		}
		if newName := transform.NameOf(obj); newName != oldName && oldName != "" && !deleted[i] {
			renames = append(renames, filters.Rename{ID: before, Namespace: transform.NamespaceOf(obj), OldName: oldName, NewName: newName})
		}
	}
	if matched == 0 {
		ctx.Warnf("the patch matches no object")
		return objects, nil
	}
	for i, ok := range docMatched {
		if !ok {
			ctx.Warnf("patch document %d matches no object (%s %s)", i, t.ids[i].Kind, t.ids[i].Name)
		}
	}
	if len(deleted) > 0 {
		kept := objects[:0:0]
		for i, obj := range objects {
			if !deleted[i] {
				kept = append(kept, obj)
			}
		}
		objects = kept
	}
	return objects, filters.FixNameReferences(objects, renames)
}

// selectedDocs returns the documents that apply to obj: all of them when obj matches the
// target, or those whose own kind and name are obj's.
func (t *patchTransformer) selectedDocs(ctx *transform.Context, obj transform.Object, docMatched []bool) []map[string]any {
	if t.target != nil {
		if !t.target.Matches(ctx, obj) {
			return nil
		}
		if t.json != nil {
			return []map[string]any{nil}
		}
		return t.smp
	}
	var docs []map[string]any
	id := transform.GVKOf(obj)
	name, ns := transform.NameOf(obj), transform.NamespaceOf(obj)
	origName, origNS := ctx.OriginalName(obj)
	for i, pid := range t.ids {
		if pid.Kind != id.Kind || (pid.Name != name && pid.Name != origName) {
			continue
		}
		if pid.HasAPIVersion && (pid.Group != id.Group || pid.Version != id.Version) {
			continue
		}
		if pid.Namespace != "" && pid.Namespace != ns && pid.Namespace != origNS {
			continue
		}
		docs = append(docs, t.smp[i])
		docMatched[i] = true
	}
	return docs
}

// apply patches obj in place with one document (nil for the JSON patch) and reports whether
// the patch deletes the object. What the patch adds is spent from ctx's budget.
func (t *patchTransformer) apply(ctx *transform.Context, obj transform.Object, doc map[string]any) (bool, error) {
	if doc == nil {
		return false, t.applyJSON(ctx, obj)
	}
	if doc["$patch"] == "delete" {
		return true, nil
	}
	// The merge takes values from the patch into the object and edits the patch, so every
	// object gets its own copy.
	patch := jsonbytes.CopyValue(doc).(map[string]any)
	if meta, ok := patch["metadata"].(map[string]any); ok {
		// The target keeps its namespace, and its name unless the options say otherwise:
		// with a target, the patch's name is only a placeholder.
		delete(meta, "namespace")
		if !t.options.AllowNameChange {
			delete(meta, "name")
		}
		if len(meta) == 0 {
			delete(patch, "metadata")
		}
	}
	if !t.options.AllowKindChange {
		delete(patch, "kind")
		delete(patch, "apiVersion")
	}
	before := 0
	if ctx.MaxBytes() > 0 {
		before = jsonbytes.EncodedSize(obj, 0)
	}
	merged, err := strategicpatch.StrategicMergeMapPatchUsingLookupPatchMeta(obj, patch, lookupSchema(transform.GVKOf(obj)))
	if err != nil {
		return false, err
	}
	replaceContents(obj, merged)
	if ctx.MaxBytes() > 0 {
		// A merge adds at most the patch to the object, so measuring after it is enough.
		return false, ctx.Spend(jsonbytes.EncodedSize(obj, 0) - before)
	}
	return false, nil
}

// applyJSON applies the JSON 6902 patch through its encoded form.
//
// One application can grow the object a lot: each copy operation may double it, so eleven
// of them make one kilobyte two megabytes. When the most the patch could make of the object
// fits the budget, the patch is applied at once; otherwise operation by operation, with the
// budget and the request checked after each, so that it stops before it runs away.
func (t *patchTransformer) applyJSON(ctx *transform.Context, obj transform.Object) error {
	doc, err := jsonbytes.AppendValue(nil, obj)
	if err != nil {
		return err
	}
	var out []byte
	if ctx.Fits(filters.JSONPatchBound(t.json, len(doc)) - len(doc)) {
		if out, err = t.json.Apply(doc); err != nil {
			return err
		}
	} else {
		out = doc
		for _, op := range t.json {
			if out, err = (jsonpatch.Patch{op}).Apply(out); err != nil {
				return err
			}
			if !ctx.Fits(len(out) - len(doc)) {
				return ctx.TooLarge()
			}
			if err := ctx.Spend(0); err != nil {
				return err
			}
		}
	}
	patched, err := jsonbytes.DecodeObject(out)
	if err != nil {
		return err
	}
	replaceContents(obj, patched)
	if ctx.MaxBytes() > 0 {
		// The library's encoding escapes more than ours: measure the object as ours writes it.
		return ctx.Spend(jsonbytes.EncodedSize(obj, 0) - len(doc))
	}
	return nil
}

// replaceContents makes obj hold the keys of from, so that obj keeps its identity (the
// pipeline tracks objects by their map).
func replaceContents(obj, from transform.Object) {
	if transform.ObjectKey(obj) == transform.ObjectKey(from) {
		return
	}
	clear(obj)
	maps.Copy(obj, from)
}

// lookupSchema returns the patch metadata of a Kubernetes kind, from its Go type's tags
// (patchmeta.go), or the schema-less metadata that makes a strategic-merge patch a JSON merge
// patch that still honours $patch directives, for every other kind.
func lookupSchema(id transform.GVK) strategicpatch.LookupPatchMeta {
	if s, ok := kindPatchMeta(id); ok {
		return s
	}
	return transform.MergeSchema{}
}
