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
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// structure indexes one compacted object, so that the walker can skip any value that holds
// no "$" in constant time instead of reading it again at every depth.
type structure struct {
	// ends[i] is the offset after the object, array or string that opens at i; other entries
	// are junk.
	ends []int32
	// dollars are the offsets of every "$" (and of every \u0024 escape), in order;
	// nextDollar is the first one at or after the last offset hasDollar was asked about.
	dollars    []int32
	nextDollar int
	// frames and names are the open containers and the member names of the open objects,
	// kept between calls to save allocations.
	frames []openContainer
	names  [][]byte
	// named is the most names held in this call, how far they are cleared at its end.
	named int
	// numbersFit is false when a number is one Kubernetes cannot read (see
	// templates.NumberFits); the pass checks them as it goes.
	numbersFit bool
	// escapedNames says a member name has an escape: else a name's content is its bytes
	// between the quotes, which the walker then takes without looking for a backslash.
	escapedNames bool
}

// openContainer is an open object or array while compacting.
type openContainer struct {
	at     int32 // offset of the "{" or "[" in the output
	names  int32 // where this object's names start in structure.names
	object bool
	// set holds the names of an object with many members, where comparing each new name
	// with every earlier one would be quadratic.
	set map[string]struct{}
}

// namesBeforeSet is how many members an object has before its names go into a set.
const namesBeforeSet = 32

// maxNesting bounds the depth of objects and arrays, as jsontext does.
const maxNesting = 10000

// compact validates the JSON value src as strictly as the Kubernetes API reads objects (no
// duplicate member names, valid UTF-8, one value), drops its insignificant whitespace and
// indexes the result: one pass does what validating, compacting and indexing would do in three.
//
// Compacting only drops the space between tokens, so the source is copied a run at a time,
// where space ends one, into *buf (which keeps its memory for the next call). A source with no
// space inside, the usual request, is not copied at all: the result is src's own bytes.
func (s *structure) compact(buf *[]byte, src []byte) ([]byte, error) {
	if cap(s.ends) < len(src) {
		s.ends = make([]int32, len(src)+len(src)/2)
	}
	s.ends = s.ends[:cap(s.ends)]
	s.dollars, s.nextDollar, s.frames, s.names = s.dollars[:0], 0, s.frames[:0], s.names[:0]
	s.numbersFit, s.escapedNames = true, false
	// The names point into src: cleared as far as this call wrote them (the room past is
	// zero, as the call before left it), also when it returns early with an error.
	defer s.clearNames()
	// The output is dst followed by src[from:i]: src[k] lands at out(k) = len(dst)+k-from.
	r := run{dst: (*buf)[:0]}
	i := skipSpace(src, 0)
	r.from = i
	// expectValue: a value comes next; else a comma or the container's end does.
	expectValue := true
	for {
		if !expectValue && len(s.frames) == 0 {
			end := i
			if i = skipSpace(src, i); i != len(src) {
				return nil, syntaxError(src, i, "the end of input")
			}
			if len(r.dst) == 0 {
				return src[r.from:end:end], nil
			}
			*buf = append(r.dst, src[r.from:end]...)
			return *buf, nil
		}
		if i >= len(src) {
			return nil, fmt.Errorf("unexpected end of input")
		}
		c := src[i]
		if expectValue {
			top := len(s.frames) - 1
			if top >= 0 && s.frames[top].object {
				// A member: its name, a colon, then its value.
				if c != '"' {
					return nil, syntaxError(src, i, "a member name")
				}
				at := i
				var escaped bool
				var err error
				if i, escaped, err = s.str(src, i, r.out(0)); err != nil {
					return nil, err
				}
				s.ends[r.out(at)] = int32(r.out(i))
				s.escapedNames = s.escapedNames || escaped
				if err := s.addName(src[at:i], escaped, top); err != nil {
					return nil, err
				}
				i = r.space(src, i)
				if i >= len(src) || src[i] != ':' {
					return nil, syntaxError(src, i, "a colon")
				}
				if i = r.space(src, i+1); i >= len(src) {
					return nil, fmt.Errorf("unexpected end of input")
				}
				c = src[i]
			}
			switch {
			case c == '{' || c == '[':
				if len(s.frames) >= maxNesting {
					return nil, fmt.Errorf("nested deeper than %d levels", maxNesting)
				}
				s.frames = append(s.frames, openContainer{at: int32(r.out(i)), names: int32(len(s.names)), object: c == '{'})
				i = r.space(src, i+1)
				closer := byte(']')
				if c == '{' {
					closer = '}'
				}
				if i < len(src) && src[i] == closer {
					// An empty container is a whole value: the space after it goes as after
					// any other value (skipping it here was issue 24's "{}\n" refused).
					s.close(r.out(i + 1))
					i, expectValue = r.space(src, i+1), false
				}
				continue
			case c == '"':
				at := i
				var err error
				if i, _, err = s.str(src, i, r.out(0)); err != nil {
					return nil, err
				}
				s.ends[r.out(at)] = int32(r.out(i))
			default:
				end := scalarEnd(src, i)
				if !validScalar(src[i:end]) {
					return nil, syntaxError(src, i, "a value")
				}
				if c == '-' || c >= '0' && c <= '9' {
					s.numbersFit = s.numbersFit && templates.NumberFits(src[i:end])
				}
				i = end
			}
			expectValue = false
		} else {
			top := s.frames[len(s.frames)-1]
			closer := byte(']')
			if top.object {
				closer = '}'
			}
			switch c {
			case ',':
				i, expectValue = r.space(src, i+1), true
				continue
			case closer:
				s.close(r.out(i + 1))
				i++
			default:
				return nil, syntaxError(src, i, fmt.Sprintf("a comma or %q", closer))
			}
		}
		i = r.space(src, i)
	}
}

// run is compact's output: dst, then the run of the source from from on not yet copied.
type run struct {
	dst  []byte
	from int
}

// out is where src[k] lands in the output.
func (r *run) out(k int) int { return len(r.dst) + k - r.from }

// space moves past the space at src[i:], copying the run it ends.
func (r *run) space(src []byte, i int) int {
	// Compacted input has no space: one comparison, inlined, tells most bytes apart.
	if i >= len(src) || src[i] > ' ' {
		return i
	}
	return r.spaceRun(src, i)
}

// spaceRun is space where src[i] is a space.
func (r *run) spaceRun(src []byte, i int) int {
	j := skipSpace(src, i)
	if j == i {
		return j
	}
	// Most runs an indented file's space ends are short (a name and its colon, a value and
	// its comma): two words copied, what lies past the run overwritten by what follows,
	// cost less than a call of memmove.
	if n, at := i-r.from, len(r.dst); n <= 16 && cap(r.dst)-at >= 16 && r.from+16 <= len(src) {
		d, from := r.dst[at:at+16], src[r.from:r.from+16]
		binary.LittleEndian.PutUint64(d[:8], binary.LittleEndian.Uint64(from[:8]))
		binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(from[8:]))
		r.dst = r.dst[:at+n]
	} else {
		r.dst = append(r.dst, src[r.from:i]...)
	}
	r.from = j
	return j
}

// close ends the innermost container, which ends at end in the output.
func (s *structure) close(end int) {
	top := s.frames[len(s.frames)-1]
	s.frames = s.frames[:len(s.frames)-1]
	s.named = max(s.named, len(s.names))
	s.names = s.names[:top.names]
	s.ends[top.at] = int32(end)
}

// addName records a member name of the innermost object, refusing a repeated one. Names
// are compared by their content, so "a" and "\u0061" are the same name.
func (s *structure) addName(quoted []byte, escaped bool, top int) error {
	name := quoted[1 : len(quoted)-1]
	if escaped {
		name = jsonbytes.StringContent(quoted)
	}
	f := &s.frames[top]
	if f.set != nil {
		if _, dup := f.set[string(name)]; dup {
			return &duplicateNameError{name: name}
		}
		f.set[string(name)] = struct{}{}
		return nil
	}
	earlier := s.names[f.names:]
	for _, seen := range earlier {
		if bytes.Equal(seen, name) {
			return &duplicateNameError{name: name}
		}
	}
	if len(earlier) < namesBeforeSet {
		s.names = append(s.names, name)
		return nil
	}
	f.set = make(map[string]struct{}, 2*namesBeforeSet)
	for _, seen := range earlier {
		f.set[string(seen)] = struct{}{}
	}
	f.set[string(name)] = struct{}{}
	s.named = max(s.named, len(s.names))
	s.names = s.names[:f.names]
	return nil
}

// clearNames clears the names this call of compact wrote, for the next call.
func (s *structure) clearNames() {
	clear(s.names[:max(s.named, len(s.names))])
	s.named = 0
}

// stringSpecial marks the bytes a string scan must stop at: its end, escapes, dollars,
// control characters and the start of multi-byte UTF-8.
var stringSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'], t['$'] = true, true, true
	return t
}()

// str checks the string at src[i] and notes its dollars; base+j is where src[j] lands in the
// output. It returns the offset after the string and whether the string has escapes.
func (s *structure) str(src []byte, i, base int) (end int, escaped bool, err error) {
	for j := i + 1; ; {
		for j < len(src) && !stringSpecial[src[j]] {
			j++
		}
		if j >= len(src) {
			return len(src), false, fmt.Errorf("unterminated string")
		}
		switch c := src[j]; {
		case c == '"':
			return j + 1, escaped, nil
		case c == '$':
			s.dollars = append(s.dollars, int32(base+j))
			j++
		case c == '\\':
			n, err := escapeLength(src, j)
			if err != nil {
				return j, false, err
			}
			escaped = true
			if n == 6 && src[j+2] == '0' && src[j+3] == '0' && src[j+4] == '2' && src[j+5] == '4' {
				s.dollars = append(s.dollars, int32(base+j))
			}
			j += n
		case c < 0x20:
			return j, false, fmt.Errorf("offset %d: control character %#x in a string", j, c)
		default:
			r, size := utf8.DecodeRune(src[j:])
			if r == utf8.RuneError && size == 1 {
				return j, false, fmt.Errorf("offset %d: invalid UTF-8 in a string", j)
			}
			j += size
		}
	}
}
