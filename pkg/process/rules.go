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

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/process/celparams"
	"stencil.dev/stencil/pkg/redact"
)

// expressions are a plan's CEL programs over the parameters: its rules, and the conditions
// and lists of its conditional and repeated objects. A template without any has none, and
// pays nothing for them.
type expressions struct {
	env   *celparams.Env
	rules []compiledRule
	// programs are the distinct expressions of the objects, compiled once each however many
	// objects share one (the same include-when on a Secret and its Route), and evaluated at
	// most once per request.
	programs []*celProgram
	bySource map[programKey]*celProgram
	// size estimates the memory of the environment and the programs.
	size int64
	// totalCost adds up the programs' estimated costs.
	totalCost uint64
}

// celProgram is a compiled expression of the objects, numbered for the executor's results.
type celProgram struct {
	*celparams.Program
	id int
}

// programKey tells expressions apart: the same text may be asked for as a bool or a list.
type programKey struct {
	source string
	want   celparams.Result
}

// compiledRule is one rule of the template, compiled.
type compiledRule struct {
	program *celparams.Program
	rule    string
	message string
	// param is the parameter its fieldPath names, or -1 for the rule itself.
	param int
}

// The memory estimates of expressions: a CEL environment declares the base library and the
// parameters' types; a program holds its checked tree and its planned interpreter.
const (
	celEnvSize     = 256 << 10
	celProgramSize = 16 << 10
)

// celEnv returns the compiler's CEL environment, made on first use: most templates have no
// expressions, and making one costs about 0.3 ms.
func (c *compiler) celEnv() *expressions {
	if c.plan.cel != nil {
		return c.plan.cel
	}
	env, err := celparams.NewEnv(c.template.Parameters)
	if err != nil {
		// The environment is declared from the parameters only; a parameter it cannot
		// declare is left out, so this is not the template's error.
		c.errs = append(c.errs, field.InternalError(field.NewPath("rules"), err))
		return nil
	}
	c.plan.cel = &expressions{env: env, size: celEnvSize}
	return c.plan.cel
}

// compileExpression compiles one expression of the template; nil when it has errors, which
// the compiler keeps.
func (c *compiler) compileExpression(expr string, want celparams.Result, path *field.Path) *celparams.Program {
	x := c.celEnv()
	if x == nil {
		return nil
	}
	program, err := x.env.Compile(expr, want, path)
	if err != nil {
		c.errs = append(c.errs, err)
		return nil
	}
	x.size += celProgramSize + int64(len(expr))
	x.totalCost += program.MaxCost
	return program
}

// compileObjectExpression compiles an expression of an object, or returns the one compiled
// for an earlier object; nil when it has errors, which the compiler keeps for each object.
func (c *compiler) compileObjectExpression(expr string, want celparams.Result, path *field.Path) *celProgram {
	key := programKey{expr, want}
	if x := c.plan.cel; x != nil && x.bySource[key] != nil {
		return x.bySource[key]
	}
	program := c.compileExpression(expr, want, path)
	if program == nil {
		return nil
	}
	x := c.plan.cel
	if x.bySource == nil {
		x.bySource = map[programKey]*celProgram{}
	}
	p := &celProgram{Program: program, id: len(x.programs)}
	x.programs = append(x.programs, p)
	x.bySource[key] = p
	return p
}

// compileRules compiles the template's rules. OpenShift templates have none.
func (c *compiler) compileRules() {
	for i, r := range c.template.Rules {
		path := field.NewPath("rules").Index(i)
		param := -1
		if r.FieldPath != "" {
			if at, ok := c.plan.index[r.FieldPath]; ok {
				param = at
			} else {
				c.errs = append(c.errs, field.Invalid(path.Child("fieldPath"), r.FieldPath, "must name a parameter of the template"))
			}
		}
		if program := c.compileExpression(r.Rule, celparams.Bool, path.Child("rule")); program != nil {
			c.plan.cel.rules = append(c.plan.cel.rules, compiledRule{program: program, rule: r.Rule, message: r.Message, param: param})
		}
	}
}

// checkTotalCost refuses expressions whose estimated costs add up to more than a CRD's
// rules may.
func (c *compiler) checkTotalCost() {
	if x := c.plan.cel; x != nil && x.totalCost > celparams.MaxTotalEstimatedCost {
		c.errs = append(c.errs, field.Forbidden(field.NewPath("rules"), fmt.Sprintf(
			"the estimated costs of the template's expressions (rules, include-when, for-each) add up to %d, more than %d",
			x.totalCost, celparams.MaxTotalEstimatedCost)))
	}
}

// checkRules evaluates the rules with the request's values. valuesBad says some value broke
// its parameter's type or constraints: a rule that cannot be evaluated then says nothing
// more than that value's error.
func (p *Plan) checkRules(params *celparams.Params, values []string, valuesBad bool, fromSecret map[string]bool) field.ErrorList {
	var errs field.ErrorList
	for i := range p.cel.rules {
		r := &p.cel.rules[i]
		out, err := r.program.Eval(params)
		holds, isBool := false, false
		if err == nil {
			holds, isBool = out.Value().(bool)
		}
		switch {
		case err != nil && valuesBad:
		case err != nil:
			errs = append(errs, field.Invalid(field.NewPath("rules").Index(i), r.rule, "could not be evaluated: "+err.Error()))
		case !isBool:
			errs = append(errs, field.Invalid(field.NewPath("rules").Index(i), r.rule, fmt.Sprintf("must evaluate to a bool, not %v", out.Type())))
		case !holds:
			message := r.message
			if message == "" {
				message = "failed rule: " + r.rule
			}
			if r.param >= 0 {
				param := p.params[r.param].Parameter
				errs = append(errs, field.Invalid(field.NewPath("parameters").Index(r.param), shownValue(redact.Parameter(param, fromSecret[param.Name]), values[r.param]), message))
			} else {
				errs = append(errs, field.Invalid(field.NewPath("rules").Index(i), r.rule, message))
			}
		}
	}
	return errs
}
