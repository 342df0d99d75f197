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
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/redact"
)

// Declared checks the constraints of a declared parameter: validation's rules for the
// constraints themselves (validation.ValidateParameterConstraints), then, against the
// constraints that are valid, the values they hold: each word of each enum is of the type,
// not empty and keeps the schema's other keywords, and the default keeps them all. These are
// the checks a caller's value gets, so a template whose own values break its constraints is
// refused when it is compiled (and so when it is stored). A default of the wrong type is the
// caller's to report, constraints or not. A secret parameter's values (redact.Parameter)
// stay out of the errors.
func Declared(p *templates.Parameter, path *field.Path) field.ErrorList {
	valid, errs := validation.ValidateParameterConstraints(p, path)
	secret := redact.Parameter(p, false)
	errs = append(errs, enumWords(valid.Schema(), secret, path)...)
	if valid.Items != nil {
		errs = append(errs, enumWords(*valid.Items, secret, path.Child("items"))...)
	}
	for _, name := range slices.Sorted(maps.Keys(valid.Properties)) {
		errs = append(errs, enumWords(valid.Properties[name], secret, path.Child("properties").Key(name))...)
	}
	if p.Value != "" && OfType(valid.Type, p.Value) == nil {
		if reasons := New(&valid).Violations(p.Value); len(reasons) > 0 {
			errs = append(errs, field.Invalid(path.Child("value"), shown(secret, p.Value), strings.Join(reasons, "; ")))
		}
	}
	return errs
}

// enumWords checks each word of the schema's enum as a value of the schema: of its type, not
// empty, and keeping its other keywords. A repeated word is validation's to report, once.
func enumWords(s templates.JSONValueSchema, secret bool, path *field.Path) field.ErrorList {
	if len(s.Enum) == 0 {
		return nil
	}
	words := s
	words.Enum = nil
	checker := newSchemaChecker(words)
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, e := range s.Enum {
		if seen[e] {
			continue
		}
		seen[e] = true
		at := path.Child("enum").Index(i)
		if err := OfType(s.Type, e); err != nil || e == "" {
			msg := "must not be empty"
			if err != nil {
				msg = err.Error()
			}
			errs = append(errs, field.Invalid(at, shown(secret, e), msg))
		} else if reasons := checker.violations(e); len(reasons) > 0 {
			errs = append(errs, field.Invalid(at, shown(secret, e), strings.Join(reasons, "; ")))
		}
	}
	return errs
}

// shown keeps a secret parameter's value out of the error.
func shown(secret bool, value string) any {
	if secret {
		return field.OmitValueType{}
	}
	return value
}
