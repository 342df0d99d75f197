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

// Top is where a document's top-level members lie in the JSON that YAMLToJSONTop writes, so
// that a reader of that JSON (a template's: its apiVersion, kind, objects and parameters)
// need not scan it again to find them: the emitter knows each member's bounds as it writes
// them.
type Top struct {
	// Mapping says the document is a mapping; Members are its members in the order written
	// (sorted by name, each name once).
	Mapping bool
	Members []Member
	// Elements are the elements of the members' values that are sequences, in order (see
	// Member.Elements).
	Elements []Extent
	// Depth is the deepest nesting written, the top-level mapping counting one.
	Depth int
}

// Member is one top-level member: its name as written in the JSON (quoted), its value, and,
// when the value is a sequence, the range of Top.Elements that are its elements.
type Member struct {
	Key, Value, Elements Extent
}

// Extent is the bytes [Start, End) of the JSON (of Top.Elements, for Member.Elements).
type Extent struct{ Start, End int }

// YAMLToJSONTop is YAMLToJSON, also saying where the top-level members lie in its JSON. Top
// is nil when the fast reader left the document to sigs.k8s.io/yaml.
func YAMLToJSONTop(data []byte) ([]byte, *Top, error) {
	top := &Top{}
	p := parser{src: data, top: top}
	out, err := p.read()
	if err != errBail {
		if err != nil {
			return nil, nil, err
		}
		return out, top, nil
	}
	out, err = fallback(data)
	return out, nil, err
}
