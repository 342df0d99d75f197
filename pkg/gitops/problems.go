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

package gitops

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/positions"
)

// Problems are the errors a render found in one file, each a *field.Error at a field path of
// that file (or an error whose message starts with one), so that a writer places each at the
// line and column where the field was written.
type Problems struct {
	// File names the file as diagnostics name it: its path relative to the application's
	// directory.
	File string
	// Positions locates the file's fields; nil knows no place.
	Positions *positions.Index
	// Summary says what failed, before the problems.
	Summary string
	// Errors are the problems, at least one.
	Errors []error
}

// Error writes the summary and every problem at its field path; the CLI writes them placed.
func (p *Problems) Error() string {
	var b strings.Builder
	b.WriteString(p.Summary)
	for _, err := range p.Errors {
		fmt.Fprintf(&b, "\n  %s: %v", p.File, err)
	}
	return b.String()
}

// problemsOf wraps errs about file; nil when there are none.
func problemsOf(file string, x *positions.Index, summary string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	out := make([]error, len(errs))
	for i, err := range errs {
		out[i] = err
	}
	return &Problems{File: file, Positions: x, Summary: summary, Errors: out}
}

// problemAt is one problem at path of file.
func problemAt(file string, x *positions.Index, summary string, path *field.Path, detail string) error {
	return problemsOf(file, x, summary, field.ErrorList{field.Invalid(path, field.OmitValueType{}, detail)})
}
