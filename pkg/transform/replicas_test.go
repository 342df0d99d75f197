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

package transform

import "testing"

func TestReplicaCountTransformer(t *testing.T) {
	runCases(t, []transformCase{{
		name:   "by name, only workloads",
		config: "{apiVersion: builtin, kind: ReplicaCountTransformer, replica: {name: web, count: 5}}",
		in: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 1}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec: {}
---
apiVersion: v1
kind: Service
metadata: {name: web}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-2}
spec: {replicas: 1}
`,
		want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 5}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec: {replicas: 5}
---
apiVersion: v1
kind: Service
metadata: {name: web}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-2}
spec: {replicas: 1}
`,
	}, {
		name:    "no match warns",
		config:  "{kind: ReplicaCountTransformer, replica: {name: nope, count: 2}}",
		in:      "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 1}}",
		want:    "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 1}}",
		warning: "no object named",
	}, {
		name:    "count must be a number",
		config:  "{kind: ReplicaCountTransformer, replica: {name: web, count: three}}",
		wantErr: "transformers[0].replica.count",
	}, {
		name:    "negative",
		config:  "{kind: ReplicaCountTransformer, replica: {name: web, count: -1}}",
		wantErr: "transformers[0].replica.count",
	}})
}
