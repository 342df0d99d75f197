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
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"

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

// Skipped returns the documents of the file after the one its template was read from that
// hold something (a line that is not a comment): a template file is processed as oc process
// processes one, its first template only, and a caller says what it left out.
func (f *TemplateFile) Skipped() []Document {
	if bytes.HasPrefix(bytes.TrimSpace(f.data), []byte("{")) {
		return nil
	}
	docs, ok := Documents(f.data)
	if !ok {
		return nil
	}
	var out []Document
	read := false
	for _, d := range docs {
		switch {
		case d.Start < f.start:
		case !read:
			// The template was read from the first document at or after f.start: a document
			// before it held nothing, or its reading would have failed.
			read = true
		case HoldsSomething(f.data[d.Start:d.End]):
			out = append(out, d)
		}
	}
	return out
}

// DocumentName names one YAML or JSON document of a file as a user would: its kind and
// metadata.name ("Template web"), or why it has none.
func DocumentName(doc []byte) string {
	converted, err := positions.YAMLToJSON(doc)
	if err != nil {
		return "not YAML: " + err.Error()
	}
	var object struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(converted, &object); err != nil || object.Kind == "" {
		return "no kind"
	}
	if object.Metadata.Name == "" {
		return object.Kind
	}
	return object.Kind + " " + object.Metadata.Name
}

// PlaceOfError returns where in the file x indexes an error of DecodeTemplate that names an
// offset of the JSON it read ("offset 99: objects must be an array") happened, and the message
// without the offset; the zero Pos and msg when it names none. The decoder counts from the
// first byte of the JSON, past a byte order mark and spaces, which a JSON file keeps and the
// JSON of a YAML file does not have.
func PlaceOfError(x *positions.Index, msg string) (positions.Pos, string) {
	const prefix = "offset "
	for from := 0; ; {
		i := strings.Index(msg[from:], prefix)
		if i < 0 {
			return positions.Pos{}, msg
		}
		start := from + i
		end := start + len(prefix)
		for end < len(msg) && msg[end] >= '0' && msg[end] <= '9' {
			end++
		}
		off, err := strconv.Atoi(msg[start+len(prefix) : end])
		if err != nil || !strings.HasPrefix(msg[end:], ": ") {
			from = start + len(prefix)
			continue
		}
		js := x.JSON()
		rest := bytes.TrimPrefix(js, []byte("\xef\xbb\xbf"))
		at := x.PosOfJSON(off + len(js) - len(bytes.TrimLeftFunc(rest, unicode.IsSpace)))
		return at, msg[:start] + msg[end+2:]
	}
}

// HoldsSomething reports whether a YAML document has a line that is not blank or a comment.
func HoldsSomething(doc []byte) bool {
	for len(doc) > 0 {
		line := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i], doc[i+1:]
		} else {
			doc = nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 && line[0] != '#' {
			return true
		}
	}
	return false
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
	docs, ok := Documents(data)
	if !ok {
		return t, d, nil, 0, err
	}
	for skipped, doc := range docs {
		converted, convErr := positions.YAMLToJSON(data[doc.Start:doc.End])
		if convErr != nil {
			return t, d, nil, 0, err
		}
		if string(bytes.TrimSpace(converted)) == "null" {
			continue
		}
		if skipped == 0 {
			return t, d, nil, 0, err
		}
		nt, nd, nerr := DecodeTemplate(data[doc.Start:doc.End])
		if nerr != nil || nd != OpenShift {
			return t, d, nil, 0, err
		}
		return nt, nd, []string{fmt.Sprintf("the first %d YAML document(s) are empty: as oc does, the template is read from the first one that is not", skipped)}, doc.Start, nil
	}
	return t, d, nil, 0, err
}

// Document is the place of one document of a YAML stream in its bytes.
type Document struct{ Start, End int }

// Documents splits a YAML stream as k8s.io/apimachinery's YAMLReader does (kubectl's and oc's
// reader): at each line that starts with "---" followed by nothing but spaces and a comment;
// such a line followed by anything else makes it fail (false). Empty documents are left out
// (a document of comments is not empty here: the YAML reader finds it holds nothing).
func Documents(data []byte) ([]Document, bool) {
	var docs []Document
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
				docs = append(docs, Document{start, at})
			}
			start = next
		}
		at = next
	}
	if start < len(data) {
		docs = append(docs, Document{start, len(data)})
	}
	return docs, true
}
