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

package transform_test

import (
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/kustomize"
)

// What the equivalence tests and the benchmarks share: krusty's side of a comparison, and the
// objects most equivalence cases run over.

// krustyObjects builds the kustomization at dir and converts the result.
func krustyObjects(t testing.TB, fSys filesys.FileSystem, dir string) []transform.Object {
	t.Helper()
	out, err := kustomize.Build(fSys, dir, krusty.MakeDefaultOptions())
	if err != nil {
		t.Fatalf("krusty: %v", err)
	}
	return out
}

// equivalenceObjects are the objects most cases run over: one of each kind that refers to
// others by name, and the kinds they refer to.
const equivalenceObjects = `
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {A: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
---
apiVersion: v1
kind: Secret
metadata: {name: pull}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: runner}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Service
metadata: {name: app1-web, labels: {app: web}}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app1-web, labels: {env: dev}, annotations: {team: a}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: runner
      imagePullSecrets: [{name: pull}]
      initContainers: [{name: init, image: busybox}]
      containers:
      - name: main
        image: nginx:1.21
        envFrom: [{configMapRef: {name: cfg}}]
        env: [{name: PW, valueFrom: {secretKeyRef: {name: creds, key: pw}}}]
        volumeMounts: [{name: data, mountPath: /data}]
      volumes:
      - {name: data, persistentVolumeClaim: {claimName: data}}
      - {name: conf, configMap: {name: cfg}}
      - {name: sec, secret: {secretName: creds}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app2-api, labels: {env: prod}}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: main, image: "nginx@sha256:0123456789abcdef"}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: app1-web
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres}]}
  volumeClaimTemplates: [{metadata: {name: pgdata}, spec: {accessModes: [ReadWriteOnce]}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader-binding}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: ServiceAccount, name: runner}
- {kind: ServiceAccount, name: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: viewer}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: viewer-binding}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: viewer}
subjects: [{kind: ServiceAccount, name: runner, namespace: default}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: app1-web, port: {number: 80}}}}]}}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np}
spec: {podSelector: {matchLabels: {app: web}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: job, image: "nginx:1.21", envFrom: [{configMapRef: {name: cfg}}]}]
`
