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
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// elementTypes are the types of an element or member of a json value.
var elementTypes = []string{
	string(templates.ParameterTypeString), string(templates.ParameterTypeInt), string(templates.ParameterTypeNumber),
	string(templates.ParameterTypeBool), string(templates.ParameterTypeJSON),
}

// ValidateParameterConstraints checks the constraints of one parameter against themselves and
// its type: each fits the type, patterns compile, bounds are numbers in order, lengths are in
// order and items and properties describe a json value. The parameter's type must be one it
// knows; an unknown type is the engine's error and constrains nothing.
//
// It returns the constraints that are valid, with the type defaulted: the values they judge,
// the default and the words of each enum, are the engine's to check against them
// (pkg/process/valuecheck), with the checks a caller's value gets, so that one mistake is
// reported once, at the constraint.
func ValidateParameterConstraints(p *templates.Parameter, path *field.Path) (templates.Parameter, field.ErrorList) {
	typ := p.Type
	if typ == "" {
		typ = templates.ParameterTypeString
	}
	if !p.HasConstraints() {
		return templates.Parameter{Type: typ}, nil
	}
	valid, errs := validateSchema(p.Schema(), typ, path)
	checked := templates.Parameter{Type: typ, Enum: valid.Enum, Pattern: valid.Pattern, Minimum: valid.Minimum,
		Maximum: valid.Maximum, MinLength: valid.MinLength, MaxLength: valid.MaxLength}

	isJSON := typ == templates.ParameterTypeJSON
	if p.Items != nil && p.Properties != nil {
		errs = append(errs, field.Forbidden(path.Child("properties"), "items and properties exclude each other: a value is an array or an object"))
	}
	if p.Items != nil {
		if !isJSON {
			errs = append(errs, field.Forbidden(path.Child("items"), fmt.Sprintf("applies to type json only, not %s", typ)))
		} else if s, ok := validateElement(*p.Items, path.Child("items"), &errs); ok {
			checked.Items = &s
		}
	}
	if p.MaxItems != nil {
		switch {
		case p.Items == nil:
			errs = append(errs, field.Forbidden(path.Child("maxItems"), "applies to a json parameter with items only"))
		case *p.MaxItems < 0:
			errs = append(errs, field.Invalid(path.Child("maxItems"), *p.MaxItems, "must not be negative"))
		default:
			checked.MaxItems = p.MaxItems
		}
	}
	if len(p.Properties) > 0 {
		if !isJSON {
			errs = append(errs, field.Forbidden(path.Child("properties"), fmt.Sprintf("applies to type json only, not %s", typ)))
		} else if p.Items == nil {
			names := make([]string, 0, len(p.Properties))
			for name := range p.Properties {
				names = append(names, name)
			}
			sort.Strings(names)
			checked.Properties = map[string]templates.JSONValueSchema{}
			for _, name := range names {
				if s, ok := validateElement(p.Properties[name], path.Child("properties").Key(name), &errs); ok {
					checked.Properties[name] = s
				}
			}
		}
	}
	return checked, errs
}

// validateElement checks the schema of json elements or members and adds its errors; ok says
// it has a known type, and s is it with its valid constraints only.
func validateElement(schema templates.JSONValueSchema, path *field.Path, errs *field.ErrorList) (s templates.JSONValueSchema, ok bool) {
	switch {
	case schema.Type == "":
		*errs = append(*errs, field.Required(path.Child("type"), ""))
		return s, false
	case !slices.Contains(elementTypes, string(schema.Type)):
		*errs = append(*errs, field.NotSupported(path.Child("type"), schema.Type, elementTypes))
		return s, false
	}
	s, more := validateSchema(schema, schema.Type, path)
	*errs = append(*errs, more...)
	return s, true
}

// validateSchema checks the keywords of one schema of type typ: each fits the type, the
// pattern compiles, bounds and lengths are in order, and the enum repeats no word. It returns
// the schema with the keywords that are valid.
func validateSchema(s templates.JSONValueSchema, typ templates.ParameterType, path *field.Path) (templates.JSONValueSchema, field.ErrorList) {
	var errs field.ErrorList
	numeric := typ == templates.ParameterTypeInt || typ == templates.ParameterTypeNumber
	textual := typ == templates.ParameterTypeString
	misfit := func(name string, fits bool, types string) bool {
		if !fits {
			errs = append(errs, field.Forbidden(path.Child(name), fmt.Sprintf("applies to type %s only, not %s", types, typ)))
		}
		return !fits
	}
	valid := templates.JSONValueSchema{Type: typ}

	if s.Pattern != "" && !misfit("pattern", textual, "string") {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, field.Invalid(path.Child("pattern"), s.Pattern, "must be an RE2 regular expression: "+err.Error()))
		} else {
			valid.Pattern = s.Pattern
		}
	}

	bounds := true
	for _, b := range []struct {
		name  string
		value *templates.Bound
	}{{"minimum", s.Minimum}, {"maximum", s.Maximum}} {
		if b.value == nil || misfit(b.name, numeric, "int and number") {
			bounds = bounds && b.value == nil
			continue
		}
		if _, ok := templates.ParseBound(b.value.Text()); !ok {
			errs = append(errs, field.Invalid(path.Child(b.name), b.value.Text(), "must be a decimal number such as 10 or -0.5"))
			bounds = false
		}
	}
	if bounds && s.Minimum != nil && s.Maximum != nil {
		min, _ := templates.ParseBound(s.Minimum.Text())
		max, _ := templates.ParseBound(s.Maximum.Text())
		if min.Cmp(max) > 0 {
			errs = append(errs, field.Invalid(path.Child("minimum"), s.Minimum.Text(), "must not be greater than maximum "+s.Maximum.Text()))
			bounds = false
		}
	}
	if bounds {
		valid.Minimum, valid.Maximum = s.Minimum, s.Maximum
	}

	lengths := true
	for _, l := range []struct {
		name  string
		value *int64
	}{{"minLength", s.MinLength}, {"maxLength", s.MaxLength}} {
		if l.value == nil || misfit(l.name, textual, "string") {
			lengths = lengths && l.value == nil
			continue
		}
		if *l.value < 0 {
			errs = append(errs, field.Invalid(path.Child(l.name), *l.value, "must not be negative"))
			lengths = false
		}
	}
	if lengths && s.MinLength != nil && s.MaxLength != nil && *s.MinLength > *s.MaxLength {
		errs = append(errs, field.Invalid(path.Child("minLength"), *s.MinLength, fmt.Sprintf("must not be greater than maxLength %d", *s.MaxLength)))
		lengths = false
	}
	if lengths {
		valid.MinLength, valid.MaxLength = s.MinLength, s.MaxLength
	}

	if len(s.Enum) > 0 && !misfit("enum", textual || numeric, "string, int and number") {
		// Each word is a value, and the engine judges it as one; a repeated word is the enum's
		// own mistake.
		seen := map[string]bool{}
		for i, e := range s.Enum {
			if seen[e] {
				errs = append(errs, field.Duplicate(path.Child("enum").Index(i), e))
			}
			seen[e] = true
		}
		valid.Enum = s.Enum
	}
	return valid, errs
}
