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

package valuecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Checker checks values against one parameter's constraints, with its patterns compiled
// once; a Plan keeps one per parameter. It is immutable once made.
type Checker struct {
	self       schemaChecker
	items      *schemaChecker
	maxItems   *int64
	properties map[string]*schemaChecker
	names      []string
}

// schemaChecker is one schema with its pattern compiled; a pattern that does not compile is
// validation's error and constrains nothing here.
type schemaChecker struct {
	templates.JSONValueSchema
	pattern *regexp.Regexp
	// minimum and maximum are the bounds read once; nil for none, or one that does not parse.
	minimum, maximum *templates.Decimal
}

func newSchemaChecker(s templates.JSONValueSchema) *schemaChecker {
	c := &schemaChecker{JSONValueSchema: s, minimum: boundOf(s.Minimum), maximum: boundOf(s.Maximum)}
	if s.Pattern != "" {
		c.pattern, _ = regexp.Compile(s.Pattern)
	}
	return c
}

// New compiles the parameter's constraints; it is nil when there are none.
func New(p *templates.Parameter) *Checker {
	if !p.HasConstraints() {
		return nil
	}
	c := &Checker{self: *newSchemaChecker(p.Schema())}
	if p.Items != nil {
		c.items, c.maxItems = newSchemaChecker(*p.Items), p.MaxItems
	}
	if len(p.Properties) > 0 {
		c.properties = make(map[string]*schemaChecker, len(p.Properties))
		for name, s := range p.Properties {
			c.properties[name] = newSchemaChecker(s)
			c.names = append(c.names, name)
		}
		sort.Strings(c.names)
	}
	return c
}

// Violations returns why value breaks the constraints, every reason at once. The value must be
// non-empty and of the parameter's type (OfType). The reasons name the constraint but not
// the value, which may be secret.
func (c *Checker) Violations(value string) []string {
	if c == nil {
		return nil
	}
	out := c.self.violations(value)
	if c.items == nil && c.properties == nil {
		return out
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(value))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return out // OfType's error
	}
	if c.items != nil {
		arr, ok := v.([]any)
		if !ok {
			return append(out, "must be a JSON array")
		}
		if c.maxItems != nil && int64(len(arr)) > *c.maxItems {
			out = append(out, fmt.Sprintf("must have at most %d elements", *c.maxItems))
		}
		for i, e := range arr {
			for _, r := range c.items.elementViolations(e) {
				out = append(out, fmt.Sprintf("element %d %s", i, r))
			}
		}
	}
	if c.properties != nil {
		obj, ok := v.(map[string]any)
		if !ok {
			return append(out, "must be a JSON object")
		}
		for _, name := range c.names {
			m, present := obj[name]
			if !present {
				continue
			}
			for _, r := range c.properties[name].elementViolations(m) {
				out = append(out, fmt.Sprintf("member %q %s", name, r))
			}
		}
	}
	return out
}

// elementViolations checks a decoded element or member: its JSON type, then the constraints
// on its text (a string's content, a number's digits).
func (c *schemaChecker) elementViolations(v any) []string {
	text, ok := elementText(c.Type, v)
	if !ok {
		return []string{"must be of type " + string(c.Type)}
	}
	return c.violations(text)
}

// elementText gives a decoded JSON element (decoded with UseNumber) as the text constraints
// compare, and whether it has type t.
func elementText(t templates.ParameterType, v any) (string, bool) {
	switch t {
	case templates.ParameterTypeString:
		s, ok := v.(string)
		return s, ok
	case templates.ParameterTypeInt:
		n, ok := v.(json.Number)
		return string(n), ok && templates.IsInteger(string(n))
	case templates.ParameterTypeNumber:
		n, ok := v.(json.Number)
		return string(n), ok
	case templates.ParameterTypeBool:
		b, ok := v.(bool)
		return fmt.Sprint(b), ok
	}
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	return strings.TrimSpace(buf.String()), true
}

// violations checks a non-empty value of the schema's type against its keywords.
func (c *schemaChecker) violations(value string) []string {
	var out []string
	if len(c.Enum) > 0 && !c.inEnum(value) {
		out = append(out, fmt.Sprintf("must be one of %q", c.Enum))
	}
	if c.pattern != nil && !c.pattern.MatchString(value) {
		out = append(out, fmt.Sprintf("must match the pattern %q", c.Pattern))
	}
	if c.minimum != nil || c.maximum != nil {
		if v, ok := templates.ParseBound(value); ok {
			if c.minimum != nil && v.Cmp(*c.minimum) < 0 {
				out = append(out, fmt.Sprintf("must be at least %s", c.Minimum.Text()))
			}
			if c.maximum != nil && v.Cmp(*c.maximum) > 0 {
				out = append(out, fmt.Sprintf("must be at most %s", c.Maximum.Text()))
			}
		}
	}
	if c.MinLength != nil || c.MaxLength != nil {
		n := int64(utf8.RuneCountInString(value))
		if c.MinLength != nil && n < *c.MinLength {
			out = append(out, fmt.Sprintf("must be at least %d characters long", *c.MinLength))
		}
		if c.MaxLength != nil && n > *c.MaxLength {
			out = append(out, fmt.Sprintf("must be at most %d characters long", *c.MaxLength))
		}
	}
	return out
}

// inEnum compares numbers by value, so that "03" is the enum's "3" as ${{P}} makes it.
func (c *schemaChecker) inEnum(value string) bool {
	if slices.Contains(c.Enum, value) {
		return true
	}
	if c.Type != templates.ParameterTypeInt && c.Type != templates.ParameterTypeNumber {
		return false
	}
	v, ok := templates.ParseBound(value)
	if !ok {
		return false
	}
	return slices.ContainsFunc(c.Enum, func(e string) bool {
		n, ok := templates.ParseBound(e)
		return ok && n.Cmp(v) == 0
	})
}

// boundOf parses an optional bound; a bound that does not parse is the schema's error and
// constrains nothing here.
func boundOf(b *templates.Bound) *templates.Decimal {
	if b == nil {
		return nil
	}
	if n, ok := templates.ParseBound(b.Text()); ok {
		return &n
	}
	return nil
}
