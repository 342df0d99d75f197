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

package provenance

import (
	"fmt"
	"strings"

	"stencil.dev/stencil/pkg/positions"
)

// Match is one leaf field a query found, or a field a step removed.
type Match struct {
	Object *Object
	// Field is the leaf field; nil for a removed one.
	Field *Field
	// Removed is the removal of the field asked, or of the field it was under; nil for a
	// field the output has.
	Removed *RemovedField
}

// Path is the path of the field matched.
func (m Match) Path() string {
	if m.Removed != nil {
		return m.Removed.Path
	}
	return m.Field.Path
}

// Find returns the leaf fields at path (or under it, when path names an object or array) of
// the objects named by object: Kind/name, or group/Kind/name, Kind case-insensitively. An
// object repeated per destination matches once per destination.
func Find(m *Map, object, path string) ([]Match, error) {
	parts := strings.Split(object, "/")
	group := ""
	if len(parts) == 3 {
		group, parts = parts[0], parts[1:]
	}
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("name the object as KIND/NAME (Deployment/web), not %q", object)
	}
	kind, name := parts[0], parts[1]
	want := ""
	if path != "" {
		p, err := positions.ParsePath(path)
		if err != nil {
			return nil, fmt.Errorf("%q is not a field path: %v", path, err)
		}
		want = p.String()
	}
	var out, removed []Match
	objects := 0
	for i := range m.Objects {
		o := &m.Objects[i]
		if !strings.EqualFold(o.Kind, kind) || o.Name != name || group != "" && !strings.HasPrefix(o.APIVersion, group+"/") {
			continue
		}
		objects++
		for j := range o.Fields {
			f := &o.Fields[j]
			if want == "" || f.Path == want || under(f.Path, want) {
				out = append(out, Match{Object: o, Field: f})
			}
		}
		for j := range o.Removed {
			r := &o.Removed[j]
			if want != "" && (r.Path == want || under(want, r.Path) || under(r.Path, want)) {
				removed = append(removed, Match{Object: o, Removed: r})
			}
		}
	}
	if len(out) == 0 {
		// A field the output does not have, because a step removed it (or what it was
		// under): say which step.
		out = removed
	}
	switch {
	case objects == 0:
		return nil, fmt.Errorf("the output has no %s", object)
	case len(out) == 0:
		return nil, fmt.Errorf("%s has no field %s", object, path)
	}
	return out, nil
}

// under reports whether the field path p lies under prefix.
func under(p, prefix string) bool {
	return strings.HasPrefix(p, prefix) && len(p) > len(prefix) && (p[len(prefix)] == '.' || p[len(prefix)] == '[')
}

// Explain writes one line per step of a field's making, each starting with the place it
// refers to (file:line:col, or the template's field path without a file), as editors and CI
// annotators read diagnostics: where the template wrote it, the parameters substituted into
// it, then each step that set or changed it, in order.
func Explain(m *Map, match Match) []string {
	if r := match.Removed; r != nil {
		return []string{removal(m, r)}
	}
	f := match.Field
	var lines []string
	switch f.Source.Kind {
	case Template:
		lines = append(lines, fmt.Sprintf("%s: written by the template at %s", place(f.Source), f.Source.Path))
	case ObjectLabels:
		lines = append(lines, fmt.Sprintf("%s: the template's object label %s", place(f.Source), f.Source.Path))
	case RequestLabels:
		lines = append(lines, fmt.Sprintf("request: the label %s given with the request (-l)", f.Source.Path))
	case Engine:
		lines = append(lines, fmt.Sprintf("%s: added by the engine's rules (%s)", place(match.Object.Source), match.Object.Source.Path))
	case Step:
		// The first step below made it.
	}
	if len(f.Parameters) > 0 {
		lines = append(lines, fmt.Sprintf("%s: parameters substituted: %s", place(f.Source), strings.Join(f.Parameters, ", ")))
	}
	for n, i := range f.Steps {
		if i < 0 || int(i) >= len(m.Steps) {
			continue
		}
		s := m.Steps[i]
		verb := "changed it"
		if n == 0 && f.Source.Kind == Step {
			verb = "set it"
		}
		line := stepLine(m, i) + " " + verb
		if len(s.Parameters) > 0 {
			line += " (parameters: " + strings.Join(s.Parameters, ", ") + ")"
		}
		lines = append(lines, line)
	}
	return lines
}

// removal writes the line of a field a step removed.
func removal(m *Map, r *RemovedField) string {
	if r.Step < 0 || int(r.Step) >= len(m.Steps) {
		return fmt.Sprintf("processing: a step removed %s", r.Path)
	}
	return fmt.Sprintf("%s removed %s", stepLine(m, r.Step), r.Path)
}

// stepLine writes where step i was written and what it is: "t.yaml:37:3: step 2,
// transformers[1] ImageTagTransformer "image-tag"", or "processing: step 3, CustomTransform
// "no-replicas"" for a step no template field wrote.
func stepLine(m *Map, i int32) string {
	s := m.Steps[i]
	at, where := "processing", ""
	if s.Source != nil {
		at, where = place(*s.Source), s.Source.Path+" "
	}
	line := fmt.Sprintf("%s: step %d, %s%s", at, i+1, where, s.Kind)
	if s.Name != "" {
		line += fmt.Sprintf(" %q", s.Name)
	}
	return line
}

// place writes where a source was written: file:line:col, line:col for a body, or its path.
func place(s Source) string {
	switch {
	case s.Line > 0 && s.File != "":
		return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Column)
	case s.Line > 0:
		return fmt.Sprintf("%d:%d", s.Line, s.Column)
	case s.Path != "":
		return s.Path
	}
	return "engine"
}
