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

// Package celparams compiles and evaluates CEL expressions over a template's parameters:
// rules, include-when and for-each. It uses the Kubernetes CEL environment and cost estimation
// of CustomResourceDefinitions' x-kubernetes-validations (k8s.io/apiserver/pkg/cel), with one
// variable, params, an object whose fields are the parameters in their types.
package celparams

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/library"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Variable is the name the parameters have in expressions.
const Variable = "params"

// The cost bounds of CRD validation rules (k8s.io/apiextensions-apiserver's
// StaticEstimatedCostLimit and StaticEstimatedCRDCostLimit): an expression whose estimated
// cost exceeds MaxEstimatedCost is refused, as are a template's expressions whose estimates
// add up to more than MaxTotalEstimatedCost. When evaluated, an expression stops at
// celconfig.PerCallLimit, as a CRD rule does.
const (
	MaxEstimatedCost      = 10_000_000
	MaxTotalEstimatedCost = 100_000_000
)

// Env compiles expressions over one template's parameters. It is made once per template
// compile, only for templates that have expressions, and is immutable.
type Env struct {
	env       *cel.Env
	estimator *library.CostEstimator
	params    []templates.Parameter
}

// NewEnv declares params for the parameters. Parameters with names CEL cannot select or types
// it does not know are left out (the template's other errors report them).
//
// The base environment, the Kubernetes library at the compatibility version (base.go), is made
// once per process; NewEnv extends it with params, as k8s.io/apiserver extends the
// NewExpressions environment of a CustomResourceDefinition's rules with self.
func NewEnv(params []templates.Parameter) (*Env, error) {
	root := paramsType(params)
	base := baseEnv()
	provider := apiservercel.NewDeclTypeProvider(root)
	// As k8s.io/apiserver's EnvSet.Extend does from 1.31 on.
	provider.SetRecognizeKeywordAsFieldName(true)
	opts, err := provider.EnvOptions(base.CELTypeProvider())
	if err != nil {
		return nil, err
	}
	env, err := base.Extend(append(opts, cel.Variable(Variable, root.CelType()))...)
	if err != nil {
		return nil, err
	}
	return &Env{env: env, estimator: &library.CostEstimator{SizeEstimator: &sizeEstimator{root: root}},
		params: params}, nil
}

// baseEnv is the environment expressions compile in before params is declared, made on first
// use: most commands compile no expressions.
var baseEnv = sync.OnceValue(func() *cel.Env {
	env, err := newBaseEnv()
	if err != nil {
		panic("celparams: the base CEL environment is misdeclared: " + err.Error())
	}
	return env
})

// Result is what an expression must yield.
type Result int

// The results Compile checks an expression's type against.
const (
	Bool Result = iota
	List
)

// Program is one compiled expression.
type Program struct {
	program cel.Program
	// Source is the expression.
	Source string
	// MaxCost is the estimated cost of the most expensive evaluation.
	MaxCost uint64
}

// Compile checks expr and compiles it; a problem is an error at path: the expression does
// not compile, yields another type than want, or may cost more than MaxEstimatedCost. An
// expression of type dyn (a json parameter of any shape) is checked when it is evaluated.
func (e *Env) Compile(expr string, want Result, path *field.Path) (*Program, *field.Error) {
	if expr == "" {
		return nil, field.Required(path, "a CEL expression")
	}
	ast, issues := e.env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return nil, field.Invalid(path, expr, "compilation failed: "+issues.String())
	}
	out := ast.OutputType()
	switch {
	case out.IsExactType(cel.DynType):
	case want == Bool && !out.IsExactType(cel.BoolType):
		return nil, field.Invalid(path, expr, "must evaluate to a bool, not "+out.String())
	case want == List && out.Kind() != types.ListKind:
		return nil, field.Invalid(path, expr, "must evaluate to a list, not "+out.String())
	}
	cost, err := e.env.EstimateCost(ast, e.estimator)
	if err != nil {
		return nil, field.Invalid(path, expr, "cost estimation failed: "+err.Error())
	}
	if cost.Max > MaxEstimatedCost {
		return nil, field.Forbidden(path, fmt.Sprintf("estimated cost %d exceeds the budget of one expression, %d, by a factor of %.1f: "+
			"bound what it iterates over (maxLength on strings, items with constraints on json values)",
			cost.Max, MaxEstimatedCost, float64(cost.Max)/float64(MaxEstimatedCost)))
	}
	program, err := e.env.Program(ast, cel.CostLimit(celconfig.PerCallLimit), cel.CostTracking(e.estimator),
		cel.InterruptCheckFrequency(celconfig.CheckFrequency))
	if err != nil {
		return nil, field.Invalid(path, expr, "program instantiation failed: "+err.Error())
	}
	return &Program{program: program, Source: expr, MaxCost: cost.Max}, nil
}

// Eval evaluates the program with the parameters' values (Env.Values).
func (p *Program) Eval(params *Params) (ref.Val, error) {
	out, _, err := p.program.Eval(params.activation)
	return out, err
}

// sizeEstimator bounds the size of what a path below params may hold, for the cost
// estimation, as CRD validation bounds a path below self.
type sizeEstimator struct {
	root *apiservercel.DeclType
}

// EstimateSize follows the path of a node through the declared types.
func (s *sizeEstimator) EstimateSize(node checker.AstNode) *checker.SizeEstimate {
	path := node.Path()
	if len(path) == 0 || path[0] != Variable {
		return nil
	}
	t := s.root
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			t = t.ElemType
		case "@keys":
			t = t.KeyType
		default:
			f, ok := t.Fields[name]
			if !ok {
				return nil
			}
			t = f.Type
		}
		if t == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.MaxElements)}
}

// EstimateCallCost leaves every call to the Kubernetes library's estimator.
func (*sizeEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
