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

package validation

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// ValidateParameterConstraints checks the constraints of one parameter against themselves and
// its type: each fits the type, the pattern compiles, the bounds are numbers in order, and the
// enum values and the default keep every constraint. It returns the compiled pattern (nil when
// there is none or it does not compile) so that the engine compiles it once. The parameter's
// type must be one it knows; an unknown type is the engine's error and constrains nothing.
func ValidateParameterConstraints(p *templates.Parameter, path *field.Path) (*regexp.Regexp, field.ErrorList) {
	var errs field.ErrorList
	typ := p.Type
	if typ == "" {
		typ = templates.ParameterTypeString
	}
	numeric := typ == templates.ParameterTypeInt || typ == templates.ParameterTypeNumber
	textual := typ == templates.ParameterTypeString
	misfit := func(name string, fits bool, types string) bool {
		if !fits {
			errs = append(errs, field.Forbidden(path.Child(name), fmt.Sprintf("applies to type %s only, not %s", types, typ)))
		}
		return !fits
	}

	var pattern *regexp.Regexp
	if p.Pattern != "" && !misfit("pattern", textual, "string") {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("pattern"), p.Pattern, "must be an RE2 regular expression: "+err.Error()))
		} else {
			pattern = re
		}
	}

	bounds := true
	for _, b := range []struct {
		name  string
		value *string
	}{{"minimum", p.Minimum}, {"maximum", p.Maximum}} {
		if b.value == nil || misfit(b.name, numeric, "int and number") {
			bounds = bounds && b.value == nil
			continue
		}
		if _, ok := templates.ParseBound(*b.value); !ok {
			errs = append(errs, field.Invalid(path.Child(b.name), *b.value, "must be a decimal number such as 10 or -0.5"))
			bounds = false
		}
	}
	if bounds && p.Minimum != nil && p.Maximum != nil {
		min, _ := templates.ParseBound(*p.Minimum)
		max, _ := templates.ParseBound(*p.Maximum)
		if min.Cmp(max) > 0 {
			errs = append(errs, field.Invalid(path.Child("minimum"), *p.Minimum, "must not be greater than maximum "+*p.Maximum))
			bounds = false
		}
	}

	lengths := true
	for _, l := range []struct {
		name  string
		value *int64
	}{{"minLength", p.MinLength}, {"maxLength", p.MaxLength}} {
		if l.value == nil || misfit(l.name, textual, "string") {
			lengths = lengths && l.value == nil
			continue
		}
		if *l.value < 0 {
			errs = append(errs, field.Invalid(path.Child(l.name), *l.value, "must not be negative"))
			lengths = false
		}
	}
	if lengths && p.MinLength != nil && p.MaxLength != nil && *p.MinLength > *p.MaxLength {
		errs = append(errs, field.Invalid(path.Child("minLength"), *p.MinLength, fmt.Sprintf("must not be greater than maxLength %d", *p.MaxLength)))
		lengths = false
	}

	// The values are judged only against constraints that are themselves valid, so that one
	// mistake is reported once, at the constraint.
	valid := *p
	if !bounds {
		valid.Minimum, valid.Maximum = nil, nil
	}
	if !lengths {
		valid.MinLength, valid.MaxLength = nil, nil
	}
	if len(p.Enum) > 0 && !misfit("enum", textual || numeric, "string, int and number") {
		seen := map[string]bool{}
		noEnum := valid
		noEnum.Enum = nil
		for i, e := range p.Enum {
			switch {
			case seen[e]:
				errs = append(errs, field.Duplicate(path.Child("enum").Index(i), e))
			default:
				errs = append(errs, valueErrors(&noEnum, typ, e, pattern, path.Child("enum").Index(i))...)
			}
			seen[e] = true
		}
	} else {
		valid.Enum = nil
	}
	if p.Value != "" && typ.CheckValue(p.Value) == nil {
		errs = append(errs, valueErrors(&valid, typ, p.Value, pattern, path.Child("value"))...)
	}
	return pattern, errs
}

// valueErrors reports a value of the schema (a default or an enum word) that breaks its type or
// the constraints; the default's type is the engine's check already, so only enum words get it.
func valueErrors(p *templates.Parameter, typ templates.ParameterType, value string, pattern *regexp.Regexp, path *field.Path) field.ErrorList {
	if err := typ.CheckValue(value); err != nil || value == "" {
		msg := "must not be empty"
		if err != nil {
			msg = err.Error()
		}
		return field.ErrorList{field.Invalid(path, value, msg)}
	}
	if reasons := p.ConstraintViolations(value, pattern); len(reasons) > 0 {
		return field.ErrorList{field.Invalid(path, shown(p, value), strings.Join(reasons, "; "))}
	}
	return nil
}

// shown keeps a secret parameter's value out of the error.
func shown(p *templates.Parameter, value string) any {
	if p.Secret {
		return field.OmitValueType{}
	}
	return value
}
