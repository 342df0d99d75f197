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

package cli

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
)

// Diagnostics about a file are written as editors and CI annotators read them (the form of
// compilers, which the gcc problem matchers of editors and CI parse, and stencil lint's):
// one per line, "FILE:LINE:COL: error: message" and "FILE:LINE:COL: warning: message". The place is where the field the diagnostic names was written (its member
// name, or the value of an array element), found by the field path that starts the message
// (objects[2].spec.replicas: ...) in the file's positions.Index; a field the file does not
// have (one processing adds) is placed at its closest ancestor that the file has. What names
// no field of the file is written "FILE: error: message". A server's refusal of a file's template
// (stencil process -f against a server) is placed the same way, by the field of each cause.

// stdinName names standard input in diagnostics, as compilers name it.
const stdinName = "<stdin>"

// fileName is the name of the file read for -f name in diagnostics.
func fileName(name string) string {
	if name == "-" {
		return stdinName
	}
	return name
}

// place returns "FILE:LINE:COL" for the field at path of the file x indexes, or "" when the
// file has neither it nor any ancestor but the document itself.
func place(x *positions.Index, path string) string {
	at, ok := placeOf(x, path)
	if !ok {
		return ""
	}
	return x.File() + ":" + at.String()
}

// placeOf returns where the field at path, or its closest ancestor but the document, was
// written in the file x indexes.
func placeOf(x *positions.Index, path string) (positions.Pos, bool) {
	if path == "" || strings.ContainsAny(path, " \t\n") {
		return positions.Pos{}, false
	}
	return x.Place(path)
}

// leadingPath returns the field path a message starts with ("objects[0].data.b: ...").
func leadingPath(message string) string {
	path, _, ok := strings.Cut(message, ": ")
	if !ok {
		return ""
	}
	return path
}

// placedWarning writes a warning about the file x indexes, placed when it starts with a field
// path of the file.
func placedWarning(x *positions.Index, message string) string {
	if at := place(x, leadingPath(message)); at != "" {
		return at + ": warning: " + message
	}
	return "Warning: " + message
}

// placedErrors writes one line per error of errs about the file name, which x indexes (nil
// when it could not be indexed), in the order of their places in the file, as compilers list
// them; what has no place comes last.
func placedErrors(x *positions.Index, name string, errs []error) string {
	type line struct {
		at   positions.Pos
		text string
	}
	lines := make([]line, len(errs))
	for i, err := range errs {
		var path string
		var fe *field.Error
		if errors.As(err, &fe) {
			path = fe.Field
		} else {
			path = leadingPath(err.Error())
		}
		at, ok := placeOf(x, path)
		if ok {
			lines[i] = line{at, name + ":" + at.String() + ": error: " + err.Error()}
		} else {
			lines[i] = line{positions.Pos{}, name + ": error: " + err.Error()}
		}
	}
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i].at, lines[j].at
		if a.IsValid() != b.IsValid() {
			return a.IsValid()
		}
		return a.Offset < b.Offset
	})
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.text
	}
	return strings.Join(texts, "\n")
}

// problems says how many problems follow a summary.
func problems(n int) string {
	if n == 1 {
		return "1 problem"
	}
	return strconv.Itoa(n) + " problems"
}

var (
	// yamlLine finds the line of a YAML syntax error; the YAML libraries give no column.
	yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`yaml: line (\d+): `) })
)

// fileError places the error of reading the template file name (data): each field error of a
// list on its own line at its field, a YAML syntax error at its line (column 1: the YAML
// libraries say no more), a JSON syntax error at its line and column.
func fileError(name string, data []byte, err error) error {
	msg := err.Error()
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) && len(agg.Errors()) > 0 {
		x, _ := positions.Read(name, data) // nil knows no place
		summary := strings.TrimSuffix(strings.TrimSuffix(msg, agg.Error()), ": ")
		return fmt.Errorf("%s (%s):\n%s", summary, problems(len(agg.Errors())), placedErrors(x, name, agg.Errors()))
	}
	if m := yamlLine().FindStringSubmatchIndex(msg); m != nil {
		return &placedError{fmt.Sprintf("%s:%s:1: error: %s", name, msg[m[2]:m[3]], msg)}
	}
	if x, _ := positions.Read(name, data); x != nil {
		if at, rest := process.PlaceOfError(x, msg); at.IsValid() {
			return &placedError{fmt.Sprintf("%s:%s: error: %s", name, at, rest)}
		}
	}
	return &placedError{fmt.Sprintf("%s: error: %s", name, msg)}
}

// skippedDocuments warns of each document of the template file (data) after the one its
// template was read from. stencil process processes one template, the file's first, as oc
// process does: the parameters, labels and CustomTransforms given are that template's, and a
// parameter the template does not declare is refused, which would mean nothing across several.
func skippedDocuments(name string, data []byte, skipped []process.Document) []string {
	out := make([]string, len(skipped))
	for i, d := range skipped {
		out[i] = fmt.Sprintf("%s:%d:1: warning: document %d (%s) is not processed: stencil process processes the first template of a file, as oc process does; give each template its own file",
			name, positions.PosIn(data, d.Start).Line, i+2, process.DocumentName(data[d.Start:d.End]))
	}
	return out
}

// placedError is a diagnostic of one line that says its place and severity itself: Run writes
// it as it is, without the "error: " it puts before other errors.
type placedError struct{ text string }

func (e *placedError) Error() string { return e.text }

// placedRefusal places the causes of the server's refusal of the template of the file f (a
// 422 of processedtemplates lists each problem at its field path), or returns err as it is.
func placedRefusal(f *process.TemplateFile, err error) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err
	}
	st := status.Status()
	if st.Details == nil || len(st.Details.Causes) == 0 {
		return err
	}
	causes := make([]error, len(st.Details.Causes))
	for i, c := range st.Details.Causes {
		text := c.Message
		if c.Field != "" {
			text = c.Field + ": " + c.Message
		}
		causes[i] = errors.New(text)
	}
	summary := st.Message
	if i := strings.Index(summary, " is invalid"); i >= 0 {
		summary = summary[:i+len(" is invalid")]
	}
	return fmt.Errorf("%s (%s):\n%s", summary, problems(len(causes)), placedErrors(f.Positions(), f.Name(), causes))
}
