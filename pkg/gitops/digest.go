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

// annotateAll returns the objects, each annotated with key: value (appendAnnotated), in one
// buffer.
func annotateAll(objects []json.RawMessage, key, value string) ([]json.RawMessage, error) {
	member := jsonbytes.AppendQuoted(nil, key)
	member = append(member, ':')
	member = jsonbytes.AppendQuoted(member, value)
	size := 0
	for _, o := range objects {
		size += len(o) + len(member) + len(`,"metadata":{"annotations":{}}`)
	}
	buf := make([]byte, 0, size)
	out := make([]json.RawMessage, len(objects))
	for i, o := range objects {
		start := len(buf)
		var err error
		if buf, err = appendAnnotated(buf, o, key, member); err != nil {
			return nil, fmt.Errorf("object %d: %v", i, err)
		}
		out[i] = buf[start:len(buf):len(buf)]
	}
	return out, nil
}

// annotate returns obj annotated with key: value (appendAnnotated), in a new slice.
func annotate(obj []byte, key, value string) ([]byte, error) {
	member := jsonbytes.AppendQuoted(nil, key)
	member = append(member, ':')
	member = jsonbytes.AppendQuoted(member, value)
	return appendAnnotated(nil, obj, key, member)
}

// appendAnnotated appends to dst the compact JSON object obj with metadata.annotations[key]
// set, member being the member key: value written: as the last member of annotations (and
// annotations as the last of metadata, and metadata as the last of the object, when missing),
// or in place of the value when the key is there, so that every other byte of the object stays
// as it was.
func appendAnnotated(dst, obj []byte, key string, member []byte) ([]byte, error) {
	if len(obj) < 2 || obj[0] != '{' {
		return nil, fmt.Errorf("an object of the render is not a JSON object")
	}
	mStart, _, found := findMember(obj, 0, "metadata")
	if !found {
		return insertMember(dst, obj, 0, `"metadata":{"annotations":{`, member, `}}`), nil
	}
	if obj[mStart] != '{' {
		return nil, fmt.Errorf("an object's metadata is not an object")
	}
	aStart, aEnd, found := findMember(obj, mStart, "annotations")
	if !found {
		return insertMember(dst, obj, mStart, `"annotations":{`, member, `}`), nil
	}
	if obj[aStart] != '{' {
		// null, or anything a later check refuses: the annotation map is ours to write.
		return splice(dst, obj, aStart, aEnd, "{", member, "}"), nil
	}
	vStart, vEnd, found := findMember(obj, aStart, key)
	if found {
		return splice(dst, obj, vStart, vEnd, "", member[len(jsonbytes.AppendQuoted(nil, key))+1:], ""), nil
	}
	return insertMember(dst, obj, aStart, "", member, ""), nil
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

// insertMember appends to dst obj with before+member+after as the last member of the compact
// object starting at obj[at].
func insertMember(dst, obj []byte, at int, before string, member []byte, after string) []byte {
	end := jsonbytes.SkipValue(obj, at) - 1 // its '}'
	if end > at+1 {
		before = "," + before
	}
	return splice(dst, obj, end, end, before, member, after)
}

// splice appends to dst obj with obj[from:to] replaced by before+member+after.
func splice(dst, obj []byte, from, to int, before string, member []byte, after string) []byte {
	dst = append(dst, obj[:from]...)
	dst = append(dst, before...)
	dst = append(dst, member...)
	dst = append(dst, after...)
	return append(dst, obj[to:]...)
}
