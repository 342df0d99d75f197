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

package templates

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Rollout says how a Template's Automatic instances move to a new revision of its content.
type Rollout struct {
	// Waves are how many instances run the new revision once each wave is done: a count or a
	// percentage of the Template's Automatic instances, rounded up. After the last wave every
	// instance moves.
	Waves []intstr.IntOrString
	// Gate is a CEL expression over the wave's instances that must hold for the next wave.
	Gate string
	// Timeout is how long a wave's instances have to turn Ready; nil means DefaultRolloutTimeout.
	Timeout *metav1.Duration
	// Paused stops the rollout where it is until it is false again.
	Paused bool
}

// DefaultRolloutTimeout is a wave's timeout when the Template sets none.
const DefaultRolloutTimeout = 10 * time.Minute

// TemplateStatus is what the controller observed of a Template's instances.
type TemplateStatus struct {
	// Rollout is the last rollout of a new revision to the instances.
	Rollout *RolloutStatus
}

// RolloutPhase is where a rollout is.
type RolloutPhase string

// The phases of a rollout.
const (
	RolloutProgressing RolloutPhase = "Progressing"
	RolloutPaused      RolloutPhase = "Paused"
	RolloutComplete    RolloutPhase = "Complete"
)

// RolloutStatus is the progress of one rollout.
type RolloutStatus struct {
	// Revision is the revision rolled out.
	Revision int64
	// FromRevision is the revision the Template was at before.
	FromRevision int64
	// Phase is Progressing, Paused or Complete.
	Phase RolloutPhase
	// Reason says why in one word; Message in a sentence.
	Reason  string
	Message string
	// Undo is true for a rollout that `stencil rollout undo` started: one wave, every instance.
	Undo bool
	// Wave is the wave under way, from 1; Waves how many there are.
	Wave  int32
	Waves int32
	// WaveStartTime is when the wave under way started (or was resumed).
	WaveStartTime *metav1.Time
	// Moved names the first RolloutNamesShown instances the wave under way moved; the
	// instances themselves record that a rollout moved them (AnnotationRolloutMoved).
	Moved []string
	// MovedCount counts the instances the rollout moved, over every wave.
	MovedCount int32
	// WaveSize is how many instances the wave under way moved.
	WaveSize int32
	// Updated counts the instances that run Revision and are Ready; Total the Automatic ones.
	Updated int32
	Total   int32
	// Failed are the first RolloutNamesShown instances that paused the rollout, and why;
	// FailedCount counts them all.
	Failed      []RolloutFailure
	FailedCount int32
	// Pauses counts the rollout's automatic pauses; a resume names the one it resumes.
	Pauses int32
	// PlanHash is the preview's plan hash the rollout checked, when the Template carries one.
	PlanHash string
	// StalePlanHash is a plan hash the Template carries that an earlier rollout (or an undo)
	// already used: this rollout does not check it.
	StalePlanHash string
}

// RolloutNamesShown is how many instances a rollout's status names in moved and failed: the
// status of a Template with 10,000 instances stays far below what etcd stores in one object.
const RolloutNamesShown = 20

// RolloutFailure is an instance that paused a rollout.
type RolloutFailure struct {
	// Name is the instance's name.
	Name string
	// Reason and Message say why.
	Reason  string
	Message string
}
