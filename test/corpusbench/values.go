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

package corpusbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// WithValues returns the file with the values written into its parameters, as the body
// `oc process` posts to processedtemplates (processedtemplates takes the values in the
// template itself). Each value is written where the file has the parameter, leaving the rest
// of the file as it was laid out (YAML stays YAML, with its comments, block scalars and
// `---` documents), so that the server reads the file's own syntax; the edit is checked by
// decoding both with sigs.k8s.io/yaml. It fails when a parameter is not where an edit in
// place can reach it.
func WithValues(c *Case) ([]byte, error) {
	if len(c.Values) == 0 {
		return c.File, nil
	}
	start, end := templateDocument(c.File)
	doc := c.File[start:end]
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("reading the file with yaml.v3: %w", err)
	}
	top := &root
	if top.Kind == yamlv3.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	params := member(top, "parameters")
	if params == nil || params.Kind != yamlv3.SequenceNode {
		return nil, fmt.Errorf("no parameters sequence")
	}
	var edits []edit
	for _, v := range c.Values {
		found := false
		for _, p := range params.Content {
			if name := member(p, "name"); p.Kind == yamlv3.MappingNode && name != nil && name.Value == v.Name {
				e, err := valueEdit(doc, p, v.Value)
				if err != nil {
					return nil, fmt.Errorf("parameter %s: %w", v.Name, err)
				}
				edits = append(edits, e)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no parameter %s", v.Name)
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].at > edits[j].at })
	edited := append([]byte(nil), doc...)
	for _, e := range edits {
		edited = append(edited[:e.at], append([]byte(e.text), edited[e.end:]...)...)
	}
	if err := sameWithValues(doc, edited, c.Values); err != nil {
		return nil, err
	}
	out := append([]byte(nil), c.File[:start]...)
	out = append(out, edited...)
	return append(out, c.File[end:]...), nil
}

// edit replaces data[at:end] with text.
type edit struct {
	at, end int
	text    string
}

// valueEdit sets the value of the parameter mapping p: in place of the value it has, or as a
// new first member.
func valueEdit(doc []byte, p *yamlv3.Node, value string) (edit, error) {
	quoted, _ := json.Marshal(value)
	if k, v := memberKey(p, "value"); v != nil {
		if v.Kind == yamlv3.ScalarNode && v.Tag == "!!null" && v.Value == "" {
			// An empty value (`value:`) has no place of its own: after the key's colon.
			at, err := offset(doc, k.Line, k.Column)
			if err != nil {
				return edit{}, err
			}
			at += len(k.Value)
			if at >= len(doc) || doc[at] != ':' {
				return edit{}, fmt.Errorf("an empty value whose key is not followed by :")
			}
			return edit{at: at + 1, end: at + 1, text: " " + string(quoted)}, nil
		}
		at, err := offset(doc, v.Line, v.Column)
		if err != nil {
			return edit{}, err
		}
		end, err := scalarEnd(doc, at, v, p.Style&yamlv3.FlowStyle != 0)
		if err != nil {
			return edit{}, err
		}
		return edit{at: at, end: end, text: string(quoted)}, nil
	}
	at, err := offset(doc, p.Line, p.Column)
	if err != nil {
		return edit{}, err
	}
	if p.Style&yamlv3.FlowStyle != 0 {
		// At the mapping's {: the new member first.
		if doc[at] != '{' {
			return edit{}, fmt.Errorf("a flow mapping that does not start with {")
		}
		sep := ","
		if len(p.Content) == 0 {
			sep = ""
		}
		return edit{at: at + 1, end: at + 1, text: `"value":` + string(quoted) + sep}, nil
	}
	// Before the first key, with its indentation on the next line.
	return edit{at: at, end: at, text: "value: " + string(quoted) + "\n" + string(bytes.Repeat([]byte(" "), p.Column-1))}, nil
}

// scalarEnd finds where the scalar v starting at at ends.
func scalarEnd(doc []byte, at int, v *yamlv3.Node, flow bool) (int, error) {
	if v.Kind != yamlv3.ScalarNode {
		return 0, fmt.Errorf("the value is not a scalar")
	}
	switch {
	case v.Style&yamlv3.DoubleQuotedStyle != 0:
		for i := at + 1; i < len(doc); i++ {
			switch doc[i] {
			case '\\':
				i++
			case '"':
				return i + 1, nil
			}
		}
	case v.Style&yamlv3.SingleQuotedStyle != 0:
		for i := at + 1; i < len(doc); i++ {
			if doc[i] == '\'' {
				if i+1 < len(doc) && doc[i+1] == '\'' {
					i++
					continue
				}
				return i + 1, nil
			}
		}
	case v.Style&(yamlv3.LiteralStyle|yamlv3.FoldedStyle) != 0:
		return 0, fmt.Errorf("a block scalar value")
	default:
		end := at
		for end < len(doc) && doc[end] != '\n' && doc[end] != '\r' {
			if doc[end] == '#' && end > at && (doc[end-1] == ' ' || doc[end-1] == '\t') {
				break
			}
			if flow && (doc[end] == ',' || doc[end] == '}') {
				break
			}
			end++
		}
		for end > at && (doc[end-1] == ' ' || doc[end-1] == '\t') {
			end--
		}
		return end, nil
	}
	return 0, fmt.Errorf("an unterminated quoted value")
}

// offset is the byte offset of yaml.v3's line and column (1-based, the column in characters).
func offset(doc []byte, line, column int) (int, error) {
	at := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(doc[at:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end", line)
		}
		at += i + 1
	}
	for c := 1; c < column; c++ {
		if at >= len(doc) {
			return 0, fmt.Errorf("column %d of line %d is past the end", column, line)
		}
		_, size := utf8.DecodeRune(doc[at:])
		at += size
	}
	return at, nil
}

// member is the value of key in the mapping m, or nil.
func member(m *yamlv3.Node, key string) *yamlv3.Node {
	_, v := memberKey(m, key)
	return v
}

// memberKey is the key node and the value of key in the mapping m, or nils; of a repeated key,
// the last, which is the one sigs.k8s.io/yaml keeps.
func memberKey(m *yamlv3.Node, key string) (k, v *yamlv3.Node) {
	if m == nil || m.Kind != yamlv3.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			k, v = m.Content[i], m.Content[i+1]
		}
	}
	return k, v
}

// sameWithValues checks that edited reads as doc with the values set, by sigs.k8s.io/yaml.
func sameWithValues(doc, edited []byte, values []Value) error {
	var want, got map[string]any
	if err := yaml.Unmarshal(doc, &want); err != nil {
		return err
	}
	if err := yaml.Unmarshal(edited, &got); err != nil {
		return fmt.Errorf("the edited file does not read: %w", err)
	}
	params, _ := want["parameters"].([]any)
	for _, v := range values {
		for _, p := range params {
			if m, ok := p.(map[string]any); ok && m["name"] == v.Name {
				m["value"] = v.Value
			}
		}
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("the edited file does not read as the file with the values set")
	}
	return nil
}

// templateDocument is where the first YAML document that is not empty starts and ends, as oc
// reads a file (the whole of a JSON file).
func templateDocument(data []byte) (int, int) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return 0, len(data)
	}
	start := 0
	for at := 0; at <= len(data); {
		next := len(data) + 1
		line := data[at:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			next = at + i + 1
			line = data[at : at+i]
		}
		if at == len(data) || (bytes.HasPrefix(line, []byte("---")) && (len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r')) {
			end := at
			var v any
			if end > start && yaml.Unmarshal(data[start:end], &v) == nil && v != nil {
				return start, end
			}
			start = min(next, len(data))
		}
		at = next
	}
	return 0, len(data)
}
