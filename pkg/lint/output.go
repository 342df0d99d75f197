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
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"stencil.dev/stencil/pkg/typecheck"
)

// WriteText writes one line per diagnostic in the form compilers use and editors and CI
// annotators read: path:line:col: severity: message [rule]. A diagnostic without a position
// is written path: severity: message. A message of several lines (a CEL error's caret under
// the expression) goes on lines indented by four spaces, which no reader of the first form
// takes for another diagnostic.
func WriteText(w io.Writer, ds []Diagnostic) error {
	for _, d := range ds {
		at := d.File
		if d.Known() {
			at = fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Column)
		}
		first, rest, _ := strings.Cut(d.Message, "\n")
		if rest != "" {
			rest = "\n    " + strings.ReplaceAll(rest, "\n", "\n    ")
		}
		if _, err := fmt.Fprintf(w, "%s: %s: %s [%s]%s\n", at, d.Severity, first, d.Rule, rest); err != nil {
			return err
		}
	}
	return nil
}

// Summary counts the diagnostics of a run by severity.
type Summary struct {
	Files    int `json:"files"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
}

// Summarize counts ds, found in files files.
func Summarize(files int, ds []Diagnostic) Summary {
	s := Summary{Files: files}
	for _, d := range ds {
		switch d.Severity {
		case typecheck.Error:
			s.Errors++
		case typecheck.Warning:
			s.Warnings++
		default:
			s.Notes++
		}
	}
	return s
}

// WriteJSON writes the diagnostics and their summary as one JSON object:
// {"diagnostics": [{"file", "line", "column", "path", "severity", "rule", "message"}], "summary": {...}}.
func WriteJSON(w io.Writer, files int, ds []Diagnostic) error {
	if ds == nil {
		ds = []Diagnostic{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
		Summary     Summary      `json:"summary"`
	}{ds, Summarize(files, ds)})
}
