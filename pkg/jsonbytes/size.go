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

package jsonbytes

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// EncodedSize returns the length of v as AppendValue would encode it, without encoding it, so
// that a budget can be checked before the bytes exist. Transformers may share one string
// between many objects (an annotation set everywhere), which costs nothing in the tree but
// its length every time in the output; the walk counts it every time too.
//
// Counting stops as soon as the size passes limit (when limit > 0): the result is then some
// size above limit, not the whole size, so that a tree of gigabytes is not walked to the end
// only to be refused.
func EncodedSize(v any, limit int) int {
	s := sizer{limit: limit}
	s.value(v)
	return s.n
}

// DecodedSize returns what EncodedSize reports, summed, for the trees DecodeObjects makes of
// raws, when that is known without them: compact objects without a duplicate name (as the
// engine writes them) in which no string holds an escape are exactly as long as the encoder
// writes their trees, whose keys it sorts and whose strings need no escape either. It
// reports false when some raw holds a backslash.
func DecodedSize(raws []json.RawMessage) (int, bool) {
	n := 0
	for _, raw := range raws {
		if bytes.IndexByte(raw, '\\') >= 0 {
			return 0, false
		}
		n += len(raw)
	}
	return n, true
}

type sizer struct {
	n, limit int
}

func (s *sizer) over() bool { return s.limit > 0 && s.n > s.limit }

func (s *sizer) value(v any) {
	switch v := v.(type) {
	case nil:
		s.n += len("null")
	case string:
		s.n += quotedSize(v)
	case json.Number:
		s.n += max(len(v), 1)
	case bool:
		s.n += len(strconv.FormatBool(v))
	case map[string]any:
		s.n += 2 + max(len(v)-1, 0) // braces and commas
		for k, e := range v {
			if s.over() {
				return
			}
			s.n += quotedSize(k) + 1
			s.value(e)
		}
	case []any:
		s.n += 2 + max(len(v)-1, 0)
		for _, e := range v {
			if s.over() {
				return
			}
			s.value(e)
		}
	case int:
		s.n += len(strconv.FormatInt(int64(v), 10))
	case int64:
		s.n += len(strconv.FormatInt(v, 10))
	case float64:
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			s.n += len(strconv.FormatFloat(v, 'g', -1, 64))
		}
	default:
		// The encoder falls back to encoding/json for other types, and so does the count.
		raw, _ := json.Marshal(v)
		s.n += len(raw)
	}
}

// quotedSize is the length of s as a quoted JSON string: control characters, quotes and
// backslashes take escapes, and each byte of invalid UTF-8 is counted as the six bytes of
// \ufffd, an upper bound whichever way the encoder handles it.
func quotedSize(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf {
			n += int(escapeExtra[c])
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += 5
		}
		i += size - 1
	}
	return n
}

// escapeExtra is what each ASCII byte adds to a string's length when quoted: one for the
// short escapes (\" \\ \b \f \n \r \t), five for the other control characters (\u00XX).
var escapeExtra = func() (extra [utf8.RuneSelf]uint8) {
	for c := range 0x20 {
		extra[c] = 5
	}
	for _, c := range []byte{'"', '\\', '\b', '\f', '\n', '\r', '\t'} {
		extra[c] = 1
	}
	return extra
}()
