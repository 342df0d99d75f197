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
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// The patch types of PatchConfig.Type.
const (
	PatchTypeStrategicMerge = "StrategicMerge"
	PatchTypeJSON6902       = "JSON6902"
)

// PatchConfig is the config of PatchTransformer (one entry of Kustomize's patches).
type PatchConfig struct {
	transform.ConfigMeta
	// Patch is the patch: YAML or JSON text as in Kustomize, or inline as an object (strategic
	// merge) or a list of operations (JSON 6902).
	Patch json.RawMessage `json:"patch,omitempty"`
	// Path is Kustomize's patch file; there are no files here, so it is refused.
	Path string `json:"path,omitempty"`
	// Target selects the objects to patch. Without it, a strategic-merge patch applies to
	// the object of its own kind and name; a JSON 6902 patch needs one.
	Target *filters.Selector `json:"target,omitempty"`
	// Options are Kustomize's patch options.
	Options PatchOptions `json:"options,omitempty"`
	// Type is StrategicMerge or JSON6902; by default it follows from the patch: a list of
	// operations is JSON 6902, an object is a strategic-merge patch.
	Type string `json:"type,omitempty"`
}

// PatchOptions let a strategic-merge patch change what a target normally keeps.
type PatchOptions struct {
	// AllowNameChange keeps the patch's metadata.name instead of the target's; references
	// to the object follow the new name.
	AllowNameChange bool `json:"allowNameChange,omitempty"`
	// AllowKindChange keeps the patch's kind and apiVersion.
	AllowKindChange bool `json:"allowKindChange,omitempty"`
}

type patchTransformer struct {
	target  *filters.CompiledSelector
	options PatchOptions
	smp     []map[string]any // strategic-merge documents
	json    jsonpatch.Patch  // or a JSON 6902 patch
	// ids are the documents' own identities, used without a target.
	ids []filters.PatchID
}

func newPatchTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c PatchConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	var errs field.ErrorList
	t := &patchTransformer{options: c.Options}
	if c.Target != nil {
		var selErrs field.ErrorList
		t.target, selErrs = filters.CompileSelector(c.Target, fldPath.Child("target"))
		errs = append(errs, selErrs...)
	}
	patchPath := fldPath.Child("patch")
	switch {
	case c.Path != "":
		errs = append(errs, field.Forbidden(fldPath.Child("path"), "patch files are not supported; give the patch inline in patch"))
		return t, errs
	case len(c.Patch) == 0 || string(c.Patch) == "null":
		return t, append(errs, field.Required(patchPath, ""))
	}
	docs, err := filters.ParsePatch(c.Patch)
	if err != nil {
		return t, append(errs, field.Invalid(patchPath, shortText(c.Patch), err.Error()))
	}
	isJSON := len(docs) == 1 && filters.IsList(docs[0])
	switch c.Type {
	case "":
	case PatchTypeJSON6902:
		if !isJSON {
			return t, append(errs, field.Invalid(patchPath, shortText(c.Patch), "a JSON 6902 patch must be a list of operations"))
		}
	case PatchTypeStrategicMerge:
		if isJSON {
			return t, append(errs, field.Invalid(patchPath, shortText(c.Patch), "a strategic-merge patch must be an object"))
		}
	default:
		return t, append(errs, field.NotSupported(fldPath.Child("type"), c.Type, []string{PatchTypeStrategicMerge, PatchTypeJSON6902}))
	}
	if isJSON {
		if c.Target == nil {
			errs = append(errs, field.Required(fldPath.Child("target"), "a JSON 6902 patch needs a target"))
		}
		t.json, err = filters.CompileJSONPatch(docs[0].([]any))
		if err != nil {
			errs = append(errs, field.Invalid(patchPath, shortText(c.Patch), err.Error()))
		}
		return t, errs
	}
	for i, d := range docs {
		m, ok := d.(map[string]any)
		if !ok {
			errs = append(errs, field.Invalid(patchPath, shortText(c.Patch), fmt.Sprintf("document %d is not an object", i)))
			continue
		}
		t.smp = append(t.smp, m)
		if c.Target == nil {
			id, err := filters.OwnPatchID(m)
			if err != nil {
				errs = append(errs, field.Required(fldPath.Child("target"), err.Error()))
			}
			t.ids = append(t.ids, id)
		}
	}
	return t, errs
}

// shortText shortens a patch for an error message.
func shortText(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
