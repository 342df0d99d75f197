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

package transform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// The pipeline decodes and encodes with jsontext directly instead of encoding/json: it is the
// largest fixed cost of a run, and a token loop that builds the tree itself is several times
// faster than reflection. The tree is the one encoding/json builds with UseNumber.

// DecodeObjects decodes every object into an Object; numbers become json.Number so that
// integers keep their precision.
func DecodeObjects(raws []json.RawMessage) ([]Object, error) {
	objects := make([]Object, len(raws))
	var dec *jsontext.Decoder
	for i, raw := range raws {
		// A bytes.Buffer lets jsontext parse raw in place instead of copying it.
		if dec == nil {
			dec = jsontext.NewDecoder(bytes.NewBuffer(raw))
		} else {
			dec.Reset(bytes.NewBuffer(raw))
		}
		obj, err := decodeObject(dec)
		if err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		objects[i] = obj
	}
	return objects, nil
}

// DecodeObject decodes one JSON object into an Object.
func DecodeObject(raw []byte) (Object, error) {
	return decodeObject(jsontext.NewDecoder(bytes.NewReader(raw)))
}

func decodeObject(dec *jsontext.Decoder) (Object, error) {
	if k := dec.PeekKind(); k != '{' {
		if k == 0 {
			_, err := dec.ReadToken()
			return nil, err
		}
		return nil, fmt.Errorf("expected a JSON object, got %v", k)
	}
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err == nil {
		return nil, fmt.Errorf("unexpected data after the JSON object")
	}
	return v.(Object), nil
}

// decodeValue reads the next value from dec.
func decodeValue(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		m := make(map[string]any)
		for dec.PeekKind() != '}' {
			kt, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			// A token is only valid until the next read.
			key := kt.String()
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return m, nil
	case '[':
		l := make([]any, 0, 4)
		for dec.PeekKind() != ']' {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return l, nil
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// EncodeObjects encodes every object as compact JSON with sorted keys, as encoding/json does.
func EncodeObjects(objects []Object) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(objects))
	var buf []byte
	for i, obj := range objects {
		var err error
		buf, err = appendJSON(buf[:0], obj)
		if err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		out[i] = bytes.Clone(buf)
	}
	return out, nil
}

// appendJSON appends v encoded as JSON. It handles the types DecodeObjects produces plus the
// plain Go values transformers are likely to set, and falls back to encoding/json for others.
func appendJSON(b []byte, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsontext.AppendQuote(b, v)
	case json.Number:
		if v == "" {
			return append(b, '0'), nil
		}
		return append(b, v...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = jsontext.AppendQuote(b, k); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendJSON(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("unsupported number %v", v)
		}
		return strconv.AppendFloat(b, v, 'g', -1, 64), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

// deepCopyValue copies a tree of maps and slices; scalars are immutable and shared.
func deepCopyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopyValue(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = deepCopyValue(e)
		}
		return l
	}
	return v
}
