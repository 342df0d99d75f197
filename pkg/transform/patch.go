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

package transform

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The patch types of PatchConfig.Type.
const (
	PatchTypeStrategicMerge = "StrategicMerge"
	PatchTypeJSON6902       = "JSON6902"
)

// PatchConfig is the config of PatchTransformer (one entry of Kustomize's patches).
type PatchConfig struct {
	ConfigMeta
	// Patch is the patch: YAML or JSON text as in Kustomize, or inline as an object (strategic
	// merge) or a list of operations (JSON 6902).
	Patch json.RawMessage `json:"patch,omitempty"`
	// Path is Kustomize's patch file; there are no files here, so it is refused.
	Path string `json:"path,omitempty"`
	// Target selects the objects to patch. Without it, a strategic-merge patch applies to
	// the object of its own kind and name; a JSON 6902 patch needs one.
	Target *Selector `json:"target,omitempty"`
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
	target  *selector
	options PatchOptions
	smp     []map[string]any // strategic-merge documents
	json    jsonpatch.Patch  // or a JSON 6902 patch
	// ids are the documents' own identities, used without a target.
	ids []patchID
}

// patchID is what a strategic-merge document without target selects by.
type patchID struct {
	group, version, kind, name, namespace string
	hasAPIVersion                         bool
}

func newPatchTransformer(config []byte, fldPath *field.Path) (Transformer, field.ErrorList) {
	var c PatchConfig
	if errs := decodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	var errs field.ErrorList
	t := &patchTransformer{options: c.Options}
	if c.Target != nil {
		var selErrs field.ErrorList
		t.target, selErrs = compileSelector(c.Target, fldPath.Child("target"))
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
	docs, err := parsePatch(c.Patch)
	if err != nil {
		return t, append(errs, field.Invalid(patchPath, shortText(c.Patch), err.Error()))
	}
	isJSON := len(docs) == 1 && isList(docs[0])
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
		t.json, err = compileJSONPatch(docs[0].([]any))
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
			id, err := ownPatchID(m)
			if err != nil {
				errs = append(errs, field.Required(fldPath.Child("target"), err.Error()))
			}
			t.ids = append(t.ids, id)
		}
	}
	return t, errs
}

func isList(v any) bool { _, ok := v.([]any); return ok }

// parsePatch returns the patch documents: an inline object or list, or YAML/JSON text that
// may hold several YAML documents.
func parsePatch(raw json.RawMessage) ([]any, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		v, err := decodeAny(raw)
		if err != nil {
			return nil, err
		}
		return []any{v}, nil
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("must not be empty")
	}
	var docs []any
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(text)))
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("neither YAML nor JSON: %w", err)
		}
		if string(j) == "null" {
			continue
		}
		v, err := decodeAny(j)
		if err != nil {
			return nil, err
		}
		docs = append(docs, v)
	}
	if len(docs) == 0 {
		return nil, errors.New("must not be empty")
	}
	if len(docs) > 1 && isList(docs[0]) {
		return nil, errors.New("a JSON 6902 patch must be a single list of operations")
	}
	return docs, nil
}

// decodeAny decodes one JSON value with numbers kept as json.Number.
func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// ownPatchID reads the identity of a strategic-merge document used without a target.
func ownPatchID(doc map[string]any) (patchID, error) {
	id := patchID{kind: NestedString(doc, "kind"), name: NestedString(doc, "metadata", "name"), namespace: NestedString(doc, "metadata", "namespace")}
	if av := NestedString(doc, "apiVersion"); av != "" {
		id.group, id.version = splitAPIVersion(av)
		id.hasAPIVersion = true
	}
	if id.kind == "" || id.name == "" {
		return id, errors.New("a strategic-merge patch without target must give kind and metadata.name")
	}
	return id, nil
}

// compileJSONPatch checks every operation and builds the patch.
func compileJSONPatch(ops []any) (jsonpatch.Patch, error) {
	if len(ops) == 0 {
		return nil, errors.New("must hold at least one operation")
	}
	for i, o := range ops {
		op, ok := o.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("operation %d is not an object", i)
		}
		name, _ := op["op"].(string)
		needs := map[string][]string{
			"add": {"path", "value"}, "replace": {"path", "value"}, "test": {"path", "value"},
			"remove": {"path"}, "move": {"path", "from"}, "copy": {"path", "from"},
		}[name]
		if needs == nil {
			return nil, fmt.Errorf("operation %d: op %q is not one of add, remove, replace, move, copy, test", i, op["op"])
		}
		for _, f := range needs {
			v, ok := op[f]
			if !ok {
				return nil, fmt.Errorf("operation %d (%s): %s is required", i, name, f)
			}
			if f == "path" || f == "from" {
				if s, ok := v.(string); !ok || (s != "" && !strings.HasPrefix(s, "/")) {
					return nil, fmt.Errorf("operation %d (%s): %s must be a JSON pointer such as /spec/replicas", i, name, f)
				}
			}
		}
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	return jsonpatch.DecodePatch(raw)
}

// shortText shortens a patch for an error message.
func shortText(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
