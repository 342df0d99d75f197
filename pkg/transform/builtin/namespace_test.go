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

func TestNamespaceTransformer(t *testing.T) {
	transformtest.RunCases(t, testKinds, []transformtest.Case{{
		Name:   "namespaced objects, subjects and special fields",
		Config: "{apiVersion: builtin, kind: NamespaceTransformer, metadata: {namespace: prod}}",
		In: `
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: old}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cr}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cr}
subjects:
- {kind: ServiceAccount, name: sa}
- {kind: ServiceAccount, name: sa, namespace: default}
- {kind: ServiceAccount, name: sa, namespace: other}
- {kind: ServiceAccount, name: default, namespace: kube-system}
- {kind: ServiceAccount, name: outside, namespace: x}
- {kind: User, name: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cr}
subjects: [{kind: ServiceAccount, name: sa, namespace: default}]
---
apiVersion: v1
kind: Namespace
metadata: {name: old}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.example.com}
spec: {service: {name: api, namespace: old}}
---
apiVersion: example.com/v1
kind: Foo
metadata: {name: f}
`,
		Want: `
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: prod}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: prod}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cr}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: prod}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cr}
subjects:
- {kind: ServiceAccount, name: sa, namespace: prod}
- {kind: ServiceAccount, name: sa, namespace: prod}
- {kind: ServiceAccount, name: sa, namespace: other}
- {kind: ServiceAccount, name: default, namespace: prod}
- {kind: ServiceAccount, name: outside, namespace: x}
- {kind: User, name: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cr}
subjects: [{kind: ServiceAccount, name: sa, namespace: prod}]
---
apiVersion: v1
kind: Namespace
metadata: {name: prod}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.example.com}
spec: {service: {name: api, namespace: prod}}
---
apiVersion: example.com/v1
kind: Foo
metadata: {name: f, namespace: prod}
`,
	}, {
		Name:   "unset only, all service accounts",
		Config: "{kind: NamespaceTransformer, metadata: {namespace: prod}, unsetOnly: true, setRoleBindingSubjects: allServiceAccounts}",
		In: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: keep}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb}
subjects: [{kind: ServiceAccount, name: a}, {kind: ServiceAccount, name: b, namespace: keep}]
`,
		Want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: keep}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: prod}
subjects: [{kind: ServiceAccount, name: a, namespace: prod}, {kind: ServiceAccount, name: b, namespace: keep}]
`,
	}, {
		Name:   "no subjects",
		Config: "{kind: NamespaceTransformer, metadata: {namespace: prod}, setRoleBindingSubjects: none}",
		In:     "{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: rb}, subjects: [{kind: ServiceAccount, name: default}]}",
		Want:   "{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: rb, namespace: prod}, subjects: [{kind: ServiceAccount, name: default}]}",
	}, {
		Name:    "conflict",
		Config:  "{kind: NamespaceTransformer, metadata: {namespace: prod}}",
		In:      "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: b}}",
		WantErr: "makes two objects",
	}, {
		Name:    "bad mode",
		Config:  "{kind: NamespaceTransformer, metadata: {namespace: prod}, setRoleBindingSubjects: some}",
		WantErr: "transformers[0].setRoleBindingSubjects",
	}, {
		Name:    "bad namespace",
		Config:  "{kind: NamespaceTransformer, metadata: {namespace: Prod_1}}",
		WantErr: "transformers[0].metadata.namespace",
	}})
}
