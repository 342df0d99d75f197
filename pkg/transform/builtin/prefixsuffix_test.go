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

func TestPrefixSuffixTransformer(t *testing.T) {
	transformtest.RunCases(t, testKinds, []transformtest.Case{{
		Name:   "names and references",
		Config: "{apiVersion: builtin, kind: PrefixSuffixTransformer, prefix: p-, suffix: -s}",
		In: `
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
---
apiVersion: v1
kind: Secret
metadata: {name: sec}
---
apiVersion: v1
kind: Secret
metadata: {name: pull}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
---
apiVersion: v1
kind: Service
metadata: {name: web}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      serviceAccountName: sa
      imagePullSecrets: [{name: pull}, {name: external}]
      containers:
      - name: c
        envFrom: [{configMapRef: {name: cfg}}, {secretRef: {name: sec}}]
        env:
        - {name: A, valueFrom: {configMapKeyRef: {name: cfg, key: a}}}
        - {name: B, valueFrom: {secretKeyRef: {name: other, key: b}}}
      volumes:
      - {name: v1, configMap: {name: cfg}}
      - {name: v2, secret: {secretName: sec}}
      - {name: v3, persistentVolumeClaim: {claimName: data}}
      - {name: v4, projected: {sources: [{configMap: {name: cfg}}, {secret: {name: sec}}]}}
`,
		Want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: p-cfg-s}
---
apiVersion: v1
kind: Secret
metadata: {name: p-sec-s}
---
apiVersion: v1
kind: Secret
metadata: {name: p-pull-s}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: p-sa-s}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: p-data-s}
---
apiVersion: v1
kind: Service
metadata: {name: p-web-s}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: p-web-s}
spec:
  template:
    spec:
      serviceAccountName: p-sa-s
      imagePullSecrets: [{name: p-pull-s}, {name: external}]
      containers:
      - name: c
        envFrom: [{configMapRef: {name: p-cfg-s}}, {secretRef: {name: p-sec-s}}]
        env:
        - {name: A, valueFrom: {configMapKeyRef: {name: p-cfg-s, key: a}}}
        - {name: B, valueFrom: {secretKeyRef: {name: other, key: b}}}
      volumes:
      - {name: v1, configMap: {name: p-cfg-s}}
      - {name: v2, secret: {secretName: p-sec-s}}
      - {name: v3, persistentVolumeClaim: {claimName: p-data-s}}
      - {name: v4, projected: {sources: [{configMap: {name: p-cfg-s}}, {secret: {name: p-sec-s}}]}}
`,
	}, {
		Name:   "rbac, statefulset, ingress",
		Config: "{kind: PrefixSuffixTransformer, prefix: p-}",
		In: `
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: ns1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [configmaps], resourceNames: [cfg, other]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: admin}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: ServiceAccount, name: sa, namespace: ns1}
- {kind: ServiceAccount, name: sa, namespace: elsewhere}
- {kind: User, name: sa}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{kind: ServiceAccount, name: sa}]
---
apiVersion: v1
kind: Service
metadata: {name: db}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {serviceName: db}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing}
spec:
  defaultBackend: {service: {name: db}}
  rules: [{http: {paths: [{path: /, backend: {service: {name: db, port: {number: 80}}}}]}}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns1}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: hpa}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: hpa2}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: db}}
`,
		Want: `
apiVersion: v1
kind: ServiceAccount
metadata: {name: p-sa, namespace: ns1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: p-reader}
rules: [{apiGroups: [""], resources: [configmaps], resourceNames: [p-cfg, other]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: p-admin}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: p-cfg}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: p-rb1}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: p-reader}
subjects:
- {kind: ServiceAccount, name: p-sa, namespace: ns1}
- {kind: ServiceAccount, name: sa, namespace: elsewhere}
- {kind: User, name: sa}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: p-crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: p-admin}
subjects: [{kind: ServiceAccount, name: p-sa, namespace: ns1}]
---
apiVersion: v1
kind: Service
metadata: {name: p-db}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: p-db}
spec: {serviceName: p-db}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: p-ing}
spec:
  defaultBackend: {service: {name: p-db}}
  rules: [{http: {paths: [{path: /, backend: {service: {name: p-db, port: {number: 80}}}}]}}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns1}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: p-hpa}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: p-db}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: p-hpa2}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: db}}
`,
	}, {
		Name:   "references stay within a namespace",
		Config: "{kind: PrefixSuffixTransformer, suffix: -x, fieldSpecs: [{path: metadata/name, kind: ConfigMap}]}",
		In: `
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: a}
---
apiVersion: v1
kind: Pod
metadata: {name: in-a, namespace: a}
spec: {volumes: [{name: v, configMap: {name: cfg}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: in-b, namespace: b}
spec: {volumes: [{name: v, configMap: {name: cfg}}]}
`,
		Want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg-x, namespace: a}
---
apiVersion: v1
kind: Pod
metadata: {name: in-a, namespace: a}
spec: {volumes: [{name: v, configMap: {name: cfg-x}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: in-b, namespace: b}
spec: {volumes: [{name: v, configMap: {name: cfg}}]}
`,
	}, {
		Name:   "extra field spec",
		Config: "{kind: PrefixSuffixTransformer, prefix: p-, fieldSpecs: [{path: metadata/name}, {path: spec/claimRef, kind: Foo, create: true}]}",
		In:     "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {}}",
		Want:   "{apiVersion: example.com/v1, kind: Foo, metadata: {name: p-f}, spec: {claimRef: p-}}",
	}, {
		Name:    "bad field spec path",
		Config:  "{kind: PrefixSuffixTransformer, prefix: p-, fieldSpecs: [{path: 'a//b'}]}",
		WantErr: "transformers[0].fieldSpecs[0].path",
	}, {
		Name:    "unknown field",
		Config:  "{kind: PrefixSuffixTransformer, prefx: p-}",
		WantErr: "transformers[0].prefx",
	}, {
		Name:    "name is not a string",
		Config:  "{kind: PrefixSuffixTransformer, prefix: p-}",
		In:      "{apiVersion: v1, kind: ConfigMap, metadata: {name: 3}}",
		WantErr: "not a string",
	}})
}
