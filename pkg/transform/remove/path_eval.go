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

package remove

import ()

// The evaluators work on trees as encoding/json decodes them into any: map[string]any,
// []any and scalars. A segment that does not fit the node it meets (a member name on an
// array, an index on an object, anything on a scalar or null, an index out of range) selects
// nothing, as in RFC 9535, so a path through missing parts of an object is a silent no-op.

// RemoveFrom deletes from root every node the path selects. An object member is deleted (never
// set to null); an array element is cut out, so later elements move up. A path that selects
// nothing changes nothing. It never replaces root itself: parsePath rejects "$" alone.
func (p Path) RemoveFrom(root map[string]any) {
	if len(p) == 0 {
		return
	}
	removeBelow(root, p)
}

// removeBelow deletes what p selects below node and returns the node to store in its parent's
// place: cutting an element out of an array yields a new slice header.
func removeBelow(node any, p Path) any {
	seg, rest := p[0], p[1:]
	switch n := node.(type) {
	case map[string]any:
		switch seg.Kind {
		case memberSegment:
			child, ok := n[seg.Name]
			switch {
			case !ok:
			case len(rest) == 0:
				delete(n, seg.Name)
			default:
				n[seg.Name] = removeBelow(child, rest)
			}
		case wildcardSegment:
			if len(rest) == 0 {
				clear(n)
				break
			}
			for k, child := range n {
				n[k] = removeBelow(child, rest)
			}
		}
	case []any:
		switch seg.Kind {
		case indexSegment:
			i, ok := resolveIndex(seg.Index, len(n))
			switch {
			case !ok:
			case len(rest) == 0:
				// A fresh slice: the old backing array may be shared with a caller's copy.
				out := make([]any, 0, len(n)-1)
				out = append(out, n[:i]...)
				return append(out, n[i+1:]...)
			default:
				n[i] = removeBelow(n[i], rest)
			}
		case wildcardSegment:
			if len(rest) == 0 {
				// An empty array, not null: the field stays, with every element removed.
				return []any{}
			}
			for i := range n {
				n[i] = removeBelow(n[i], rest)
			}
		}
	}
	return node
}

// resolveIndex maps an RFC 9535 index, negative counting from the end, into [0, length).
func resolveIndex(i int64, length int) (int, bool) {
	if i < 0 {
		i += int64(length)
	}
	if i < 0 || i >= int64(length) {
		return 0, false
	}
	return int(i), true
}
