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

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// A mapping's members are written sorted by key, as encoding/json sorts a map's keys, and
// stably (the last of a repeated key wins). Most mappings have a few members whose keys
// differ in their first bytes: they are compared by a word of those bytes, without a call.

// keyPrefix is the first eight bytes of key, big-endian, zeros past its end. When two keys'
// prefixes differ, the keys compare as their prefixes: either they differ at a byte both
// hold, or one is a prefix of the other, whose zeros are then below the other's byte or equal
// to it (in which case the prefixes do not differ).
func keyPrefix(key []byte) uint64 {
	n := len(key)
	if n >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	if cap(key) >= 8 {
		// The key's capacity runs on into the memory it lies in (parser.text): one load, the
		// bytes past its end cleared.
		return binary.BigEndian.Uint64(key[:8]) &^ (1<<(64-8*n) - 1)
	}
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// compareMembers orders two members by key.
func compareMembers(a, b *assign) int {
	switch {
	case a.prefix < b.prefix:
		return -1
	case a.prefix > b.prefix:
		return 1
	}
	return bytes.Compare(a.key, b.key)
}

// sortMembers sorts a mapping's members by key, stably: by insertion when they are few (a
// template's mappings mostly are), else by slices.SortStableFunc.
func sortMembers(members []assign) {
	if len(members) > 12 {
		slices.SortStableFunc(members, func(a, b assign) int { return compareMembers(&a, &b) })
		return
	}
	for i := 1; i < len(members); i++ {
		if compareMembers(&members[i-1], &members[i]) <= 0 {
			continue // in order already, as most members written in sorted order are
		}
		m := members[i]
		j := i - 1
		for j > 0 && compareMembers(&members[j-1], &m) > 0 {
			j--
		}
		copy(members[j+1:i+1], members[j:i])
		members[j] = m
	}
}
