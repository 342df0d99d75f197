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

package templates

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"unicode/utf8"
)

// ParseBound reads a minimum, a maximum or a numeric value exactly: big.Rat keeps every digit
// of an int of any size and every decimal of a number, where a float64 would round both. It
// takes JSON numbers and the integers of the int type, which may have leading zeros.
func ParseBound(s string) (*big.Rat, bool) {
	if s == "" || !isJSONNumber(s) && !isInteger(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// ConstraintViolations returns why value breaks the parameter's constraints, every reason at
// once. The value must be non-empty and of the parameter's type (CheckValue), and the
// constraints valid for it; pattern is Pattern compiled, given by the caller so that a plan
// compiles it once. The reasons name the constraint but not the value, which may be secret.
func (p *Parameter) ConstraintViolations(value string, pattern *regexp.Regexp) []string {
	var out []string
	if len(p.Enum) > 0 && !p.inEnum(value) {
		out = append(out, fmt.Sprintf("must be one of %q", p.Enum))
	}
	if pattern != nil && !pattern.MatchString(value) {
		out = append(out, fmt.Sprintf("must match the pattern %q", p.Pattern))
	}
	if p.Minimum != nil || p.Maximum != nil {
		if v, ok := ParseBound(value); ok {
			if min, ok := boundOf(p.Minimum); ok && v.Cmp(min) < 0 {
				out = append(out, fmt.Sprintf("must be at least %s", *p.Minimum))
			}
			if max, ok := boundOf(p.Maximum); ok && v.Cmp(max) > 0 {
				out = append(out, fmt.Sprintf("must be at most %s", *p.Maximum))
			}
		}
	}
	if p.MinLength != nil || p.MaxLength != nil {
		n := int64(utf8.RuneCountInString(value))
		if p.MinLength != nil && n < *p.MinLength {
			out = append(out, fmt.Sprintf("must be at least %d characters long", *p.MinLength))
		}
		if p.MaxLength != nil && n > *p.MaxLength {
			out = append(out, fmt.Sprintf("must be at most %d characters long", *p.MaxLength))
		}
	}
	return out
}

// inEnum compares numbers by value, so that "03" is the enum's "3" as ${{P}} makes it.
func (p *Parameter) inEnum(value string) bool {
	if slices.Contains(p.Enum, value) {
		return true
	}
	if p.Type != ParameterTypeInt && p.Type != ParameterTypeNumber {
		return false
	}
	v, ok := ParseBound(value)
	if !ok {
		return false
	}
	return slices.ContainsFunc(p.Enum, func(e string) bool {
		n, ok := ParseBound(e)
		return ok && n.Cmp(v) == 0
	})
}

// boundOf parses an optional bound; a bound that does not parse is the schema's error and
// constrains nothing here.
func boundOf(s *string) (*big.Rat, bool) {
	if s == nil {
		return nil, false
	}
	return ParseBound(*s)
}
