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

func TestAnnotationsTransformer(t *testing.T) {
	transformtest.RunCases(t, testKinds, []transformtest.Case{{
		Name:   "metadata and pod templates",
		Config: "{apiVersion: builtin, kind: AnnotationsTransformer, annotations: {owner: team-a}}",
		In: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, annotations: {x: y}}
spec: {selector: {matchLabels: {a: b}}, template: {spec: {}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec: {template: {spec: {}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
`,
		Want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, annotations: {x: y, owner: team-a}}
spec: {selector: {matchLabels: {a: b}}, template: {metadata: {annotations: {owner: team-a}}, spec: {}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, annotations: {owner: team-a}}
spec: {template: {metadata: {annotations: {owner: team-a}}, spec: {}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, annotations: {owner: team-a}}
`,
	}, {
		Name:   "values are strings",
		Config: "{kind: AnnotationsTransformer, annotations: {n: '3'}}",
		In:     "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}",
		Want:   "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, annotations: {n: '3'}}}",
	}, {
		Name:    "annotation values must be strings",
		Config:  "{kind: AnnotationsTransformer, annotations: {n: 3}}",
		WantErr: "transformers[0].annotations",
	}, {
		Name:    "bad key",
		Config:  "{kind: AnnotationsTransformer, annotations: {'-bad': x}}",
		WantErr: "transformers[0].annotations[-bad]",
	}})
}
