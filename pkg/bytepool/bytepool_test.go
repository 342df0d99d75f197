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

package bytepool

import "testing"

// TestClasses checks the classes of a pool of 4 KiB to 1 MiB: a buffer taken has room for what
// was asked, nothing is taken past the largest class, a buffer given back serves only the
// needs its room holds, and buffers past the bounds are not kept.
func TestClasses(t *testing.T) {
	p := New(4<<10, 1<<20)
	for n, want := range map[int]int{1: 12, 4096: 12, 4097: 13, 64<<10 + 1: 17, 1 << 20: 20, 1<<20 + 1: -1, 0: -1, -1: -1} {
		class, ok := p.Class(n)
		if !ok {
			class = -1
		}
		if class != want {
			t.Errorf("Class(%d) = %d, want %d", n, class, want)
		}
		if h := p.Take(n); (h != nil) != ok || h != nil && cap(*h) < n {
			t.Errorf("Take(%d): %v", n, h != nil)
		}
	}
	// A buffer of 5000 bytes is in the class of 4 KiB: it never serves a need of 5000.
	odd := make([]byte, 5000)
	p.Give(&odd)
	p.Give(nil)
	for range 10 {
		if h := p.Take(5000); cap(*h) < 5000 {
			t.Fatalf("a buffer of %d bytes for 5000", cap(*h))
		}
	}
	small, large := make([]byte, 100), make([]byte, 1<<20+1)
	p.Give(&small)
	p.Give(&large)
	for range 10 {
		if h := p.Take(4096); &(*h)[0] == &small[0] {
			t.Error("a buffer below the smallest class was kept")
		}
		if h := p.Take(1 << 20); &(*h)[0] == &large[0] {
			t.Error("a buffer larger than the largest class was kept")
		}
	}
}
