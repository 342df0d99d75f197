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
	"strings"

	"stencil.dev/stencil/pkg/apis/templates"
)

// SubstitutionKind is what processing writes in place of one string of an object.
type SubstitutionKind uint8

const (
	// Literal strings hold no reference that is substituted: Substitution.Text is written.
	Literal SubstitutionKind = iota
	// Text strings hold values as text: a string, whatever the values are.
	Text
	// Typed strings are one ${{P}} or $((P)) as the whole value: P's value goes in as JSON
	// (a value that is not JSON stays a string, JSON null removes the member).
	Typed
)

// Substitution is what processing makes of one string of a template's objects, as far as it
// is known before any value is. The type check of stencil lint and of the store reads it to
// judge the JSON type a field gets.
type Substitution struct {
	Kind SubstitutionKind
	// Text is the string written, escapes removed, when Kind is Literal.
	Text string
	// Param is the parameter whose value replaces the whole string when Kind is Typed; nil
	// when a for-each object's element or index does (Element).
	Param *templates.Parameter
	// Element is "ITEM" or "INDEX" when a for-each object's element or index replaces the
	// whole string.
	Element string
}

// Substitutions classifies the strings of one template's objects as the template's dialect
// reads them: the same scanner as Compile, so that the two never disagree on what a
// reference is.
type Substitutions struct {
	sx     syntax
	params []templates.Parameter
}

// NewSubstitutions returns the classifier of t's objects in dialect d. A name declared twice
// refers to its last declaration, the one OpenShift substitutes.
func NewSubstitutions(t *templates.Template, d Dialect) *Substitutions {
	index := make(map[string]int, len(t.Parameters))
	for i, p := range t.Parameters {
		index[p.Name] = i
	}
	return &Substitutions{sx: syntax{dialect: d, params: index}, params: t.Parameters}
}

// ForEach returns the classifier of a for-each object (our dialect), where ITEM and INDEX
// name the element and its index, as Compile declares them there.
func (s *Substitutions) ForEach() *Substitutions {
	index := make(map[string]int, len(s.sx.params)+2)
	for name, i := range s.sx.params {
		index[name] = i
	}
	index[itemName], index[indexName] = len(s.params), len(s.params)+1
	return &Substitutions{sx: syntax{dialect: s.sx.dialect, params: index}, params: s.params}
}

// Value classifies a string value of an object.
func (s *Substitutions) Value(str string) Substitution { return s.classify(str, false) }

// Key classifies a member name of an object: a key never takes a typed value.
func (s *Substitutions) Key(str string) Substitution { return s.classify(str, true) }

// classify follows compileString: references to undeclared names stay as written (Compile
// refuses them in our dialect), and so does ${{P}} with text around it in OpenShift's.
func (s *Substitutions) classify(str string, key bool) Substitution {
	if !strings.ContainsRune(str, '$') {
		// Every reference and escape of both dialects starts with '$': most strings of an
		// object hold none, and are classified without a copy.
		return Substitution{Kind: Literal, Text: str}
	}
	content := []byte(str)
	segs, changed := s.sx.split(content, nil)
	whole := len(segs) == 1
	substituted := false
	var text []byte
	for i := range segs {
		seg := &segs[i]
		switch {
		case !seg.ref, seg.param < 0, s.sx.dialect == OpenShift && seg.typed && !whole:
			text = append(text, seg.text(content)...)
			continue
		case seg.typed && whole && !key:
			if seg.param >= len(s.params) {
				return Substitution{Kind: Typed, Element: seg.name(content)}
			}
			return Substitution{Kind: Typed, Param: &s.params[seg.param]}
		}
		substituted = true
	}
	switch {
	case substituted:
		return Substitution{Kind: Text}
	case changed:
		return Substitution{Kind: Literal, Text: string(text)}
	}
	return Substitution{Kind: Literal, Text: str}
}

// ObjectAPIVersion is the apiVersion an object written with apiVersion and kind goes out
// with: in OpenShift's dialect, OpenShift's kinds of the legacy group-less API get their group
// (DeploymentConfig v1 is apps.openshift.io/v1), as the processor gives them.
func ObjectAPIVersion(apiVersion, kind string, d Dialect) string {
	if d == OpenShift {
		if grouped, ok := groupify([]byte(apiVersion), []byte(kind)); ok {
			return grouped
		}
	}
	return apiVersion
}
