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

package v1alpha1

import "fmt"

// The reasons of a rollout's status (status.rollout.reason). They are the API's, not only the
// rollout controller's: clients such as `stencil rollout` read them to say what a pause is
// and how to resume it, without linking the controller.
const (
	RolloutReasonStarted      = "Started"
	RolloutReasonWaveStarted  = "WaveStarted"
	RolloutReasonComplete     = "Complete"
	RolloutReasonNoRollout    = "NoRollout"
	RolloutReasonPausedByUser = "PausedByUser"
	RolloutReasonResumed      = "Resumed"
	// RolloutReasonResumedPastGate: a resume of a pause its gate made; the wave's gate is not
	// evaluated again.
	RolloutReasonResumedPastGate = "ResumedPastGate"
	RolloutReasonWaveTimeout     = "WaveTimeout"
	RolloutReasonGateFailed      = "GateFailed"
	RolloutReasonGateError       = "GateError"
	RolloutReasonPlanMismatch    = "PlanMismatch"
)

// RolloutResumeToken is the value of templates.stencil.dev/rollout-resume that resumes the
// automatic pause st is in: "<revision>/<pauses>", so that a resume written for one pause never
// resumes a later one.
func RolloutResumeToken(st *RolloutStatus) string {
	return fmt.Sprintf("%d/%d", st.Revision, st.Pauses)
}
