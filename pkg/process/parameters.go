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
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process/valuecheck"
	"stencil.dev/stencil/pkg/redact"
)

// compiledParameter is a declared parameter with its generator parsed and its constraints
// compiled. The declaration is the template's own, not a copy: a copy of every parameter (a
// few hundred bytes each, the largest part of a small template's plan) was a fifth of what
// compiling a template allocated, and a Template is not changed once given to Compile.
type compiledParameter struct {
	*templates.Parameter
	generator *expression
	checker   *valuecheck.Checker
	// redeclared marks a second or later declaration of a name in an OpenShift template (see
	// duplicates.go): a caller's value never reaches it, as oc sets only the first one.
	redeclared bool
}

// validParameterName reports whether name is a parameter name of the dialect: a C identifier
// for ours, OpenShift's ^[a-zA-Z0-9_]+$ for theirs.
func validParameterName(name string, d Dialect) bool {
	for i := 0; i < len(name); i++ {
		if !isBraceNameChar(name[i]) {
			return false
		}
	}
	return name != "" && (d == OpenShift || isParenNameStart(name[0]))
}

// parametersPath is the path of a template's parameters, shared as objectLabelsPath is.
var parametersPath = field.NewPath("parameters")

// compileParameters validates the declared parameters and indexes them by name.
// m, when set, is the memory of disposed plans (CompileDisposable).
func compileParameters(params []templates.Parameter, d Dialect, m *planMemory) ([]compiledParameter, map[string]int, field.ErrorList) {
	var errs field.ErrorList
	out, index := m.takeParams(len(params))
	base := parametersPath
	for i := range params {
		p := &params[i]
		// Paths are made only for problems: most templates have none, and a path per
		// parameter was most of what compiling parameters allocated.
		path := func() *field.Path { return base.Index(i) }
		out[i].Parameter = p
		switch _, dup := index[p.Name]; {
		case p.Name == "":
			errs = append(errs, field.Required(path().Child("name"), ""))
		case !validParameterName(p.Name, d):
			pattern := "^[A-Za-z_][A-Za-z0-9_]*$"
			if d == OpenShift {
				pattern = "^[a-zA-Z0-9_]+$"
			}
			errs = append(errs, field.Invalid(path().Child("name"), p.Name, "must match "+pattern))
		case dup && d == OpenShift:
			// OpenShift's processor substitutes the last declaration of a name.
			out[i].redeclared = true
			index[p.Name] = i
		case dup:
			errs = append(errs, field.Duplicate(path().Child("name"), p.Name))
		default:
			index[p.Name] = i
		}
		if err := checkType(p.Type); err != nil {
			errs = append(errs, field.NotSupported(path().Child("type"), p.Type, valuecheck.Types))
		} else {
			if err := valuecheck.OfType(p.Type, p.Value); err != nil {
				errs = append(errs, field.Invalid(path().Child("value"), shownValue(redact.Parameter(p, false), p.Value), err.Error()))
			}
			// OpenShift's Parameter has no constraints, so this finds nothing for its templates.
			if params[i].HasConstraints() {
				errs = append(errs, valuecheck.Declared(&params[i], path())...)
				out[i].checker = valuecheck.New(&params[i])
			}
		}
		switch p.Generate {
		case "":
		case templates.GeneratorExpression:
			if p.From == "" {
				errs = append(errs, field.Required(path().Child("from"), "the expression generator needs an expression"))
				break
			}
			gen, err := parseExpressionOnce(p.From)
			if err != nil {
				errs = append(errs, field.Invalid(path().Child("from"), p.From, err.Error()))
				break
			}
			out[i].generator = gen
		default:
			errs = append(errs, field.NotSupported(path().Child("generate"), p.Generate, []string{templates.GeneratorExpression}))
		}
	}
	return out, index, errs
}

// checkType rejects a parameter type we do not know.
func checkType(t templates.ParameterType) error {
	if !valuecheck.KnownType(t) {
		return fmt.Errorf("unknown type %q", t)
	}
	return nil
}

// shownValue keeps a secret value (redact.Parameter's rule) out of error messages.
func shownValue(secret bool, value string) any {
	if secret {
		return field.OmitValueType{}
	}
	return value
}

// resolveParameters computes the final value of every parameter for one request: the
// caller's value, else the default; generated when still empty; then required and type checks.
func (p *Plan) resolveParameters(req *Request) ([]string, field.ErrorList) {
	errs := unknownValues(p.index, req)
	values := make([]string, len(p.params))
	for i := range p.params {
		param := &p.params[i]
		value, given := req.Parameters[param.Name]
		given = given && !param.redeclared
		if !given {
			value = param.Value
		}
		// The default was checked by Compile; what the caller gave or the generator made was not.
		unchecked := given
		if value == "" && param.generator != nil {
			if req.Generator == nil {
				req.Generator = newRequestGenerator()
			}
			value = param.generator.generate(req.Generator)
			unchecked = true
		}
		errs = append(errs, param.checkValue(i, value, unchecked, req.FromSecret[param.Name])...)
		values[i] = value
	}
	return values, errs
}

// CheckValues reports the problems of the request's values that can be known without a
// compiled template: values for undeclared parameters, required parameters left empty and
// values of the wrong type. Callers use it beside Compile's errors, so that a template that
// does not compile still gets every problem of its request reported at once; Execute finds
// the same problems (and those of generated values) when the template compiles.
func CheckValues(t *templates.Template, d Dialect, req Request) field.ErrorList {
	params, index, _ := compileParameters(t.Parameters, d, nil)
	errs := unknownValues(index, &req)
	for i := range params {
		param := &params[i]
		if checkType(param.Type) != nil {
			continue // Compile reports the type
		}
		value, given := req.Parameters[param.Name]
		given = given && !param.redeclared
		if !given {
			value = param.Value
		}
		if value == "" && param.Generate != "" {
			continue // generated when the template is executed
		}
		errs = append(errs, param.checkValue(i, value, given, req.FromSecret[param.Name])...)
	}
	return errs
}

// unknownValues reports the caller's values for parameters the template does not declare.
func unknownValues(index map[string]int, req *Request) field.ErrorList {
	if req.IgnoreUnknownParameters {
		return nil
	}
	var unknown []string
	for name := range req.Parameters {
		if _, ok := index[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	var errs field.ErrorList
	for _, name := range unknown {
		errs = append(errs, field.Invalid(field.NewPath("parameters").Key(name), name,
			"the template declares no such parameter (ignoreUnknownParameters, or --ignore-unknown-parameters, accepts it)"))
	}
	return errs
}

// checkValue checks the final value of parameter i; unchecked says it is not the default,
// which Compile has checked; fromSecret that it was read from a Secret (it is not quoted).
func (param *compiledParameter) checkValue(i int, value string, unchecked, fromSecret bool) field.ErrorList {
	switch {
	case value == "" && param.Required:
		return field.ErrorList{field.Required(field.NewPath("parameters").Index(i), fmt.Sprintf("parameter %s is required and must be specified", param.Name))}
	case unchecked && value != "":
		// Whether the value is secret is asked only of a value to show: every request checks
		// every value.
		if err := valuecheck.OfType(param.Type, value); err != nil {
			return field.ErrorList{field.Invalid(field.NewPath("parameters").Index(i), shownValue(redact.Parameter(param.Parameter, fromSecret), value),
				fmt.Sprintf("parameter %s %s", param.Name, err.Error()))}
		}
		if reasons := param.checker.Violations(value); len(reasons) > 0 {
			return field.ErrorList{field.Invalid(field.NewPath("parameters").Index(i), shownValue(redact.Parameter(param.Parameter, fromSecret), value),
				fmt.Sprintf("parameter %s %s", param.Name, strings.Join(reasons, "; ")))}
		}
	}
	return nil
}

// canonicalInteger drops the leading zeros of an integer parameter, so that ${{P}} yields a
// JSON number for every value the int type accepts.
func canonicalInteger(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return "0"
	}
	return sign + s
}
