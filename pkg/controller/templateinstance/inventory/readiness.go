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

package inventory

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Ready judges one live object by kstatus-like rules and says, when it is not ready, why:
//   - being deleted: not ready;
//   - status.observedGeneration behind metadata.generation: not ready (not yet seen);
//   - Deployment: every replica updated, ready and available, and Available=True;
//     ProgressDeadlineExceeded says so;
//   - StatefulSet: every replica ready and updated, and the current revision the update one;
//   - DaemonSet: every scheduled pod updated, ready and available;
//   - Job: Complete=True (Failed=True says it failed);
//   - PersistentVolumeClaim: Bound; Pod: Ready=True, or Succeeded;
//   - any other kind: its Ready condition when it has one, else ready once it exists.
func Ready(u *unstructured.Unstructured) (bool, string) {
	if u.GetDeletionTimestamp() != nil {
		return false, "being deleted"
	}
	if observed, ok, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration"); ok && observed < u.GetGeneration() {
		return false, fmt.Sprintf("generation %d not observed yet (%d)", u.GetGeneration(), observed)
	}
	gk := u.GroupVersionKind().GroupKind()
	switch {
	case gk.Group == "apps" && gk.Kind == "Deployment":
		return deploymentReady(u)
	case gk.Group == "apps" && gk.Kind == "StatefulSet":
		return statefulSetReady(u)
	case gk.Group == "apps" && gk.Kind == "DaemonSet":
		return daemonSetReady(u)
	case gk.Group == "batch" && gk.Kind == "Job":
		if condition(u, "Complete") == "True" {
			return true, ""
		}
		if condition(u, "Failed") == "True" {
			return false, "failed"
		}
		return false, "not complete"
	case gk.Group == "" && gk.Kind == "PersistentVolumeClaim":
		if phase, _, _ := unstructured.NestedString(u.Object, "status", "phase"); phase != "Bound" {
			return false, "not bound"
		}
		return true, ""
	case gk.Group == "" && gk.Kind == "Pod":
		if phase, _, _ := unstructured.NestedString(u.Object, "status", "phase"); phase == "Succeeded" || condition(u, "Ready") == "True" {
			return true, ""
		}
		return false, "not ready"
	}
	switch condition(u, "Ready") {
	case "", "True":
		return true, ""
	default:
		return false, "Ready condition is not True"
	}
}

func deploymentReady(u *unstructured.Unstructured) (bool, string) {
	if hasGenerationNotObserved(u) {
		return false, "not observed yet"
	}
	if reason := conditionReason(u, "Progressing"); reason == "ProgressDeadlineExceeded" {
		return false, "progress deadline exceeded"
	}
	want := replicas(u)
	for _, field := range []string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas"} {
		if got := statusInt(u, field); got != want {
			return false, fmt.Sprintf("%s %d of %d", field, got, want)
		}
	}
	if condition(u, "Available") != "True" {
		return false, "not Available"
	}
	return true, ""
}

func statefulSetReady(u *unstructured.Unstructured) (bool, string) {
	if hasGenerationNotObserved(u) {
		return false, "not observed yet"
	}
	want := replicas(u)
	for _, field := range []string{"readyReplicas", "updatedReplicas"} {
		if strategy, _, _ := unstructured.NestedString(u.Object, "spec", "updateStrategy", "type"); field == "updatedReplicas" && strategy == "OnDelete" {
			continue
		}
		if got := statusInt(u, field); got != want {
			return false, fmt.Sprintf("%s %d of %d", field, got, want)
		}
	}
	current, _, _ := unstructured.NestedString(u.Object, "status", "currentRevision")
	update, _, _ := unstructured.NestedString(u.Object, "status", "updateRevision")
	if update != "" && current != update {
		return false, "revision " + update + " not rolled out"
	}
	return true, ""
}

func daemonSetReady(u *unstructured.Unstructured) (bool, string) {
	if hasGenerationNotObserved(u) {
		return false, "not observed yet"
	}
	want := statusInt(u, "desiredNumberScheduled")
	for _, field := range []string{"updatedNumberScheduled", "numberReady", "numberAvailable"} {
		if got := statusInt(u, field); got != want {
			return false, fmt.Sprintf("%s %d of %d", field, got, want)
		}
	}
	return true, ""
}

// hasGenerationNotObserved is true when a workload's controller has not written its status
// for this generation, or no status at all.
func hasGenerationNotObserved(u *unstructured.Unstructured) bool {
	observed, ok, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	return !ok || observed < u.GetGeneration()
}

func replicas(u *unstructured.Unstructured) int64 {
	if n, ok, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); ok {
		return n
	}
	return 1
}

func statusInt(u *unstructured.Unstructured, field string) int64 {
	n, _, _ := unstructured.NestedInt64(u.Object, "status", field)
	return n
}

// condition is the status of a condition of status.conditions, "" when there is none.
func condition(u *unstructured.Unstructured, conditionType string) string {
	c := findCondition(u, conditionType)
	if c == nil {
		return ""
	}
	s, _ := c["status"].(string)
	return s
}

func conditionReason(u *unstructured.Unstructured, conditionType string) string {
	c := findCondition(u, conditionType)
	if c == nil {
		return ""
	}
	s, _ := c["reason"].(string)
	return s
}

func findCondition(u *unstructured.Unstructured, conditionType string) map[string]interface{} {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]interface{}); ok && m["type"] == conditionType {
			return m
		}
	}
	return nil
}
