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
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"
)

// ToYAML converts one JSON value to YAML without going through maps, so that member order and
// big numbers survive. It is the one YAML writer of Stencil's output: lists, configs, anything
// shown to people.
func ToYAML(data []byte) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	node, err := yamlNode(dec)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{node}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// yamlNode reads the next JSON value from dec as a YAML node.
func yamlNode(dec *jsontext.Decoder) (*yaml.Node, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{', '[':
		node := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		closing := jsontext.Kind('}')
		if tok.Kind() == '[' {
			node.Kind, node.Tag, closing = yaml.SequenceNode, "!!seq", ']'
		}
		for dec.PeekKind() != closing {
			if node.Kind == yaml.MappingNode {
				key, err := dec.ReadToken()
				if err != nil {
					return nil, err
				}
				node.Content = append(node.Content, stringNode(key.String()))
			}
			child, err := yamlNode(dec)
			if err != nil {
				return nil, err
			}
			node.Content = append(node.Content, child)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		if len(node.Content) == 0 {
			node.Style = yaml.FlowStyle
		}
		return node, nil
	case '"':
		return stringNode(tok.String()), nil
	case 'n':
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	case 't', 'f':
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: tok.String()}, nil
	}
	// A number, written as it is: a YAML plain scalar reads back as the same number.
	return &yaml.Node{Kind: yaml.ScalarNode, Value: tok.String()}, nil
}

// stringNode is a YAML string that YAML 1.1 readers (such as kubectl's) also read as a string:
// yaml.v3 quotes what YAML 1.2 would read otherwise, and we quote 1.1's extra booleans and
// sexagesimal numbers.
func stringNode(s string) *yaml.Node {
	node := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if isYAML11Special(s) {
		node.Style = yaml.DoubleQuotedStyle
	}
	return node
}

// isYAML11Special reports whether a YAML 1.1 reader would take the plain scalar s for
// something other than a string.
func isYAML11Special(s string) bool {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "":
		return true
	}
	return strings.Contains(s, ":") && s[0] >= '0' && s[0] <= '9' && !strings.ContainsAny(s, " \n")
}
