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
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/library"
)

// compatibilityMinor is the Kubernetes minor version (1.x) whose CEL library expressions may
// use: the NewExpressions environment of k8s.io/apiserver's cel/environment at its default
// compatibility version (1.36 for the 1.37 libraries linked here), so that an expression valid
// in a template is valid in a CustomResourceDefinition's rule of the same cluster, and back.
const compatibilityMinor = 36

// baseOptions are that environment's languages settings and libraries, declared here instead
// of through cel/environment: that package reads the compatibility version from
// component-base's feature gates and version registry, which link Prometheus, OpenTelemetry
// and the metrics registry into every process that processes a template (about 3.5 MB of
// resident memory and 1.5 ms of initialisation in `stencil`, issue 36). TestBaseEnvironment
// keeps the two the same: same functions, overloads and macros.
func baseOptions() ([]cel.EnvOption, []cel.ProgramOption) {
	env := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		// has() costs nothing, as Kubernetes has estimated it since cel-go v0.17.7.
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		library.URLs(),
		library.Regex(),
		// Lists version 0 until 1.37, when version 1 replaced it.
		library.Lists(library.ListsVersion(0)),
		library.Authz(),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		library.Quantity(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		library.IP(),
		library.CIDR(),
		library.Format(),
		library.AuthzSelectors(),
		ext.TwoVarComprehensions(),
		library.SemverLib(library.SemverVersion(1)),
		ext.Lists(ext.ListsVersion(3)),
	}
	program := []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(celconfig.PerCallLimit),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		cel.CostTracking(&library.CostEstimator{}),
	}
	return env, program
}

// baseLibrary carries baseOptions' program options to every program of the environment, as a
// cel.Lib does.
type baseLibrary struct {
	env     []cel.EnvOption
	program []cel.ProgramOption
}

func (l baseLibrary) CompileOptions() []cel.EnvOption     { return l.env }
func (l baseLibrary) ProgramOptions() []cel.ProgramOption { return l.program }

// newBaseEnv is the environment expressions compile in before params is declared.
func newBaseEnv() (*cel.Env, error) {
	env, program := baseOptions()
	return cel.NewEnv(cel.Lib(baseLibrary{env: env, program: program}))
}
