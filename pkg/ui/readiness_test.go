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
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestReadiness(t *testing.T) {
	cases := []struct {
		name, object string
		ready        bool
	}{
		{"a ConfigMap exists", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`, true},
		{"a Deployment rolled out", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},"spec":{"replicas":2},"status":{"observedGeneration":2,"readyReplicas":2}}`, true},
		{"a Deployment short of replicas", `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3},"status":{"readyReplicas":1}}`, false},
		{"a Deployment of the default one replica, none ready", `{"apiVersion":"apps/v1","kind":"Deployment","spec":{},"status":{}}`, false},
		{"a Deployment whose controller has not seen the change", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":3},"spec":{"replicas":1},"status":{"observedGeneration":2,"readyReplicas":1}}`, false},
		{"a StatefulSet ready", `{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"replicas":1},"status":{"readyReplicas":1}}`, true},
		{"a DaemonSet half ready", `{"apiVersion":"apps/v1","kind":"DaemonSet","status":{"desiredNumberScheduled":4,"numberReady":2}}`, false},
		{"a Job complete", `{"apiVersion":"batch/v1","kind":"Job","status":{"conditions":[{"type":"Complete","status":"True"}]}}`, true},
		{"a Job failed", `{"apiVersion":"batch/v1","kind":"Job","status":{"conditions":[{"type":"Failed","status":"True"}]}}`, false},
		{"a claim bound", `{"apiVersion":"v1","kind":"PersistentVolumeClaim","status":{"phase":"Bound"}}`, true},
		{"a claim pending", `{"apiVersion":"v1","kind":"PersistentVolumeClaim","status":{"phase":"Pending"}}`, false},
		{"a custom resource Ready", `{"apiVersion":"x.example/v1","kind":"Thing","metadata":{"name":"t"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`, true},
		{"a custom resource not Ready", `{"apiVersion":"x.example/v1","kind":"Thing","metadata":{"name":"t"},"status":{"conditions":[{"type":"Ready","status":"False"}]}}`, false},
		{"an object being deleted", `{"apiVersion":"v1","kind":"Service","metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z"}}`, false},
	}
	for _, c := range cases {
		// Decoded as the dynamic client decodes, integers as int64.
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON([]byte(c.object)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ready, why := Readiness(obj)
		if ready != c.ready {
			t.Errorf("%s: ready=%v (%s), want %v", c.name, ready, why, c.ready)
		}
		if !ready && why == "" {
			t.Errorf("%s: not ready without saying why", c.name)
		}
	}
}
