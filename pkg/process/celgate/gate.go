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

// Package celgate compiles and evaluates a Template's rollout gate: a CEL expression over the
// instances of one wave that must be true for the next wave to start. The server compiles it
// when the Template is written (a 422 at rollout.gate otherwise); the controller evaluates it.
package celgate

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// MaxLength is the longest gate accepted, as a CRD's validation rule's message is bounded:
// a gate is a condition, not a program.
const MaxLength = 4096

// Condition is one condition of an instance as a gate sees it.
type Condition struct {
	Status, Reason, Message string
}

// Instance is what a gate sees of one instance of the wave.
type Instance struct {
	Name, Namespace     string
	Labels, Annotations map[string]string
	// Ready is the Ready condition's status, true when True.
	Ready bool
	// Revision is the revision the instance runs; AppliedHash the hash of what it applied.
	Revision    int64
	AppliedHash string
	// Conditions are the instance's conditions by type.
	Conditions map[string]Condition
}

// Gate is a compiled gate.
type Gate struct {
	program cel.Program
}

// env is made per compile: cel.NewEnv is cheap next to what a Template's write costs, and a
// gate is compiled once per write and once per wave.
func env() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("instances", cel.ListType(cel.MapType(cel.StringType, cel.DynType))),
		cel.Variable("wave", cel.IntType),
		cel.Variable("waves", cel.IntType),
		ext.Strings(),
	)
}

// Compile compiles expr; the error says what is wrong with the gate, in CEL's words.
func Compile(expr string) (*Gate, error) {
	if len(expr) > MaxLength {
		return nil, fmt.Errorf("the gate may be at most %d characters long, it has %d", MaxLength, len(expr))
	}
	e, err := env()
	if err != nil {
		return nil, err
	}
	ast, issues := e.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return nil, fmt.Errorf("the gate does not compile: %s", strings.TrimSpace(issues.Err().Error()))
	}
	if t := ast.OutputType(); !t.IsExactType(types.BoolType) && !t.IsExactType(types.DynType) {
		return nil, fmt.Errorf("the gate must be true or false, it is a %s", t)
	}
	program, err := e.Program(ast, cel.CostLimit(celconfig.PerCallLimit), cel.InterruptCheckFrequency(100))
	if err != nil {
		return nil, fmt.Errorf("the gate does not compile: %v", err)
	}
	return &Gate{program: program}, nil
}

// Eval says whether the gate holds for the instances of wave (from 1) of waves. An error
// (a missing member, the cost limit, a result that is no bool) is the gate's failure.
func (g *Gate) Eval(ctx context.Context, instances []Instance, wave, waves int) (bool, error) {
	list := make([]map[string]any, len(instances))
	for i, in := range instances {
		conditions := make(map[string]any, len(in.Conditions))
		for t, c := range in.Conditions {
			conditions[t] = map[string]any{"status": c.Status, "reason": c.Reason, "message": c.Message}
		}
		list[i] = map[string]any{
			"name": in.Name, "namespace": in.Namespace, "labels": orEmpty(in.Labels), "annotations": orEmpty(in.Annotations),
			"ready": in.Ready, "revision": in.Revision, "appliedHash": in.AppliedHash, "conditions": conditions,
		}
	}
	out, _, err := g.program.ContextEval(ctx, map[string]any{"instances": list, "wave": int64(wave), "waves": int64(waves)})
	if err != nil {
		return false, fmt.Errorf("the gate failed: %v", err)
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("the gate must be true or false, it gave %v", out.Value())
	}
	return b, nil
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
