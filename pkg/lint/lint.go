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

// Package lint is stencil lint: the checks the server makes of a Template it stores (the same
// functions: validation, the engine's compile with its CEL rules, the transformer configs,
// the size etcd stores) and a type check of every object against its kind's OpenAPI schema
// (pkg/typecheck), reported with the file's line and column as text, JSON or SARIF 2.1.0.
package lint

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/storage/names"

	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry/templates/templatecheck"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/typecheck"
)

// The rules of lint beside the type check's (typecheck.Rule).
const (
	// Unreadable is a file that is not a Template the server could read.
	Unreadable typecheck.Rule = "unreadable"
	// Refused is a problem for which the server refuses to store the template (a 422).
	Refused typecheck.Rule = "refused"
	// Tolerated is what a template of OpenShift's dialect is let off with, with a warning.
	Tolerated typecheck.Rule = "tolerated"
)

// Diagnostic is one finding in a file.
type Diagnostic struct {
	File string `json:"file"`
	// Line and Column are where the finding points, both from 1 (columns count characters);
	// zero when the file has no place for it (a file that could not be read as YAML).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Path is the template's field path of the finding; empty for the file as a whole.
	Path string `json:"path,omitempty"`
	// Document is the document of a YAML stream of several that the finding is about, 1 for
	// the first that holds something; 0 for a file of one.
	Document int                `json:"document,omitempty"`
	Severity typecheck.Severity `json:"severity"`
	Rule     typecheck.Rule     `json:"rule"`
	Message  string             `json:"message"`
}

// Options are what a lint run checks with.
type Options struct {
	// Checker type-checks the objects; nil checks no types.
	Checker *typecheck.Checker
	// Template type-checks the template itself against the Template kind's schema (unknown
	// members of the Template); nil checks nothing there.
	Template *typecheck.Checker
	// Plugins are the plugin providers the template may use, as a namespace's policy.
	Plugins plugin.Policy
}

// Known reports whether the diagnostic points at a place in its file.
func (d Diagnostic) Known() bool { return d.Line > 0 }

// File lints one template file, named name in the diagnostics: each document of a YAML stream
// of several (see documents.go), else the file as oc reads a template file.
func File(ctx context.Context, name string, data []byte, opts Options) []Diagnostic {
	docs := templateDocuments(data)
	if len(docs) <= 1 {
		// The reader that keeps positions reads the file apart from the template's
		// decoder, which skips leading empty documents as oc does; a file it cannot read
		// gets diagnostics without places (a nil Index knows none).
		index, _ := positions.Read(name, data)
		// The template is decoded from the JSON the reader made (the same bytes
		// sigs.k8s.io/yaml makes, without converting the YAML twice), unless its first
		// document is empty, which DecodeTemplateFile skips as oc does.
		source := data
		if js := index.JSON(); len(js) > 0 && string(js) != "null" {
			source = js
		}
		out := check(ctx, name, index, source, 0, opts)
		Sort(out)
		return out
	}
	var out []Diagnostic
	for i, d := range docs {
		for _, diagnostic := range document(ctx, name, data, d, opts) {
			diagnostic.Document = i + 1
			out = append(out, diagnostic)
		}
	}
	Sort(out)
	return out
}

// check lints the template decoded from source (JSON, or a file DecodeTemplateFile reads),
// whose fields index places; the lines of errors that name only a line of source are counted
// from firstLine.
func check(ctx context.Context, name string, index *positions.Index, source []byte, firstLine int, opts Options) []Diagnostic {
	var out []Diagnostic
	add := func(path string, severity typecheck.Severity, rule typecheck.Rule, message string) {
		d := Diagnostic{File: name, Path: path, Severity: severity, Rule: rule, Message: message}
		d.Line, d.Column = locate(index, path)
		out = append(out, d)
	}
	t, dialect, warnings, err := process.DecodeTemplateFile(source)
	if err != nil {
		return []Diagnostic{unreadable(name, index, firstLine, err)}
	}
	for _, w := range warnings {
		add("", typecheck.Warning, Tolerated, w)
	}
	if opts.Template != nil {
		// A member the Template's schema does not declare is what the server warns of by
		// default and refuses under strict field validation (kubectl's default): a warning
		// here, since `oc process -f` and the engine ignore it.
		for _, f := range opts.Template.CheckDocument(ctx, source).Findings {
			severity, message := f.Severity, f.String()
			if f.Rule == typecheck.UnknownField && severity == typecheck.Error {
				severity, message = typecheck.Warning, message+" (the server ignores it with a warning; kubectl's strict field validation refuses it)"
			}
			add(f.Path.String(), severity, f.Rule, message)
		}
	}
	// The store fills in the namespace of the request and names a generateName; any
	// namespace and name do for the checks, as for stencil export.
	stored := *t
	if stored.Namespace == "" {
		stored.Namespace = metav1.NamespaceDefault
	}
	if stored.Name == "" && stored.GenerateName != "" {
		stored.Name = names.SimpleNameGenerator.GenerateName(stored.GenerateName)
	}
	errs, tolerated := templatecheck.Check(&stored, opts.Plugins, validation.ValidateTemplate(&stored))
	for _, e := range errs {
		add(e.Field, typecheck.Error, Refused, e.Error())
	}
	for _, w := range tolerated {
		add(warningPath(w), typecheck.Warning, Tolerated, w)
	}
	if opts.Checker != nil {
		res := opts.Checker.Check(ctx, &stored, dialect)
		for _, f := range res.Findings {
			add(f.Path.String(), f.Severity, f.Rule, f.String())
		}
		if res.Omitted > 0 {
			add("", typecheck.Note, typecheck.Unchecked, fmt.Sprintf("%d more findings of the type check not listed", res.Omitted))
		}
	}
	return out
}

// unreadable is the diagnostic of a template that could not be decoded: a template that is
// YAML but not a Template (a parameter name read as a boolean) is told at the field the
// decoder names, or at the offset of its JSON it names; a YAML error at the line it names (of
// the document, which starts at firstLine).
func unreadable(name string, index *positions.Index, firstLine int, err error) Diagnostic {
	d := Diagnostic{File: name, Severity: typecheck.Error, Rule: Unreadable, Message: err.Error()}
	if m := decodePathAt().FindStringSubmatch(d.Message); m != nil {
		d.Path = m[1]
		d.Line, d.Column = locate(index, m[1])
	}
	if at, message := process.PlaceOfError(index, d.Message); !d.Known() && at.IsValid() {
		d.Line, d.Column, d.Message = at.Line, at.Column, message
	}
	if !d.Known() {
		if d.Line, d.Column = errorLine(d.Message); d.Line > 0 && firstLine > 1 {
			// The reader counted the lines of the document: say the file's.
			d.Line += firstLine - 1
			d.Message = lineOf().ReplaceAllLiteralString(d.Message, "line "+strconv.Itoa(d.Line))
		}
	}
	return d
}

// Sort orders diagnostics by file, line and column; those without a position first.
func Sort(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// lineOf finds the line a YAML or JSON reader names in its error.
var lineOf = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// errorLine is the line (and column 1) an error of the reader names, if any.
func errorLine(message string) (line, column int) {
	if m := lineOf().FindStringSubmatch(message); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return n, 1
		}
	}
	return 0, 0
}

// locate is where a finding at the template's field path points: the field's member name,
// or, for a field the file leaves out (a required one), its closest ancestor that the file
// has; the whole file (0, 0) when not even the path's first step is written.
func locate(index *positions.Index, path string) (line, column int) {
	at, ok := index.Place(path)
	if !ok {
		return 0, 0
	}
	return at.Line, at.Column
}

// warningPathAt is the field path an engine's warning starts with ("objects[2].metadata: ...").
var warningPathAt = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^((?:objects|parameters|labels|objectLabels|message|generators|transformers)[^\s:]*): `)
})

// decodePathAt is the field path a decoding error names after the decoder's prefix
// ("cannot read the template: parameters[0].name: Invalid value: ...").
var decodePathAt = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`: ((?:metadata|objects|parameters|labels|objectLabels|message|generators|transformers|rules)[^\s:]*): `)
})

// warningPath is the field path a warning of the engine names, if any.
func warningPath(w string) string {
	if m := warningPathAt().FindStringSubmatch(w); m != nil {
		return m[1]
	}
	return ""
}

// Count tallies diagnostics by severity.
func Count(ds []Diagnostic) map[typecheck.Severity]int {
	out := map[typecheck.Severity]int{}
	for _, d := range ds {
		out[d.Severity]++
	}
	return out
}
