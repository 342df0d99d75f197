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

package gitops

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/process"
)

// Digest is "sha256:" and the hex SHA-256 of the v1 List of objects: what the render digest
// annotation says. It is a digest of the output, not of the inputs, so a commit that renders
// the same objects annotates them the same and Argo CD sees nothing to sync.
func Digest(objects []json.RawMessage) string {
	sum := sha256.Sum256(process.ListBytes(objects))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// annotate returns the compact JSON object obj with metadata.annotations[key] set to value:
// written as the last member of annotations (and annotations as the last of metadata, and
// metadata as the last of the object, when missing), or in place of the value when the key is
// there, so that every other byte of the object stays as it was.
func annotate(obj []byte, key, value string) ([]byte, error) {
	member := jsonbytes.AppendQuoted(nil, key)
	member = append(member, ':')
	member = jsonbytes.AppendQuoted(member, value)
	if len(obj) < 2 || obj[0] != '{' {
		return nil, fmt.Errorf("an object of the render is not a JSON object")
	}
	mStart, _, found := findMember(obj, 0, "metadata")
	if !found {
		return insertMember(obj, 0, `"metadata":{"annotations":{`+string(member)+`}}`), nil
	}
	if obj[mStart] != '{' {
		return nil, fmt.Errorf("an object's metadata is not an object")
	}
	aStart, aEnd, found := findMember(obj, mStart, "annotations")
	if !found {
		return insertMember(obj, mStart, `"annotations":{`+string(member)+`}`), nil
	}
	if obj[aStart] != '{' {
		// null, or anything a later check refuses: the annotation map is ours to write.
		return splice(obj, aStart, aEnd, `{`+string(member)+`}`), nil
	}
	vStart, vEnd, found := findMember(obj, aStart, key)
	if found {
		return splice(obj, vStart, vEnd, string(jsonbytes.AppendQuoted(nil, value))), nil
	}
	return insertMember(obj, aStart, string(member)), nil
}

// findMember returns where the value of the member name of the compact object starting at
// obj[at] starts and ends.
func findMember(obj []byte, at int, name string) (int, int, bool) {
	i := at + 1
	for i < len(obj) && obj[i] != '}' {
		keyEnd := jsonbytes.SkipString(obj, i)
		valueStart := keyEnd + 1 // past ':'
		valueEnd := jsonbytes.SkipValue(obj, valueStart)
		if string(jsonbytes.StringContent(obj[i:keyEnd])) == name {
			return valueStart, valueEnd, true
		}
		i = valueEnd
		if i < len(obj) && obj[i] == ',' {
			i++
		}
	}
	return 0, 0, false
}

// insertMember adds member as the last member of the compact object starting at obj[at].
func insertMember(obj []byte, at int, member string) []byte {
	end := jsonbytes.SkipValue(obj, at) - 1 // its '}'
	if end > at+1 {
		member = "," + member
	}
	return splice(obj, end, end, member)
}

// splice returns obj with obj[from:to] replaced by s, in a new slice.
func splice(obj []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(obj)-(to-from)+len(s))
	out = append(out, obj[:from]...)
	out = append(out, s...)
	return append(out, obj[to:]...)
}
