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

package process

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/positions"
)

// splitTop is splitTemplate for the JSON that positions.YAMLToJSONTop wrote, from where it
// says the top-level members and the objects lie: the converter knows them as it writes
// them, and scanning the objects again only to find their ends was 5% of the engine's
// instructions on the corpus's YAML templates. It returns nil for a document it does not
// split exactly as splitTemplate does (not a mapping, nested deeper than splitTemplate
// follows, objects neither an array nor null, a member splitTemplate refuses): the caller
// then splits data with splitTemplate, which also words the refusal.
func splitTop(data []byte, top *positions.Top) *templateBytes {
	if top == nil || !top.Mapping || top.Depth > maxDepth {
		return nil
	}
	out := &templateBytes{}
	for _, m := range top.Members {
		key, value := data[m.Key.Start:m.Key.End], data[m.Value.Start:m.Value.End]
		name := key
		if bytes.IndexByte(key, '\\') >= 0 {
			content, err := jsontext.AppendUnquote(nil, key)
			if err != nil {
				return nil
			}
			name = jsonbytes.AppendQuoted(nil, content)
		}
		if string(name) != `"objects"` {
			if out.member(key, name, value) != nil {
				return nil
			}
			continue
		}
		switch {
		case string(value) == "null":
			out.setObjects(nil)
		case value[0] == '[':
			elements := top.Elements[m.Elements.Start:m.Elements.End]
			objects := make([]runtime.RawExtension, len(elements)) // [] is an empty list
			for i, e := range elements {
				objects[i].Raw = data[e.Start:e.End:e.End]
			}
			out.setObjects(objects)
		default:
			return nil
		}
	}
	out.closeRest()
	// The converter writes a number only from the int64, uint64 or finite float64 it resolved
	// the scalar to (a YAML number beyond them resolves to a string, as the YAML decoder
	// resolves it): every number of its JSON is one Kubernetes reads.
	out.objectNumbersFit = true
	return out
}
