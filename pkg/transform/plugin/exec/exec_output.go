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

package exec

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/transform"
)

// A plugin's stdout is read within bounds fixed before any tree is built, since the trees of
// its objects take six (JSON) to twenty-five (YAML) times its size in the server's heap:
//   - its bytes, capped while it is written (cappedBuffer);
//   - its YAML documents, counted while it is written (docCounter): past the object limit
//     the plugin is killed;
//   - the items of a KRM ResourceList, counted by a token scan of its JSON before it is
//     decoded;
//   - its documents that are not JSON, which go through the YAML reader: a quarter of the
//     byte limit, all together, each read into at most positions.MaxJSONBytes of its size
//     whatever its aliases. JSON documents (what plugins written for Stencil and
//     Kustomize's exec plugins usually print) are decoded directly.

// docCounter counts the YAML document separators of a stream written in pieces: lines
// that start with "---" followed by a space, a tab or the end of the line.
type docCounter struct {
	// limit is the most documents allowed, zero for no limit; seen counts separators;
	// dashes is how many dashes the current line starts with so far, -1 once it cannot be a
	// separator.
	limit, seen, dashes int
}

// count reads the next piece of the stream and reports whether it passes the limit.
func (c *docCounter) count(p []byte) bool {
	if c.limit == 0 {
		return false
	}
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch {
		case b == '\n':
			if c.dashes == 3 {
				c.seen++
			}
			c.dashes = 0
		case c.dashes < 0:
			// Not a separator: skip to the next line.
			next := bytes.IndexByte(p[i:], '\n')
			if next < 0 {
				return c.over()
			}
			i += next - 1
		case c.dashes < 3 && b == '-':
			c.dashes++
		case c.dashes == 3 && (b == ' ' || b == '\t' || b == '\r'):
			c.seen++
			c.dashes = -1
		default:
			c.dashes = -1
		}
	}
	return c.over()
}

// over reports whether more documents began than the limit allows; the first document may
// come without a separator.
func (c *docCounter) over() bool { return c.limit > 0 && c.seen > c.limit+1 }

// splitDocs splits a YAML stream at the lines docCounter counts; what follows "---" on its
// line belongs to the next document. Documents of only spaces are dropped.
func splitDocs(out []byte) [][]byte {
	var docs [][]byte
	start := 0
	add := func(end int) {
		if len(bytes.TrimSpace(out[start:end])) > 0 {
			docs = append(docs, out[start:end])
		}
	}
	for line := 0; line < len(out); {
		end := bytes.IndexByte(out[line:], '\n')
		if end < 0 {
			end = len(out)
		} else {
			end += line
		}
		if l := out[line:end]; bytes.HasPrefix(l, []byte("---")) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r') {
			add(line)
			start = line + 3
		}
		line = end + 1
	}
	add(len(out))
	return docs
}

// outputLimits are the bounds readDocs holds a plugin's stdout to.
type outputLimits struct {
	// objects bounds the documents, and the items of a ResourceList when resourceList.
	objects      int
	resourceList bool
	// yamlBytes bounds the documents that are not JSON, together.
	yamlBytes int
}

// readDocs reads a YAML (or JSON) stream of objects; empty documents are skipped.
func readDocs(out []byte, limits outputLimits) ([]transform.Object, error) {
	parts := splitDocs(out)
	if len(parts) > limits.objects {
		return nil, fmt.Errorf("%w of %d objects: it wrote %d documents", errPluginOutput, limits.objects, len(parts))
	}
	docs := make([]transform.Object, 0, len(parts))
	yamlBytes := 0
	for _, part := range parts {
		j := bytes.TrimSpace(part)
		if j[0] != '{' || !jsontext.Value(j).IsValid(jsontext.AllowDuplicateNames(true)) {
			if yamlBytes += len(part); yamlBytes > limits.yamlBytes {
				return nil, fmt.Errorf("%w of %d bytes of YAML, which costs the server several times more than JSON to read (JSON output may take the whole limit)", errPluginOutput, limits.yamlBytes)
			}
			var err error
			if j, err = positions.YAMLToJSON(part); err != nil {
				if errors.As(err, new(*positions.ExpansionError)) {
					return nil, fmt.Errorf("%w: %w", errPluginOutput, err)
				}
				return nil, err
			}
			if string(bytes.TrimSpace(j)) == "null" {
				continue
			}
		}
		if limits.resourceList {
			if n := countItems(j, limits.objects); n > limits.objects {
				return nil, fmt.Errorf("%w of %d objects: its ResourceList has more items", errPluginOutput, limits.objects)
			}
		}
		obj, err := jsonbytes.DecodeObject(j)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
		}
		docs = append(docs, obj)
	}
	return docs, nil
}

// countItems counts the elements of the top-level "items" array of the JSON object doc,
// stopping past limit, without building them. Invalid JSON counts 0: decoding it reports it.
func countItems(doc []byte, limit int) int {
	d := jsontext.NewDecoder(bytes.NewReader(doc), jsontext.AllowDuplicateNames(true))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return 0
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return 0
		}
		if name.String() != "items" || d.PeekKind() != '[' {
			if d.SkipValue() != nil {
				return 0
			}
			continue
		}
		if _, err := d.ReadToken(); err != nil {
			return 0
		}
		n := 0
		for ; n <= limit && d.PeekKind() != ']' && d.PeekKind() != 0; n++ {
			if d.SkipValue() != nil {
				return 0
			}
		}
		return n
	}
	return 0
}
