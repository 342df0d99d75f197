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
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// Trees are decoded and encoded with jsontext directly instead of encoding/json: a token loop
// that builds the tree itself is several times faster than reflection. The tree is the one
// encoding/json builds with UseNumber.

// DecodeObjects decodes the engine's objects into trees; numbers become json.Number so that
// integers keep their precision. The engine writes valid, compact JSON (FuzzProcess checks
// it), so the objects are not validated again, which cost as much as building the trees;
// DecodeObject decodes JSON of any origin.
func DecodeObjects(raws []json.RawMessage) ([]map[string]any, error) {
	objects := make([]map[string]any, len(raws))
	for i, raw := range raws {
		obj, err := decodeValid(raw)
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

// DecodeObject decodes one JSON object into a tree. jsontext validates the bytes in one
// allocation-free pass; the tree is then built by a parser that needs no error handling. Only
// invalid input goes through jsontext's decoder, for its error message.
func DecodeObject(raw []byte) (map[string]any, error) {
	if !jsontext.Value(raw).IsValid(validJSON...) {
		return decodeObjectSlow(raw)
	}
	return decodeValid(raw)
}

// decodeValid decodes one object of valid JSON, refusing duplicate names.
func decodeValid(raw []byte) (map[string]any, error) {
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
	return v.(map[string]any), nil
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
func decodeObjectSlow(raw []byte) (map[string]any, error) {
	return decodeObject(jsontext.NewDecoder(bytes.NewReader(raw)))
}

// decodeObject reads one object from dec.
func decodeObject(dec *jsontext.Decoder) (map[string]any, error) {
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
	// Only the end may follow: data that is not even a token ("{}0. 0") is no less after it.
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the JSON object")
	}
	return v.(map[string]any), nil
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
