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

package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// Generated ConfigMaps and Secrets get a suffix that hashes their content, so that a change of
// content is a new name and the workloads that refer to it roll. As in Kustomize, the suffix is
// added once, after every transformer (a prefix, a patch of the data), and every reference is
// then fixed up to the new name in one pass.

// appendHashes renames every object c marked to name-hash and fixes the references to it.
func appendHashes(c *transform.Context, objects []transform.Object) error {
	if !c.HasHashMarks() {
		return nil
	}
	var renames []filters.Rename
	for _, obj := range objects {
		if !c.MarkedForHash(obj) {
			continue
		}
		h, err := contentHash(obj)
		if err != nil {
			return err
		}
		metadata, ok := obj["metadata"].(map[string]any)
		if !ok {
			continue
		}
		old := transform.NameOf(obj)
		c.RecordOrigin(obj)
		metadata["name"] = old + "-" + h
		renames = append(renames, filters.Rename{ID: transform.GVKOf(obj), Namespace: transform.NamespaceOf(obj), OldName: old, NewName: old + "-" + h})
		if err := c.Spend(len(h) + 1); err != nil {
			return err
		}
	}
	return filters.FixNameReferences(objects, renames)
}

// contentHash is Kustomize's name suffix (api/hasher): the SHA-256 of the JSON of the kind,
// the data maps and, for a Secret, its type, cut to ten hex digits with 0, 1, 3, a and e
// replaced so that the suffix never reads as a word or a number. The name is part of what
// Kustomize hashes, but it looks it up under a path that never matches, so it is always
// empty: the same content has the same suffix whatever the name.
func contentHash(obj transform.Object) (string, error) {
	m := map[string]any{"kind": transform.NestedString(obj, "kind"), "name": ""}
	field := func(key string) any {
		if v, ok := obj[key].(map[string]any); ok {
			return v
		}
		if s, ok := obj[key].(string); ok {
			return s
		}
		return ""
	}
	m["data"] = field("data")
	switch m["kind"] {
	case "ConfigMap":
		if v, ok := obj["binaryData"].(map[string]any); ok {
			m["binaryData"] = v
		}
	case "Secret":
		m["type"] = field("type")
		if v, ok := obj["stringData"].(map[string]any); ok {
			m["stringData"] = v
		}
	}
	encoded, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(encoded)
	digits := []byte(hex.EncodeToString(sum[:])[:10])
	for i, d := range digits {
		switch d {
		case '0':
			digits[i] = 'g'
		case '1':
			digits[i] = 'h'
		case '3':
			digits[i] = 'k'
		case 'a':
			digits[i] = 'm'
		case 'e':
			digits[i] = 't'
		}
	}
	return string(digits), nil
}
