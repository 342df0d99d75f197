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

func TestAnnotationsTransformer(t *testing.T) {
	runCases(t, []transformCase{{
		name:   "metadata and pod templates",
		config: "{apiVersion: builtin, kind: AnnotationsTransformer, annotations: {owner: team-a}}",
		in: `
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
		want: `
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
		name:   "values are strings",
		config: "{kind: AnnotationsTransformer, annotations: {n: '3'}}",
		in:     "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}",
		want:   "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, annotations: {n: '3'}}}",
	}, {
		name:    "annotation values must be strings",
		config:  "{kind: AnnotationsTransformer, annotations: {n: 3}}",
		wantErr: "transformers[0].annotations",
	}, {
		name:    "bad key",
		config:  "{kind: AnnotationsTransformer, annotations: {'-bad': x}}",
		wantErr: "transformers[0].annotations[-bad]",
	}})
}
