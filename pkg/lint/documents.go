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
	"context"
	"encoding/json"
	"fmt"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/typecheck"
)

// Skipped is a document of a file that is not a Template: kubectl create -f sends it as it is,
// and lint has nothing of a template's to check in it.
const Skipped typecheck.Rule = "not-a-template"

// A file of several YAML documents is linted as kubectl create -f reads it: it splits the
// stream at its "---" lines and sends each document that holds something to the server, which
// checks each Template as its own. Each such document is linted on its own, with the places of
// the whole file; a document of another kind is noted and not linted.

// templateDocuments returns the documents of data that hold something, in order; one or none
// for a file of one document, a JSON file, or a stream the YAML reader would not split.
func templateDocuments(data []byte) []process.Document {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return nil
	}
	docs, ok := process.Documents(data)
	if !ok {
		return nil
	}
	out := docs[:0]
	for _, d := range docs {
		if process.HoldsSomething(data[d.Start:d.End]) {
			out = append(out, d)
		}
	}
	return out
}

// document lints the document d of the file data.
func document(ctx context.Context, name string, data []byte, d process.Document, opts Options) []Diagnostic {
	firstLine := positions.PosIn(data, d.Start).Line
	index, err := positions.ReadDocument(name, data, d.Start)
	if err != nil {
		return []Diagnostic{unreadable(name, nil, firstLine, err)}
	}
	source := index.JSON()
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if json.Unmarshal(source, &head) == nil && head.Kind != "" && head.Kind != "Template" {
		at, _ := index.Place("kind")
		return []Diagnostic{{File: name, Line: at.Line, Column: at.Column, Path: "kind", Severity: typecheck.Note, Rule: Skipped,
			Message: fmt.Sprintf("a %s %s, not a Template: not linted", head.APIVersion, head.Kind)}}
	}
	return check(ctx, name, index, source, firstLine, opts)
}
