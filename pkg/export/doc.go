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

// Package export turns the objects read from one namespace into a Template that re-creates
// them: stencil export. It is a pure library over decoded objects (the maps of unstructured
// objects); reading them from a cluster is the CLI's business.
//
// Export runs these steps, each in its own file with its own table of tests:
//
//   - select.go: objects that something else creates are left out and reported: objects owned
//     by another object read (a ReplicaSet of a Deployment, the Jobs of a CronJob) or managed
//     by a controller (a controller ownerReference to anything), Endpoints and EndpointSlices
//     kept by their controllers, the token Secrets the token controller made for a
//     ServiceAccount, and what every namespace gets by itself (the default ServiceAccount,
//     kube-root-ca.crt, openshift-service-ca.crt).
//   - clean.go: the project's cleanup rules (transform.CleanObject, KubeStellar's), then what
//     they leave of the source cluster: creation and deletion timestamps, kubectl.kubernetes.io/*
//     annotations (on objects and pod templates), the annotations controllers write
//     (deployment.kubernetes.io/revision, the PV binder's), the token a token Secret holds, a
//     PVC's controller-made binding, the Job controller's job-name labels, status inside
//     volumeClaimTemplates.
//   - defaults.go: fields equal to the value the API server would default them to (as
//     kubectl-neat removes them), by kind: dnsPolicy, restartPolicy, schedulerName,
//     terminationMessagePath, probe timings, defaultMode 420, a Deployment's strategy,
//     a Service's type and targetPort, and so on. A field is removed only when the server would
//     set it again to the same value for this object, so that the objects re-created from the
//     template are the objects that were read.
//   - parameterize.go: Secret values become required parameters without a default, given
//     through stringData (data with a base64 parameter for a value that is not UTF-8 text),
//     unless IncludeSecretValues. With Parameterize: the namespace is dropped (also from
//     RoleBinding subjects of the same namespace, where an empty namespace means the binding's
//     own); name.go: the application's name (the one app.kubernetes.io/instance or app label
//     value, else the name prefix every object shares) becomes NAME in names, labels, selectors
//     and the references of transform's name-reference table; each container image becomes
//     <CONTAINER>_IMAGE; each integer spec.replicas an int parameter. Labels stay on their
//     objects. Every parameter has a display name and a description.
//   - template.go: the strings of the objects are written through process.Escaper, so that a
//     live "${HOME}" or a $(NAME) comes back as it was; the objects are ordered for creation
//     (ServiceAccounts and Secrets before the workloads that use them); the Template is
//     validated as the server validates it (validation.ValidateTemplate, render.CheckTemplate).
package export
