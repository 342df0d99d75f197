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
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// MaxRolloutWaves is the most waves a rollout may have: more is a configuration mistake, and
// each wave is a step of the status.
const MaxRolloutWaves = 100

// MaxRolloutTimeout is the longest a wave may wait for its instances.
const MaxRolloutTimeout = 7 * 24 * time.Hour

// validateRollout checks a Template's rollout: waves are counts of at least 1 or percentages
// from 1% to 100%, each kind increasing, and the timeout is positive. The gate is compiled by
// the server (pkg/process/celgate), which knows CEL.
func validateRollout(r *templates.Rollout, fldPath *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var allErrs field.ErrorList
	wavesPath := fldPath.Child("waves")
	if len(r.Waves) > MaxRolloutWaves {
		allErrs = append(allErrs, field.TooMany(wavesPath, len(r.Waves), MaxRolloutWaves))
	}
	lastCount, lastPercent := 0, 0
	for i, w := range r.Waves {
		p := wavesPath.Index(i)
		switch w.Type {
		case intstr.Int:
			n := int(w.IntVal)
			switch {
			case n < 1:
				allErrs = append(allErrs, field.Invalid(p, w.IntVal, "a wave is a number of instances of at least 1, or a percentage such as \"10%\""))
			case n <= lastCount:
				allErrs = append(allErrs, field.Invalid(p, w.IntVal, "each wave must hold more instances than the one before: the waves count the instances moved so far"))
			default:
				lastCount = n
			}
		default:
			n, ok := percent(w.StrVal)
			switch {
			case !ok:
				allErrs = append(allErrs, field.Invalid(p, w.StrVal, "a wave is a number of instances, or a percentage from \"1%\" to \"100%\""))
			case n <= lastPercent:
				allErrs = append(allErrs, field.Invalid(p, w.StrVal, "each wave must hold more instances than the one before: the waves count the instances moved so far"))
			default:
				lastPercent = n
			}
		}
	}
	if t := r.Timeout; t != nil && (t.Duration <= 0 || t.Duration > MaxRolloutTimeout) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("timeout"), t.Duration.String(), "must be more than 0s and at most 168h"))
	}
	return allErrs
}

// percent reads "N%" with N from 1 to 100.
func percent(s string) (int, bool) {
	digits, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || n > 100 {
		return 0, false
	}
	return n, true
}
