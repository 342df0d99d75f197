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

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Rollout says how a Template's Automatic instances move to a new revision of its content,
// wave by wave (docs/revisions.md). It is not part of the content: changing it makes no
// revision and does not make the writer the author.
type Rollout struct {
	// waves are how many instances run the new revision once each wave is done: a count (1)
	// or a percentage ("10%") of the Template's Automatic instances, rounded up, in increasing
	// order. After the last wave every instance moves. Instances move Ready ones first, then
	// the oldest, then by name.
	// +optional
	// +listType=atomic
	Waves []intstr.IntOrString `json:"waves,omitempty"`
	// gate is a CEL expression that must be true, once a wave's instances are all Ready, for
	// the next wave to start. Its variables: instances, a list of the wave's instances
	// ({name, namespace, labels, annotations, ready, revision, appliedHash, conditions: a map
	// of condition type to {status, reason, message}}), wave (from 1) and waves.
	// +optional
	Gate string `json:"gate,omitempty"`
	// timeout is how long a wave's instances have to run the new revision and turn Ready
	// before the rollout pauses; 10m when not set.
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// paused stops the rollout where it is (`stencil rollout pause`) until it is false again.
	// +optional
	Paused bool `json:"paused,omitempty"`
}

// TemplateStatus is what the controller observed of a Template's instances, written through
// templates/status.
type TemplateStatus struct {
	// rollout is the last rollout of a new revision to the Template's instances.
	// +optional
	Rollout *RolloutStatus `json:"rollout,omitempty"`
}

// RolloutPhase is where a rollout is.
// +enum
type RolloutPhase string

// The phases of a rollout.
const (
	// RolloutProgressing moves instances wave by wave.
	RolloutProgressing RolloutPhase = "Progressing"
	// RolloutPaused moves no instance: a wave failed, or the rollout was paused.
	RolloutPaused RolloutPhase = "Paused"
	// RolloutComplete has moved every Automatic instance.
	RolloutComplete RolloutPhase = "Complete"
)

// RolloutStatus is the progress of one rollout.
type RolloutStatus struct {
	// revision is the revision rolled out.
	Revision int64 `json:"revision"`
	// fromRevision is the revision the Template was at before.
	// +optional
	FromRevision int64 `json:"fromRevision,omitempty"`
	// phase is Progressing, Paused or Complete.
	Phase RolloutPhase `json:"phase"`
	// reason says why the rollout is in its phase, in one word (WaveTimeout, GateFailed,
	// PlanMismatch, PausedByUser, Complete, ...).
	// +optional
	Reason string `json:"reason,omitempty"`
	// message says it in a sentence.
	// +optional
	Message string `json:"message,omitempty"`
	// undo is true for a rollout `stencil rollout undo` started: every instance in one wave.
	// +optional
	Undo bool `json:"undo,omitempty"`
	// wave is the wave under way, from 1.
	// +optional
	Wave int32 `json:"wave,omitempty"`
	// waves is how many waves the rollout has.
	// +optional
	Waves int32 `json:"waves,omitempty"`
	// waveStartTime is when the wave under way started or was resumed.
	// +optional
	WaveStartTime *metav1.Time `json:"waveStartTime,omitempty"`
	// moved names the first 20 instances the wave under way moved (all of them are counted in
	// waveSize); each instance a rollout moved says so itself, in its annotation
	// templates.stencil.dev/rollout-moved.
	// +optional
	// +listType=atomic
	Moved []string `json:"moved,omitempty"`
	// movedCount counts the instances the rollout moved, over every wave.
	// +optional
	MovedCount int32 `json:"movedCount,omitempty"`
	// waveSize is how many instances the wave under way moved: the wave's instances, which the
	// gate sees.
	// +optional
	WaveSize int32 `json:"waveSize,omitempty"`
	// updated counts the Automatic instances that run revision and are Ready.
	// +optional
	Updated int32 `json:"updated,omitempty"`
	// total counts the Template's Automatic instances.
	// +optional
	Total int32 `json:"total,omitempty"`
	// failed are the first 20 instances that paused the rollout, and why.
	// +optional
	// +listType=atomic
	Failed []RolloutFailure `json:"failed,omitempty"`
	// failedCount counts the instances that paused the rollout.
	// +optional
	FailedCount int32 `json:"failedCount,omitempty"`
	// pauses counts the rollout's automatic pauses: `stencil rollout resume` names the one it
	// resumes in the templates.stencil.dev/rollout-resume annotation.
	// +optional
	Pauses int32 `json:"pauses,omitempty"`
	// planHash is the preview's plan hash the rollout checked, when the Template carries one
	// in the templates.stencil.dev/rollout-plan-hash annotation.
	// +optional
	PlanHash string `json:"planHash,omitempty"`
	// stalePlanHash is the plan hash the Template carries when an earlier rollout (or an undo)
	// already used it: this rollout does not check it. Set the annotation to a new preview's
	// plan to check this one.
	// +optional
	StalePlanHash string `json:"stalePlanHash,omitempty"`
}

// RolloutFailure is an instance that paused a rollout.
type RolloutFailure struct {
	// name is the instance's name.
	Name string `json:"name"`
	// reason says why, in one word (NotReady, Failed, GateFailed, ...).
	// +optional
	Reason string `json:"reason,omitempty"`
	// message says it in a sentence.
	// +optional
	Message string `json:"message,omitempty"`
}

// The annotations of a Template that steer its rollout; writing them needs update on the
// Template, as pause and resume do.
const (
	// AnnotationRolloutPlanHash carries a preview's planHash: the rollout of the Template's
	// next revision moves no instance while what it would apply differs from that plan.
	AnnotationRolloutPlanHash = "templates.stencil.dev/rollout-plan-hash"
	// AnnotationRolloutResume resumes the automatic pause "<revision>/<pauses>" of the status.
	AnnotationRolloutResume = "templates.stencil.dev/rollout-resume"
	// AnnotationRolloutUndo marks content written back by `stencil rollout undo`: the rollout
	// of a revision whose hash it holds moves every instance in one wave.
	AnnotationRolloutUndo = "templates.stencil.dev/rollout-undo"
	// AnnotationRolloutMoved on a TemplateInstance is "<revision>/<wave>/<template uid>": the
	// wave of its Template's rollout of that revision moved it. The server writes it (a
	// client's write keeps the stored value); the rollout's status only counts the instances it
	// moved.
	AnnotationRolloutMoved = "templates.stencil.dev/rollout-moved"
)
