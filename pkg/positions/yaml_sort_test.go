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
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortMembers sorts random keys (short and long, sharing prefixes, holding zero bytes,
// repeated, with room past their end and without) as encoding/json orders a map's keys,
// stably: each member keeps its place among equal keys.
func TestSortMembers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 1, 'a', 'b', 'z', 0x7f, 0xff}
	for round := range 5000 {
		n := rng.IntN(30)
		members := make([]assign, n)
		for i := range members {
			key := make([]byte, rng.IntN(11), 16)
			for j := range key {
				key[j] = alphabet[rng.IntN(len(alphabet))]
			}
			if rng.IntN(3) == 0 {
				key = key[:len(key):len(key)] // no room past the end
			}
			if rng.IntN(2) == 0 {
				// the memory past the end holds anything
				full := key[:cap(key)]
				for j := len(key); j < len(full); j++ {
					full[j] = byte(rng.Uint32())
				}
			}
			members[i] = assign{key: key, prefix: keyPrefix(key), val: int32(i)}
		}
		want := slices.Clone(members)
		slices.SortStableFunc(want, func(a, b assign) int { return bytes.Compare(a.key, b.key) })
		sortMembers(members)
		for i := range members {
			if members[i].val != want[i].val {
				t.Fatalf("round %d: member %d is %q (%d), want %q (%d)", round, i, members[i].key, members[i].val, want[i].key, want[i].val)
			}
		}
	}
}
