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

package filters

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/transform"
)

// Patch documents as PatchTransformer and a Kustomization's patches give them: parsed,
// checked, and bounded in what they can add, for the transformer and for the estimate of a
// Kustomization's cost alike.

// PatchID is what a strategic-merge document without target selects by.
type PatchID struct {
	// Group, Version, Kind, Name and Namespace are the document's own.
	Group, Version, Kind, Name, Namespace string
	// HasAPIVersion says the document gives an apiVersion; without one any group and version
	// match.
	HasAPIVersion bool
}

// IsList reports whether v is a list: a JSON 6902 patch, where a document is an object.
func IsList(v any) bool { _, ok := v.([]any); return ok }

// ParsePatch returns the patch documents: an inline object or list, or YAML/JSON text that
// may hold several YAML documents.
func ParsePatch(raw json.RawMessage) ([]any, error) {
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
		// Read as sigs.k8s.io/yaml reads it, with what aliases may expand bounded in bytes.
		j, err := positions.YAMLToJSON(doc)
		if expansion := (*positions.ExpansionError)(nil); errors.As(err, &expansion) {
			return nil, err
		}
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
	if len(docs) > 1 && IsList(docs[0]) {
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

// OwnPatchID reads the identity of a strategic-merge document used without a target.
func OwnPatchID(doc map[string]any) (PatchID, error) {
	id := PatchID{Kind: transform.NestedString(doc, "kind"), Name: transform.NestedString(doc, "metadata", "name"), Namespace: transform.NestedString(doc, "metadata", "namespace")}
	if av := transform.NestedString(doc, "apiVersion"); av != "" {
		id.Group, id.Version = transform.SplitAPIVersion(av)
		id.HasAPIVersion = true
	}
	if id.Kind == "" || id.Name == "" {
		return id, errors.New("a strategic-merge patch without target must give kind and metadata.name")
	}
	return id, nil
}

// CompileJSONPatch checks every operation and builds the patch.
func CompileJSONPatch(ops []any) (jsonpatch.Patch, error) {
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

// JSONPatchBound is the most a JSON 6902 patch can make of a document of n bytes: an add or a
// replace adds at most its value and its path (as the new key), a move at most its path, and a
// copy at most the whole document again.
func JSONPatchBound(p jsonpatch.Patch, n int) int {
	const ceiling = math.MaxInt / 4 // far above any budget, and safe to double once more
	for _, op := range p {
		path := 0
		if raw := op["path"]; raw != nil {
			path = len(*raw)
		}
		switch op.Kind() {
		case "add", "replace":
			if raw := op["value"]; raw != nil {
				n += len(*raw)
			}
			n += path + len(`"":,`)
		case "move":
			n += path
		case "copy":
			n += n + path + len(`"":,`)
		}
		if n > ceiling {
			return ceiling
		}
	}
	return n
}
