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
	runCases(t, []transformCase{{
		name: "one field for all Deployments, name-less patch",
		config: `
apiVersion: builtin
kind: PatchTransformer
target: {kind: Deployment}
patch: |
  spec:
    replicas: 3
`,
		in: patchObjects,
		want: `
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
		name: "sidecar by name regex and label, containers merged by name",
		config: `
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
		in: patchObjects,
		want: `
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
		name: "JSON patch by annotation selector",
		config: `
kind: PatchTransformer
target: {annotationSelector: team=a}
patch: '[{"op": "replace", "path": "/spec/replicas", "value": 7}, {"op": "add", "path": "/metadata/labels/patched", "value": "yes"}]'
`,
		in: patchObjects,
		want: `
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
		name:    "inline JSON patch as YAML list, anchored name",
		config:  "{kind: PatchTransformer, target: {name: app1}, patch: [{op: remove, path: /spec}]}",
		in:      "{apiVersion: v1, kind: Service, metadata: {name: app10}, spec: {}}",
		want:    "{apiVersion: v1, kind: Service, metadata: {name: app10}, spec: {}}",
		warning: "matches no object",
	}, {
		name:   "delete every match",
		config: "{kind: PatchTransformer, target: {labelSelector: env=dev}, patch: {$patch: delete}}",
		in:     patchObjects,
		want: `
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
		name: "without target, by the patch's own kind and name; list directives",
		config: `
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
		in:   "{apiVersion: apps/v1, kind: Deployment, metadata: {name: app10}, spec: {template: {spec: {containers: [{name: main, image: web}]}}}}\n---\n{apiVersion: apps/v1, kind: Deployment, metadata: {name: app1}, spec: {}}",
		want: "{apiVersion: apps/v1, kind: Deployment, metadata: {name: app10}, spec: {template: {spec: {containers: [{name: other, image: x}]}}}}\n---\n{apiVersion: apps/v1, kind: Deployment, metadata: {name: app1}, spec: {}}",
	}, {
		name:    "each document without target that matches nothing warns",
		config:  "{kind: PatchTransformer, patch: \"{kind: ConfigMap, metadata: {name: a}, data: {x: '1'}}\\n---\\n{kind: ConfigMap, metadata: {name: b}, data: {x: '1'}}\"}",
		in:      "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}",
		want:    "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {x: '1'}}",
		warning: "patch document 1 matches no object (ConfigMap b)",
	}, {
		name:   "custom resources get a JSON merge patch; $patch: replace honoured",
		config: "{kind: PatchTransformer, target: {kind: Foo}, patch: {spec: {items: [c], drop: null, sub: {$patch: replace, only: 1}, big: 123456789012345678901234567890}}}",
		in:     "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {items: [a, b], drop: x, keep: y, sub: {a: 1, b: 2}}}",
		want:   "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {items: [c], keep: y, sub: {only: 1}, big: 123456789012345678901234567890}}",
	}, {
		name: "name change follows references",
		config: `
kind: PatchTransformer
target: {kind: ConfigMap, name: cfg}
options: {allowNameChange: true}
patch: {metadata: {name: renamed}}
`,
		in:   "{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}}\n---\n{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {volumes: [{name: v, configMap: {name: cfg}}]}}",
		want: "{apiVersion: v1, kind: ConfigMap, metadata: {name: renamed}}\n---\n{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {volumes: [{name: v, configMap: {name: renamed}}]}}",
	}, {
		name:   "the target keeps name and namespace by default",
		config: "{kind: PatchTransformer, target: {kind: ConfigMap}, patch: {metadata: {name: x, namespace: y, labels: {a: b}}}}",
		in:     "{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}}",
		want:   "{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg, labels: {a: b}}}",
	}, {
		name:    "failing JSON patch",
		config:  "{kind: PatchTransformer, target: {kind: Service}, patch: [{op: test, path: /spec/type, value: NodePort}]}",
		in:      "{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {type: ClusterIP}}",
		wantErr: "patching v1 Service s",
	}, {
		name:    "JSON patch needs a target",
		config:  "{kind: PatchTransformer, patch: '[{\"op\": \"remove\", \"path\": \"/spec\"}]'}",
		wantErr: "transformers[0].target",
	}, {
		name:    "bad regex",
		config:  "{kind: PatchTransformer, target: {name: 'app-(', kind: Deployment}, patch: {spec: {}}}",
		wantErr: "transformers[0].target.name",
	}, {
		name:    "bad label selector",
		config:  "{kind: PatchTransformer, target: {labelSelector: 'a in b'}, patch: {spec: {}}}",
		wantErr: "transformers[0].target.labelSelector",
	}, {
		name:    "unparseable patch",
		config:  "{kind: PatchTransformer, target: {kind: Deployment}, patch: 'spec: [unclosed'}",
		wantErr: "transformers[0].patch",
	}, {
		name:    "bad operation",
		config:  "{kind: PatchTransformer, target: {kind: Deployment}, patch: [{op: frobnicate, path: /x}]}",
		wantErr: "frobnicate",
	}, {
		name:    "type mismatch",
		config:  "{kind: PatchTransformer, type: JSON6902, target: {kind: Deployment}, patch: {spec: {}}}",
		wantErr: "must be a list of operations",
	}, {
		name:    "no files",
		config:  "{kind: PatchTransformer, path: patch.yaml}",
		wantErr: "transformers[0].path",
	}, {
		name:    "SMP without target needs kind and name",
		config:  "{kind: PatchTransformer, patch: {spec: {replicas: 2}}}",
		wantErr: "transformers[0].target",
	}})
}
