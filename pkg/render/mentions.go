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

package render

import (
	"bytes"
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/transform/expand"
)

// The byte checks that let a template without template expansion skip decoding its objects
// look for the expansion annotation's name in every object a request renders, twice (before
// the engine, for the memory the request may hold, and after it). bytes.Index looks for a
// name's first byte and compares from each: for this name a "c", which a template writes every
// few bytes. Its "x" is rare in templates, so the search looks for that byte (bytes.IndexByte,
// vectorized) and compares the name around each found.
var (
	expansionName = []byte(expand.TemplatesAnnotation)
	// expansionRare is the offset of the name's "x", or -1 if a new name had none.
	expansionRare = bytes.IndexByte(expansionName, 'x')
)

// mentionsExpansion is a cheap byte check that lets most templates skip decoding: whether an
// object holds the expansion annotation's name, as bytes.Contains would say.
func mentionsExpansion(objects []json.RawMessage) bool {
	for _, o := range objects {
		if holdsExpansionName(o) {
			return true
		}
	}
	return false
}

// mentionsExpansionIn is mentionsExpansion of a template's objects.
func mentionsExpansionIn(objects []runtime.RawExtension) bool {
	for _, o := range objects {
		if holdsExpansionName(o.Raw) {
			return true
		}
	}
	return false
}

// holdsExpansionName is bytes.Contains(b, expansionName).
func holdsExpansionName(b []byte) bool {
	if expansionRare < 0 {
		return bytes.Contains(b, expansionName)
	}
	// The rare byte is looked for only where the name could hold it: from its offset in the
	// name to the last offset at which the whole name still fits.
	last := len(b) - len(expansionName) + expansionRare
	for at := expansionRare; at <= last; {
		i := bytes.IndexByte(b[at:last+1], 'x')
		if i < 0 {
			return false
		}
		at += i
		if bytes.Equal(b[at-expansionRare:at-expansionRare+len(expansionName)], expansionName) {
			return true
		}
		at++
	}
	return false
}
