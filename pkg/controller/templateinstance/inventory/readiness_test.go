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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestReady(t *testing.T) {
	cases := []struct {
		name, object string
		ready        bool
		why          string
	}{
		{"ConfigMap exists", `{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}`, true, ""},
		{"being deleted", `{apiVersion: v1, kind: ConfigMap, metadata: {name: a, deletionTimestamp: "2020-01-01T00:00:00Z"}}`, false, "being deleted"},
		{"Deployment without status", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: a, generation: 1}, spec: {replicas: 2}}`, false, "not observed"},
		{"Deployment rolling", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: a, generation: 1}, spec: {replicas: 2},
		  status: {observedGeneration: 1, replicas: 2, updatedReplicas: 1, readyReplicas: 2, availableReplicas: 2}}`, false, "updatedReplicas 1 of 2"},
		{"Deployment available", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: a, generation: 3}, spec: {replicas: 2},
		  status: {observedGeneration: 3, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2,
		           conditions: [{type: Available, status: "True"}]}}`, true, ""},
		{"Deployment old generation", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: a, generation: 4}, spec: {replicas: 1},
		  status: {observedGeneration: 3, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1,
		           conditions: [{type: Available, status: "True"}]}}`, false, "generation 4 not observed"},
		{"Deployment deadline", `{apiVersion: apps/v1, kind: Deployment, metadata: {name: a, generation: 1},
		  status: {observedGeneration: 1, conditions: [{type: Progressing, status: "False", reason: ProgressDeadlineExceeded}]}}`, false, "deadline"},
		{"StatefulSet revision", `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: a, generation: 1}, spec: {replicas: 1},
		  status: {observedGeneration: 1, readyReplicas: 1, updatedReplicas: 1, currentRevision: a-1, updateRevision: a-2}}`, false, "revision a-2"},
		{"StatefulSet ready", `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: a, generation: 1}, spec: {replicas: 1},
		  status: {observedGeneration: 1, readyReplicas: 1, updatedReplicas: 1, currentRevision: a-2, updateRevision: a-2}}`, true, ""},
		{"DaemonSet", `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: a, generation: 1},
		  status: {observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberReady: 2, numberAvailable: 2}}`, false, "numberReady 2 of 3"},
		{"Job running", `{apiVersion: batch/v1, kind: Job, metadata: {name: a}, status: {active: 1}}`, false, "not complete"},
		{"Job failed", `{apiVersion: batch/v1, kind: Job, metadata: {name: a}, status: {conditions: [{type: Failed, status: "True"}]}}`, false, "failed"},
		{"Job complete", `{apiVersion: batch/v1, kind: Job, metadata: {name: a}, status: {conditions: [{type: Complete, status: "True"}]}}`, true, ""},
		{"PVC pending", `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: a}, status: {phase: Pending}}`, false, "not bound"},
		{"PVC bound", `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: a}, status: {phase: Bound}}`, true, ""},
		{"custom resource not ready", `{apiVersion: example.com/v1, kind: Database, metadata: {name: a}, status: {conditions: [{type: Ready, status: "False"}]}}`, false, "Ready condition"},
		{"custom resource ready", `{apiVersion: example.com/v1, kind: Database, metadata: {name: a}, status: {conditions: [{type: Ready, status: "True"}]}}`, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// As the dynamic client decodes objects: integers are int64.
			data, err := yaml.YAMLToJSON([]byte(tc.object))
			if err != nil {
				t.Fatal(err)
			}
			obj := &unstructured.Unstructured{}
			if err := obj.UnmarshalJSON(data); err != nil {
				t.Fatal(err)
			}
			ready, why := Ready(obj)
			if ready != tc.ready || !strings.Contains(why, tc.why) {
				t.Fatalf("Ready = %v %q, want %v %q", ready, why, tc.ready, tc.why)
			}
		})
	}
}

func TestApplySetID(t *testing.T) {
	a, b := ApplySetID("demo", "shop"), ApplySetID("demo", "shop2")
	if a == b || !strings.HasPrefix(a, "applyset-") || !strings.HasSuffix(a, "-v1") || len(a) > 63 {
		t.Fatalf("ids %q %q", a, b)
	}
	if a != ApplySetID("demo", "shop") {
		t.Fatal("the id is not stable")
	}
}
