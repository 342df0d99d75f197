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

package builtin

import (
	"stencil.dev/stencil/pkg/transform/transformtest"
	"testing"
)

func TestReplicaCountTransformer(t *testing.T) {
	transformtest.RunCases(t, testKinds, []transformtest.Case{{
		Name:   "by name, only workloads",
		Config: "{apiVersion: builtin, kind: ReplicaCountTransformer, replica: {name: web, count: 5}}",
		In: `
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
		Want: `
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
		Name:    "no match warns",
		Config:  "{kind: ReplicaCountTransformer, replica: {name: nope, count: 2}}",
		In:      "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 1}}",
		Want:    "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 1}}",
		Warning: "no object named",
	}, {
		Name:    "count must be a number",
		Config:  "{kind: ReplicaCountTransformer, replica: {name: web, count: three}}",
		WantErr: "transformers[0].replica.count",
	}, {
		Name:    "negative",
		Config:  "{kind: ReplicaCountTransformer, replica: {name: web, count: -1}}",
		WantErr: "transformers[0].replica.count",
	}})
}
