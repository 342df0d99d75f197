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

func TestLabelTransformer(t *testing.T) {
	runCases(t, []transformCase{{
		name:   "like commonLabels",
		config: "{apiVersion: builtin, kind: LabelTransformer, labels: {app: web, tier: fe}}",
		in: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {run: d}}
  template:
    metadata: {labels: {run: d}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {run: d}}, topologyKey: zone}]
---
apiVersion: v1
kind: Service
metadata: {name: s, labels: {keep: "yes"}}
spec: {}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: st}
spec:
  volumeClaimTemplates: [{metadata: {name: data}}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec: {jobTemplate: {spec: {template: {spec: {}}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np}
spec: {podSelector: {}}
---
apiVersion: example.com/v1
kind: Foo
metadata: {name: f}
spec: {selector: {matchLabels: {x: y}}}
`,
		want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, labels: {app: web, tier: fe}}
spec:
  selector: {matchLabels: {run: d, app: web, tier: fe}}
  template:
    metadata: {labels: {run: d, app: web, tier: fe}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {run: d, app: web, tier: fe}}, topologyKey: zone}]
---
apiVersion: v1
kind: Service
metadata: {name: s, labels: {keep: "yes", app: web, tier: fe}}
spec: {selector: {app: web, tier: fe}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: st, labels: {app: web, tier: fe}}
spec:
  selector: {matchLabels: {app: web, tier: fe}}
  template: {metadata: {labels: {app: web, tier: fe}}}
  volumeClaimTemplates: [{metadata: {name: data, labels: {app: web, tier: fe}}}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj, labels: {app: web, tier: fe}}
spec:
  jobTemplate:
    metadata: {labels: {app: web, tier: fe}}
    spec: {template: {metadata: {labels: {app: web, tier: fe}}, spec: {}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np, labels: {app: web, tier: fe}}
spec: {podSelector: {}}
---
apiVersion: example.com/v1
kind: Foo
metadata: {name: f, labels: {app: web, tier: fe}}
spec: {selector: {matchLabels: {x: y}}}
`,
	}, {
		name:   "without selectors keeps templates",
		config: "{kind: LabelTransformer, labels: {v: '2'}, includeSelectors: false}",
		in:     "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}}}}",
		want:   "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {v: '2'}}, spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b, v: '2'}}}}}",
	}, {
		name:   "metadata only",
		config: "{kind: LabelTransformer, labels: {v: '2'}, includeSelectors: false, includeTemplates: false}",
		in:     "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {template: {metadata: {labels: {a: b}}}}}",
		want:   "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {v: '2'}}, spec: {template: {metadata: {labels: {a: b}}}}}",
	}, {
		name:   "field specs replace the defaults",
		config: "{kind: LabelTransformer, labels: {v: '2'}, fieldSpecs: [{path: spec/podLabels, kind: Foo, create: true}]}",
		in:     "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {}}",
		want:   "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {podLabels: {v: '2'}}}",
	}, {
		name:    "invalid label",
		config:  "{kind: LabelTransformer, labels: {'a b': c}}",
		wantErr: "transformers[0].labels",
	}, {
		name:    "labels must be a map",
		config:  "{kind: LabelTransformer, labels: {a: b}}",
		in:      "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: [x]}}",
		wantErr: "labels must be an object",
	}})
}
