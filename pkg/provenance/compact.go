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

package provenance

// Compact drops the steps of processing that no config wrote and that changed nothing (a name
// hash with nothing to hash, an expansion of nothing), and numbers the others again. A
// transformer that changed nothing is kept: that is worth knowing too.
func Compact(m *Map) {
	used := make([]bool, len(m.Steps))
	for _, o := range m.Objects {
		for _, s := range o.Steps {
			used[s] = true
		}
		for _, f := range o.Fields {
			for _, s := range f.Steps {
				used[s] = true
			}
		}
		for _, r := range o.Removed {
			used[r.Step] = true
		}
	}
	to := make([]int32, len(m.Steps))
	kept := m.Steps[:0]
	for i, s := range m.Steps {
		to[i] = -1
		if used[i] || s.Source != nil {
			to[i] = int32(len(kept))
			kept = append(kept, s)
		}
	}
	m.Steps = kept
	renumber := func(steps []int32) []int32 {
		out := make([]int32, 0, len(steps))
		for _, s := range steps {
			if to[s] >= 0 {
				out = append(out, to[s])
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	for i := range m.Objects {
		o := &m.Objects[i]
		o.Steps = renumber(o.Steps)
		for j := range o.Fields {
			o.Fields[j].Steps = renumber(o.Fields[j].Steps)
		}
		for j := range o.Removed {
			o.Removed[j].Step = to[o.Removed[j].Step]
		}
	}
}
