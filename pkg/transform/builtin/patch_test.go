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

// patchObjects are two Deployments and a Service for the patch tests.
const patchObjects = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: app1-web, labels: {env: dev}, annotations: {team: a}}
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: main, image: web, ports: [{containerPort: 80}]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app10, labels: {env: prod}}
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: main, image: web}]
---
apiVersion: v1
kind: Service
metadata: {name: app1-web, labels: {env: dev}}
spec: {ports: [{port: 80}]}
`

func TestPatchTransformer(t *testing.T) {
	transformtest.RunCases(t, testKinds, []transformtest.Case{{
		Name: "one field for all Deployments, name-less patch",
		Config: `
apiVersion: builtin
kind: PatchTransformer
target: {kind: Deployment}
patch: |
  spec:
    replicas: 3
`,
		In: patchObjects,
		Want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: app1-web, labels: {env: dev}, annotations: {team: a}}
spec:
  replicas: 3
  template:
    spec:
      containers: [{name: main, image: web, ports: [{containerPort: 80}]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app10, labels: {env: prod}}
spec:
  replicas: 3
  template:
    spec:
      containers: [{name: main, image: web}]
---
apiVersion: v1
kind: Service
metadata: {name: app1-web, labels: {env: dev}}
spec: {ports: [{port: 80}]}
`,
	}, {
		Name: "sidecar by name regex and label, containers merged by name",
		Config: `
kind: PatchTransformer
target: {group: apps, kind: Deployment, name: app1-.*, labelSelector: env=dev}
patch: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: ignored}
  spec:
    template:
      spec:
        containers:
        - {name: main, ports: [{containerPort: 8080}]}
        - {name: sidecar, image: proxy}
`,
		In: patchObjects,
		Want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: app1-web, labels: {env: dev}, annotations: {team: a}}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - {name: main, image: web, ports: [{containerPort: 8080}, {containerPort: 80}]}
      - {name: sidecar, image: proxy}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app10, labels: {env: prod}}
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: main, image: web}]
---
apiVersion: v1
kind: Service
metadata: {name: app1-web, labels: {env: dev}}
spec: {ports: [{port: 80}]}
`,
	}, {
		Name: "JSON patch by annotation selector",
		Config: `
kind: PatchTransformer
target: {annotationSelector: team=a}
patch: '[{"op": "replace", "path": "/spec/replicas", "value": 7}, {"op": "add", "path": "/metadata/labels/patched", "value": "yes"}]'
`,
		In: patchObjects,
		Want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: app1-web, labels: {env: dev, patched: "yes"}, annotations: {team: a}}
spec:
  replicas: 7
  template:
    spec:
      containers: [{name: main, image: web, ports: [{containerPort: 80}]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app10, labels: {env: prod}}
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: main, image: web}]
---
apiVersion: v1
kind: Service
metadata: {name: app1-web, labels: {env: dev}}
spec: {ports: [{port: 80}]}
`,
	}, {
		Name:    "inline JSON patch as YAML list, anchored name",
		Config:  "{kind: PatchTransformer, target: {name: app1}, patch: [{op: remove, path: /spec}]}",
		In:      "{apiVersion: v1, kind: Service, metadata: {name: app10}, spec: {}}",
		Want:    "{apiVersion: v1, kind: Service, metadata: {name: app10}, spec: {}}",
		Warning: "matches no object",
	}, {
		Name:   "delete every match",
		Config: "{kind: PatchTransformer, target: {labelSelector: env=dev}, patch: {$patch: delete}}",
		In:     patchObjects,
		Want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: app10, labels: {env: prod}}
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: main, image: web}]
`,
	}, {
		Name: "without target, by the patch's own kind and name; list directives",
		Config: `
kind: PatchTransformer
patch: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: app10}
  spec:
    template:
      spec:
        containers:
        - {name: main, $patch: delete}
        - {name: other, image: x}
`,
		In:   "{apiVersion: apps/v1, kind: Deployment, metadata: {name: app10}, spec: {template: {spec: {containers: [{name: main, image: web}]}}}}\n---\n{apiVersion: apps/v1, kind: Deployment, metadata: {name: app1}, spec: {}}",
		Want: "{apiVersion: apps/v1, kind: Deployment, metadata: {name: app10}, spec: {template: {spec: {containers: [{name: other, image: x}]}}}}\n---\n{apiVersion: apps/v1, kind: Deployment, metadata: {name: app1}, spec: {}}",
	}, {
		Name:    "each document without target that matches nothing warns",
		Config:  "{kind: PatchTransformer, patch: \"{kind: ConfigMap, metadata: {name: a}, data: {x: '1'}}\\n---\\n{kind: ConfigMap, metadata: {name: b}, data: {x: '1'}}\"}",
		In:      "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}",
		Want:    "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {x: '1'}}",
		Warning: "patch document 1 matches no object (ConfigMap b)",
	}, {
		Name:   "custom resources get a JSON merge patch; $patch: replace honoured",
		Config: "{kind: PatchTransformer, target: {kind: Foo}, patch: {spec: {items: [c], drop: null, sub: {$patch: replace, only: 1}, big: 123456789012345678901234567890}}}",
		In:     "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {items: [a, b], drop: x, keep: y, sub: {a: 1, b: 2}}}",
		Want:   "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {items: [c], keep: y, sub: {only: 1}, big: 123456789012345678901234567890}}",
	}, {
		Name: "name change follows references",
		Config: `
kind: PatchTransformer
target: {kind: ConfigMap, name: cfg}
options: {allowNameChange: true}
patch: {metadata: {name: renamed}}
`,
		In:   "{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}}\n---\n{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {volumes: [{name: v, configMap: {name: cfg}}]}}",
		Want: "{apiVersion: v1, kind: ConfigMap, metadata: {name: renamed}}\n---\n{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {volumes: [{name: v, configMap: {name: renamed}}]}}",
	}, {
		Name:   "the target keeps name and namespace by default",
		Config: "{kind: PatchTransformer, target: {kind: ConfigMap}, patch: {metadata: {name: x, namespace: y, labels: {a: b}}}}",
		In:     "{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}}",
		Want:   "{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg, labels: {a: b}}}",
	}, {
		Name:    "failing JSON patch",
		Config:  "{kind: PatchTransformer, target: {kind: Service}, patch: [{op: test, path: /spec/type, value: NodePort}]}",
		In:      "{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {type: ClusterIP}}",
		WantErr: "patching v1 Service s",
	}, {
		Name:    "JSON patch needs a target",
		Config:  "{kind: PatchTransformer, patch: '[{\"op\": \"remove\", \"path\": \"/spec\"}]'}",
		WantErr: "transformers[0].target",
	}, {
		Name:    "bad regex",
		Config:  "{kind: PatchTransformer, target: {name: 'app-(', kind: Deployment}, patch: {spec: {}}}",
		WantErr: "transformers[0].target.name",
	}, {
		Name:    "bad label selector",
		Config:  "{kind: PatchTransformer, target: {labelSelector: 'a in b'}, patch: {spec: {}}}",
		WantErr: "transformers[0].target.labelSelector",
	}, {
		Name:    "unparseable patch",
		Config:  "{kind: PatchTransformer, target: {kind: Deployment}, patch: 'spec: [unclosed'}",
		WantErr: "transformers[0].patch",
	}, {
		Name:    "bad operation",
		Config:  "{kind: PatchTransformer, target: {kind: Deployment}, patch: [{op: frobnicate, path: /x}]}",
		WantErr: "frobnicate",
	}, {
		Name:    "type mismatch",
		Config:  "{kind: PatchTransformer, type: JSON6902, target: {kind: Deployment}, patch: {spec: {}}}",
		WantErr: "must be a list of operations",
	}, {
		Name:    "no files",
		Config:  "{kind: PatchTransformer, path: patch.yaml}",
		WantErr: "transformers[0].path",
	}, {
		Name:    "SMP without target needs kind and name",
		Config:  "{kind: PatchTransformer, patch: {spec: {replicas: 2}}}",
		WantErr: "transformers[0].target",
	}})
}
