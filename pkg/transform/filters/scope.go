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

package filters

import "stencil.dev/stencil/pkg/transform"

// clusterScoped lists the cluster-scoped kinds of Kubernetes (and of Stencil), by group and
// kind. Kustomize asks its built-in OpenAPI document; a table is enough here and needs no
// global state. Every other kind, custom resources included, is taken as namespaced, as
// Kustomize does for kinds its schema does not know.
var clusterScoped = map[string]bool{
	"/Namespace":        true,
	"/Node":             true,
	"/PersistentVolume": true,
	"/ComponentStatus":  true,

	"rbac.authorization.k8s.io/ClusterRole":        true,
	"rbac.authorization.k8s.io/ClusterRoleBinding": true,

	"apiextensions.k8s.io/CustomResourceDefinition": true,
	"apiregistration.k8s.io/APIService":             true,

	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     true,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicy":          true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding":   true,
	"authentication.k8s.io/TokenReview":                             true,
	"authentication.k8s.io/SelfSubjectReview":                       true,
	"authorization.k8s.io/SubjectAccessReview":                      true,
	"authorization.k8s.io/SelfSubjectAccessReview":                  true,
	"authorization.k8s.io/SelfSubjectRulesReview":                   true,
	"certificates.k8s.io/CertificateSigningRequest":                 true,
	"certificates.k8s.io/ClusterTrustBundle":                        true,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                       true,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":       true,
	"internal.apiserver.k8s.io/StorageVersion":                      true,
	"networking.k8s.io/IngressClass":                                true,
	"networking.k8s.io/IPAddress":                                   true,
	"networking.k8s.io/ServiceCIDR":                                 true,
	"node.k8s.io/RuntimeClass":                                      true,
	"policy/PodSecurityPolicy":                                      true,
	"resource.k8s.io/DeviceClass":                                   true,
	"resource.k8s.io/ResourceSlice":                                 true,
	"scheduling.k8s.io/PriorityClass":                               true,
	"storage.k8s.io/CSIDriver":                                      true,
	"storage.k8s.io/CSINode":                                        true,
	"storage.k8s.io/StorageClass":                                   true,
	"storage.k8s.io/VolumeAttachment":                               true,
	"storage.k8s.io/VolumeAttributesClass":                          true,
	"storagemigration.k8s.io/StorageVersionMigration":               true,
	"templates.stencil.dev/CustomTransform":                         true,
	"project.openshift.io/Project":                                  true,
	"security.openshift.io/SecurityContextConstraints":              true,
	"user.openshift.io/User":                                        true,
	"user.openshift.io/Group":                                       true,
	"user.openshift.io/Identity":                                    true,
	"oauth.openshift.io/OAuthClient":                                true,
	"quota.openshift.io/ClusterResourceQuota":                       true,
	"authorization.openshift.io/ClusterRole":                        true,
	"authorization.openshift.io/ClusterRoleBinding":                 true,
	"image.openshift.io/Image":                                      true,
}

// IsClusterScoped reports whether objects of id have no namespace.
func IsClusterScoped(id transform.GVK) bool {
	return clusterScoped[id.Group+"/"+id.Kind]
}

// EffectiveNamespace is the namespace an object without one lands in.
func EffectiveNamespace(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}
