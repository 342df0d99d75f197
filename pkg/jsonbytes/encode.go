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
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// EncodeObjects encodes every object as compact JSON with sorted keys, as encoding/json does.
// All objects share one buffer, which saves an allocation per object.
func EncodeObjects(objects []map[string]any) ([]json.RawMessage, error) {
	var e encoder
	ends := make([]int, len(objects))
	for i, obj := range objects {
		if err := e.value(obj); err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		ends[i] = len(e.buf)
	}
	out := make([]json.RawMessage, len(objects))
	start := 0
	for i, end := range ends {
		out[i] = e.buf[start:end:end]
		start = end
	}
	return out, nil
}

// AppendValue appends v, a tree or a plain Go value, encoded as compact JSON with sorted keys.
func AppendValue(dst []byte, v any) ([]byte, error) {
	e := encoder{buf: dst}
	err := e.value(v)
	return e.buf, err
}

// encoder writes the tree as JSON. It handles the types DecodeObjects produces plus the plain
// Go values transformers are likely to set, and falls back to encoding/json for others.
type encoder struct {
	buf  []byte
	keys []string // a stack of the keys of the maps being written, to sort them without allocating
}

func (e *encoder) value(v any) error {
	var err error
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.buf, err = appendString(e.buf, v)
	case json.Number:
		if v == "" {
			v = "0"
		}
		e.buf = append(e.buf, v...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case map[string]any:
		start := len(e.keys)
		for k := range v {
			e.keys = append(e.keys, k)
		}
		slices.Sort(e.keys[start:])
		e.buf = append(e.buf, '{')
		for i := start; i < start+len(v); i++ {
			if i > start {
				e.buf = append(e.buf, ',')
			}
			// e.keys may be reallocated by the recursion, so it is indexed each time.
			k := e.keys[i]
			if e.buf, err = appendString(e.buf, k); err != nil {
				return err
			}
			e.buf = append(e.buf, ':')
			if err = e.value(v[k]); err != nil {
				return err
			}
		}
		e.keys = e.keys[:start]
		e.buf = append(e.buf, '}')
	case []any:
		e.buf = append(e.buf, '[')
		for i, el := range v {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err = e.value(el); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("unsupported number %v", v)
		}
		e.buf = strconv.AppendFloat(e.buf, v, 'g', -1, 64)
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		e.buf = append(e.buf, raw...)
	}
	return err
}

// appendString appends s quoted as jsontext.AppendQuote does, which refuses invalid UTF-8.
// Strings of printable ASCII without quotes or backslashes, nearly all of an object's, need
// no escape and are copied as they are, at a table lookup a byte.
func appendString(dst []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || escapeExtra[c] != 0 {
			return jsontext.AppendQuote(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}
