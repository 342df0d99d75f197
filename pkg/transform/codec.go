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
	for i, raw := range raws {
		obj, err := DecodeObject(raw)
		if err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		objects[i] = obj
	}
	return objects, nil
}

// validJSON are the checks of the validating pass; duplicate names are found while building
// the tree instead, at no cost.
var validJSON = []jsontext.Options{jsontext.AllowDuplicateNames(true)}

// DecodeObject decodes one JSON object into an Object. jsontext validates the bytes in one
// allocation-free pass; the tree is then built by a parser that needs no error handling. Only
// invalid input goes through jsontext's decoder, for its error message.
func DecodeObject(raw []byte) (Object, error) {
	if !jsontext.Value(raw).IsValid(validJSON...) {
		return decodeObjectSlow(raw)
	}
	// One copy of the object as a string; every string and number without escapes in the tree
	// is a substring of it, which saves an allocation per value.
	p := parser{b: raw, s: string(raw)}
	p.space()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return nil, fmt.Errorf("expected a JSON object")
	}
	v := p.value()
	if p.err != nil {
		return nil, p.err
	}
	return v.(Object), nil
}

// parser builds the tree of valid JSON.
type parser struct {
	b   []byte
	s   string // b as a string
	i   int
	err error
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() any {
	p.space()
	switch c := p.b[p.i]; c {
	case '{':
		p.i++
		m := make(map[string]any)
		p.space()
		if p.b[p.i] == '}' {
			p.i++
			return m
		}
		for {
			p.space()
			k := p.str(true)
			p.space()
			p.i++ // ':'
			n := len(m)
			m[k] = p.value()
			if len(m) == n && p.err == nil {
				p.err = fmt.Errorf("duplicate name %q", k)
			}
			p.space()
			c := p.b[p.i]
			p.i++
			if c == '}' {
				return m
			}
		}
	case '[':
		p.i++
		l := make([]any, 0, 4)
		p.space()
		if p.b[p.i] == ']' {
			p.i++
			return l
		}
		for {
			l = append(l, p.value())
			p.space()
			c := p.b[p.i]
			p.i++
			if c == ']' {
				return l
			}
		}
	case '"':
		return p.str(false)
	case 't':
		p.i += 4
		return true
	case 'f':
		p.i += 5
		return false
	case 'n':
		p.i += 4
		return nil
	default:
		start := p.i
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return json.Number(p.s[start:p.i])
			}
			p.i++
		}
		return json.Number(p.s[start:p.i])
	}
}

// str reads a string; keys are interned, since every object repeats the same few.
func (p *parser) str(key bool) string {
	start := p.i + 1
	escaped := false
	for p.i = start; p.b[p.i] != '"'; p.i++ {
		if p.b[p.i] == '\\' {
			escaped = true
			p.i++
		}
	}
	end := p.i
	p.i++
	if escaped {
		s, err := jsontext.AppendUnquote(nil, p.b[start-1:p.i])
		if err != nil && p.err == nil {
			p.err = err
		}
		return string(s)
	}
	if key {
		if s, ok := internedKeys[p.s[start:end]]; ok {
			return s
		}
	}
	return p.s[start:end]
}

// internedKeys are the keys of nearly every object.
var internedKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"apiVersion", "kind", "metadata", "name", "namespace", "labels", "annotations",
		"spec", "status", "selector", "matchLabels", "template", "containers", "initContainers", "image",
		"ports", "containerPort", "port", "targetPort", "protocol", "env", "value", "valueFrom", "envFrom",
		"resources", "requests", "limits", "cpu", "memory", "volumes", "volumeMounts", "mountPath",
		"replicas", "data", "type", "args", "command", "key", "configMap", "secret", "secretName",
		"configMapRef", "secretRef", "configMapKeyRef", "secretKeyRef", "items", "path", "rules",
		"serviceAccountName", "strategy", "livenessProbe", "readinessProbe", "httpGet", "imagePullPolicy"} {
		m[k] = k
	}
	return m
}()

// decodeObjectSlow decodes with jsontext's decoder, which explains what is wrong.
func decodeObjectSlow(raw []byte) (Object, error) {
	return decodeObject(jsontext.NewDecoder(bytes.NewReader(raw)))
}

// decodeObject reads one object from dec.
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
// All objects share one buffer, which saves an allocation per object.
func EncodeObjects(objects []Object) ([]json.RawMessage, error) {
	return encodeObjects(objects, 0)
}

// encodeObjects encodes with a guess of the total size, to grow the buffer once at most.
func encodeObjects(objects []Object, sizeHint int) ([]json.RawMessage, error) {
	e := encoder{buf: make([]byte, 0, sizeHint)}
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

// appendJSON appends v encoded as JSON.
func appendJSON(b []byte, v any) ([]byte, error) {
	e := encoder{buf: b}
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
		e.buf, err = jsontext.AppendQuote(e.buf, v)
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
			if e.buf, err = jsontext.AppendQuote(e.buf, k); err != nil {
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

// CopyObjects returns a deep copy of decoded objects, for steps that must change one copy per
// destination while the others stay as they were.
func CopyObjects(objects []Object) []Object {
	out := make([]Object, len(objects))
	for i, obj := range objects {
		out[i] = deepCopyValue(obj).(map[string]any)
	}
	return out
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
