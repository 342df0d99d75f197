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

func TestLabelTransformer(t *testing.T) {
	transformtest.RunCases(t, testKinds, []transformtest.Case{{
		Name:   "like commonLabels",
		Config: "{apiVersion: builtin, kind: LabelTransformer, labels: {app: web, tier: fe}}",
		In: `
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
		Want: `
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
		Name:   "without selectors keeps templates",
		Config: "{kind: LabelTransformer, labels: {v: '2'}, includeSelectors: false}",
		In:     "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}}}}",
		Want:   "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {v: '2'}}, spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b, v: '2'}}}}}",
	}, {
		Name:   "metadata only",
		Config: "{kind: LabelTransformer, labels: {v: '2'}, includeSelectors: false, includeTemplates: false}",
		In:     "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {template: {metadata: {labels: {a: b}}}}}",
		Want:   "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, labels: {v: '2'}}, spec: {template: {metadata: {labels: {a: b}}}}}",
	}, {
		Name:   "field specs replace the defaults",
		Config: "{kind: LabelTransformer, labels: {v: '2'}, fieldSpecs: [{path: spec/podLabels, kind: Foo, create: true}]}",
		In:     "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {}}",
		Want:   "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {podLabels: {v: '2'}}}",
	}, {
		Name:    "invalid label",
		Config:  "{kind: LabelTransformer, labels: {'a b': c}}",
		WantErr: "transformers[0].labels",
	}, {
		Name:    "labels must be a map",
		Config:  "{kind: LabelTransformer, labels: {a: b}}",
		In:      "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: [x]}}",
		WantErr: "labels must be an object",
	}})
}
