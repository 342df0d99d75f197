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

package lint

import (
	"bytes"
	"errors"
	"io"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// nodePositions is a Positions of a YAML or JSON file read with go.yaml.in/yaml/v3's node
// tree: the stand-in until the reader of issue 27, which keeps positions while it reads the
// template, replaces it.
type nodePositions map[string]Position

// Position returns the position of path.
func (p nodePositions) Position(path string) (Position, bool) {
	pos, ok := p[JoinPath(SplitPath(path))]
	return pos, ok
}

// IndexPositions reads the positions of the fields of the first document of data that is
// not empty (the one a template file is read from); nil when data is not YAML.
func IndexPositions(data []byte) Positions {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) || err != nil {
			return nil
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null" {
			continue
		}
		index := nodePositions{}
		index.walk(nil, doc.Content[0], 0)
		return index
	}
}

// walk records the position of every member and element under node.
func (p nodePositions) walk(segments []string, node *yaml.Node, depth int) {
	if depth > 1000 {
		return
	}
	switch node.Kind {
	case yaml.AliasNode:
		if node.Alias != nil {
			p.walk(segments, node.Alias, depth+1)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			key, value := node.Content[i], node.Content[i+1]
			if key.Tag == "!!merge" {
				p.walk(segments, value, depth+1)
				continue
			}
			child := append(segments[:len(segments):len(segments)], key.Value)
			if _, seen := p[JoinPath(child)]; !seen {
				p[JoinPath(child)] = Position{Line: key.Line, Column: key.Column}
			}
			p.walk(child, value, depth+1)
		}
	case yaml.SequenceNode:
		for i, item := range node.Content {
			child := append(segments[:len(segments):len(segments)], strconv.Itoa(i))
			p[JoinPath(child)] = Position{Line: item.Line, Column: item.Column}
			p.walk(child, item, depth+1)
		}
	}
}
