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
	"fmt"
	"sync"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/positions"
)

// TemplateFile is a template read from a file, and where each of its fields was written.
type TemplateFile struct {
	Template *templates.Template
	Dialect  Dialect
	// Warnings are what DecodeTemplateFile warns of.
	Warnings []string

	name  string
	data  []byte
	start int // where the document read starts in data
	once  sync.Once
	index *positions.Index
}

// ReadTemplateFile reads a template file as DecodeTemplateFile does; name names the file in
// the places Positions gives. With withPositions, the place of every field is read in the same
// pass (for provenance and lint, which place every field). Without, the file is read exactly as
// fast as DecodeTemplateFile reads it, and Positions reads the places on its first call: a
// second pass over the file, paid only by a caller that has something to place (a diagnostic).
// The template shares data's memory: data must not change while it is used.
func ReadTemplateFile(name string, data []byte, withPositions bool) (*TemplateFile, error) {
	if withPositions {
		// JSON is indexed as it is, at no cost: DecodeTemplate validates it.
		if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
			if t, d, err := DecodeTemplate(data); err == nil {
				f := &TemplateFile{Template: t, Dialect: d, name: name, data: data, index: positions.ReadJSON(name, data)}
				f.once.Do(func() {})
				return f, nil
			}
		} else if x, err := positions.Read(name, data); err == nil {
			if t, d, err := DecodeTemplate(x.JSON()); err == nil {
				f := &TemplateFile{Template: t, Dialect: d, name: name, data: data, index: x}
				f.once.Do(func() {})
				return f, nil
			}
		}
	}
	t, d, warnings, start, err := decodeTemplateFile(data)
	if err != nil {
		return nil, err
	}
	f := &TemplateFile{Template: t, Dialect: d, Warnings: warnings, name: name, data: data, start: start}
	if withPositions {
		f.Positions()
	}
	return f, nil
}

// Name is the name the file was read under.
func (f *TemplateFile) Name() string { return f.name }

// Positions returns where each field of the template was written in the file (field paths
// as objects[2].spec.replicas); nil when the file cannot be read with them, which a nil
// *positions.Index answers as knowing no place. It is safe for concurrent use.
func (f *TemplateFile) Positions() *positions.Index {
	f.once.Do(func() {
		var x *positions.Index
		var err error
		if f.start == 0 {
			x, err = positions.Read(f.name, f.data) // JSON is indexed as it is
		} else {
			x, err = positions.ReadDocument(f.name, f.data, f.start)
		}
		if err == nil {
			f.index = x
		}
	})
	return f.index
}

// DecodeTemplateFile reads a template file as oc reads one. It is DecodeTemplate, except that
// in a YAML stream whose first documents are empty or only comments (the "---\n# Source: ...\n---"
// header of templates converted from Helm charts) an OpenShift template is read from the first
// document that is not, with a warning. A template of Stencil's dialect gets DecodeTemplate's
// answer.
func DecodeTemplateFile(data []byte) (*templates.Template, Dialect, []string, error) {
	t, d, warnings, _, err := decodeTemplateFile(data)
	return t, d, warnings, err
}

// decodeTemplateFile is DecodeTemplateFile, also returning where in data the document it read
// starts.
func decodeTemplateFile(data []byte) (*templates.Template, Dialect, []string, int, error) {
	t, d, err := DecodeTemplate(data)
	if err == nil || bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return t, d, nil, 0, err
	}
	docs, ok := splitDocuments(data)
	if !ok {
		return t, d, nil, 0, err
	}
	for skipped, doc := range docs {
		converted, convErr := positions.YAMLToJSON(data[doc.start:doc.end])
		if convErr != nil {
			return t, d, nil, 0, err
		}
		if string(bytes.TrimSpace(converted)) == "null" {
			continue
		}
		if skipped == 0 {
			return t, d, nil, 0, err
		}
		nt, nd, nerr := DecodeTemplate(data[doc.start:doc.end])
		if nerr != nil || nd != OpenShift {
			return t, d, nil, 0, err
		}
		return nt, nd, []string{fmt.Sprintf("the first %d YAML document(s) are empty: as oc does, the template is read from the first one that is not", skipped)}, doc.start, nil
	}
	return t, d, nil, 0, err
}

// document is the place of one document of a YAML stream in its bytes.
type document struct{ start, end int }

// splitDocuments splits a YAML stream as k8s.io/apimachinery's YAMLReader does (oc's reader):
// at each line that starts with "---" followed by nothing but spaces and a comment; such a
// line followed by anything else makes it fail (false). Empty documents are left out.
func splitDocuments(data []byte) ([]document, bool) {
	var docs []document
	start := 0
	for at := 0; at < len(data); {
		end := bytes.IndexByte(data[at:], '\n')
		next := len(data)
		if end >= 0 {
			next = at + end + 1
		}
		line := data[at:next]
		if bytes.HasPrefix(line, []byte("---")) {
			rest := bytes.TrimSpace(line[3:])
			if len(rest) > 0 && rest[0] != '#' {
				return nil, false
			}
			if at > start {
				docs = append(docs, document{start, at})
			}
			start = next
		}
		at = next
	}
	if start < len(data) {
		docs = append(docs, document{start, len(data)})
	}
	return docs, true
}
