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

package ui

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Readiness says whether a live object is ready, with kstatus's rules for the common kinds:
// workloads rolled out and available, a Job complete, a claim bound, a Ready condition true
// for other kinds that have one, and existence for kinds without status. The message says
// what is awaited.
func Readiness(obj *unstructured.Unstructured) (bool, string) {
	if obj.GetDeletionTimestamp() != nil {
		return false, "being deleted"
	}
	if generation := obj.GetGeneration(); generation > 0 {
		if observed, found := nested(obj, "status", "observedGeneration"); found && observed < generation {
			return false, "the controller has not seen the latest change yet"
		}
	}
	switch obj.GroupVersionKind().GroupKind().String() {
	case "Deployment.apps", "StatefulSet.apps", "ReplicaSet.apps", "DeploymentConfig.apps.openshift.io":
		return replicasReady(obj, "readyReplicas")
	case "DaemonSet.apps":
		desired, _ := nested(obj, "status", "desiredNumberScheduled")
		ready, _ := nested(obj, "status", "numberReady")
		return ready >= desired, fmt.Sprintf("%d of %d pods ready", ready, desired)
	case "Job.batch":
		if condition(obj, "Complete") == "True" {
			return true, ""
		}
		if condition(obj, "Failed") == "True" {
			return false, "failed"
		}
		return false, "running"
	case "PersistentVolumeClaim":
		phase, _, _ := unstructured.NestedString(obj.Object, "status", "phase")
		return phase == "Bound", "waiting to be bound"
	case "Pod":
		return condition(obj, "Ready") == "True", "pod not ready"
	}
	switch condition(obj, "Ready") {
	case "True", "":
		return true, ""
	default:
		return false, "Ready condition is not true"
	}
}

// replicasReady compares the ready replicas with the wanted ones (one when unset).
func replicasReady(obj *unstructured.Unstructured, readyField string) (bool, string) {
	want, found := nested(obj, "spec", "replicas")
	if !found {
		want = 1
	}
	ready, _ := nested(obj, "status", readyField)
	if ready >= want {
		return true, ""
	}
	return false, fmt.Sprintf("%d of %d replicas ready", ready, want)
}

// nested reads an integer field.
func nested(obj *unstructured.Unstructured, fields ...string) (int64, bool) {
	v, found, err := unstructured.NestedFieldNoCopy(obj.Object, fields...)
	if err != nil || !found {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}

// condition returns the status of the named condition, or "" when there is none.
func condition(obj *unstructured.Unstructured, conditionType string) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == conditionType {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}
