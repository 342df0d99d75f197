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

package celparams

import (
	"slices"
	"testing"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
)

// TestBaseEnvironment checks that the environment of base.go is the one k8s.io/apiserver
// gives CustomResourceDefinitions' new rules at its default compatibility version: the same
// functions with the same overloads, and the same macros. When the Kubernetes libraries move to
// a new compatibility version this fails, naming what changed, and base.go follows.
func TestBaseEnvironment(t *testing.T) {
	compatibility := environment.DefaultCompatibilityVersion()
	if want := version.MajorMinor(1, compatibilityMinor); !compatibility.EqualTo(want) {
		t.Fatalf("k8s.io/apiserver's default CEL compatibility version is %s, base.go declares 1.%d", compatibility, compatibilityMinor)
	}
	kube := environment.MustBaseEnvSet(compatibility).NewExpressionsEnv()
	ours, err := newBaseEnv()
	if err != nil {
		t.Fatal(err)
	}
	if want, got := overloads(kube), overloads(ours); !slices.Equal(want, got) {
		t.Errorf("overloads differ:\nonly Kubernetes': %v\nonly ours: %v", minus(want, got), minus(got, want))
	}
	if want, got := macros(kube), macros(ours); !slices.Equal(want, got) {
		t.Errorf("macros differ: Kubernetes %v, ours %v", want, got)
	}
	// The same expressions compile alike and cost alike: a sample of the libraries and the
	// language settings (optional types, cross-type comparison, literal validation).
	for _, expr := range []string{
		`"a,b".split(",").size() == 2`,
		`quantity("1Gi").isGreaterThan(quantity("1Mi"))`,
		`isURL("https://example.com") && url("https://example.com").getHost() == "example.com"`,
		`ip("10.0.0.1").family() == 4 && cidr("10.0.0.0/8").containsIP(ip("10.0.0.1"))`,
		`[1, 2, 3].all(i, x, x > i)`,
		`sets.contains([1, 2], [1])`,
		`optional.of(1).hasValue() && 1 < 2.0`,
		`semver("1.2.3").isLessThan(semver("1.3.0"))`,
		`format.dns1123Label().validate("ok").hasValue() == false`,
		`[3, 1].sort() == [1, 3] && [1, [2]].flatten() == [1, 2]`,
		`"abc".matches("^a") && ["a"].isSorted()`,
		`duration("1h") > duration("1m")`,
		`has({"a": 1}.a) && {"a": 1}.a == 1`,
	} {
		kubeAST, kubeIssues := kube.Compile(expr)
		ourAST, ourIssues := ours.Compile(expr)
		if (kubeIssues.Err() == nil) != (ourIssues.Err() == nil) {
			t.Errorf("%s: Kubernetes %v, ours %v", expr, kubeIssues.Err(), ourIssues.Err())
			continue
		}
		if kubeIssues.Err() != nil {
			continue
		}
		kubeCost, err1 := kube.EstimateCost(kubeAST, &sizeEstimator{})
		ourCost, err2 := ours.EstimateCost(ourAST, &sizeEstimator{})
		if err1 != nil || err2 != nil || kubeCost != ourCost {
			t.Errorf("%s: cost Kubernetes %+v (%v), ours %+v (%v)", expr, kubeCost, err1, ourCost, err2)
		}
		// Evaluated, the same value at the same actual cost (the program options).
		kubeOut, kubeActual := evaluate(t, kube, kubeAST)
		ourOut, ourActual := evaluate(t, ours, ourAST)
		if kubeOut != ourOut || kubeActual != ourActual {
			t.Errorf("%s: Kubernetes %v at cost %d, ours %v at cost %d", expr, kubeOut, kubeActual, ourOut, ourActual)
		}
	}
	for _, expr := range []string{`duration("1x") > duration("1m")`, `[1, "a"]`, `"a".matches("(")`} {
		if _, issues := ours.Compile(expr); issues.Err() == nil {
			t.Errorf("%s compiles: the literal validators are missing", expr)
		}
	}
}

// evaluate runs ast as the environment's programs run, giving its value and actual cost.
func evaluate(t *testing.T, env *cel.Env, ast *cel.Ast) (any, uint64) {
	t.Helper()
	program, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	out, details, err := program.Eval(cel.NoVars())
	if err != nil {
		t.Fatal(err)
	}
	if details == nil || details.ActualCost() == nil {
		t.Fatal("the program tracks no cost")
	}
	return out.Value(), *details.ActualCost()
}

// overloads are the environment's function overloads, as name/overload id, sorted.
func overloads(env *cel.Env) []string {
	var out []string
	for name, fn := range env.Functions() {
		for _, o := range fn.OverloadDecls() {
			out = append(out, name+"/"+o.ID())
		}
	}
	slices.Sort(out)
	return out
}

func macros(env *cel.Env) []string {
	var out []string
	for _, m := range env.Macros() {
		out = append(out, m.MacroKey())
	}
	slices.Sort(out)
	return out
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			out = append(out, s)
		}
	}
	return out
}
