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
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/positions"
)

// Diagnostics about a file are written as editors and CI annotators read them (the form of
// compilers): one per line, "FILE:LINE:COL: message", and "FILE:LINE:COL: warning: message"
// for a warning. The place is where the field the diagnostic names was written (its member
// name, or the value of an array element), found by the field path that starts the message
// (objects[2].spec.replicas: ...) in the file's positions.Index; a field the file does not
// have (one processing adds) is placed at its closest ancestor that the file has. What names
// no field of the file is written "FILE: message".

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
	if path == "" || strings.ContainsAny(path, " \t\n") {
		return ""
	}
	return x.Locate(path)
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
// when it could not be indexed).
func placedErrors(x *positions.Index, name string, errs []error) string {
	var b strings.Builder
	for i, err := range errs {
		if i > 0 {
			b.WriteByte('\n')
		}
		path := ""
		var fe *field.Error
		if errors.As(err, &fe) {
			path = fe.Field
		} else {
			path = leadingPath(err.Error())
		}
		if at := place(x, path); at != "" {
			b.WriteString(at)
		} else {
			b.WriteString(name)
		}
		b.WriteString(": ")
		b.WriteString(err.Error())
	}
	return b.String()
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
	yamlLine = regexp.MustCompile(`yaml: line (\d+): `)
	// jsonOffset finds the offset of a JSON syntax error in the template's bytes.
	jsonOffset = regexp.MustCompile(`offset (\d+): `)
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
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		return fmt.Errorf("%s:%s:1: %s", name, msg[m[2]:m[3]], msg)
	}
	if m := jsonOffset.FindStringSubmatchIndex(msg); m != nil {
		off, convErr := strconv.Atoi(msg[m[2]:m[3]])
		if convErr == nil {
			// The offset counts from the first byte of the JSON, past a byte order mark and
			// spaces.
			rest := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
			off += len(data) - len(bytes.TrimLeftFunc(rest, unicode.IsSpace))
			if at := positions.PosIn(data, off); at.IsValid() {
				return fmt.Errorf("%s:%s: %s", name, at, msg[:m[0]]+msg[m[1]:])
			}
		}
	}
	return fmt.Errorf("%s: %s", name, msg)
}
