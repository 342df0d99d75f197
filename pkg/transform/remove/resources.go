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

package remove

// DefaultKindToResource maps the kinds of Kubernetes' built-in API groups to their plural
// resources, for binding CustomTransforms where no discovery is available (stencil process
// --local). Custom resources are unknown here: a CustomTransform for them binds by spec.kind,
// or through discovery.
func DefaultKindToResource(group, kind string) (string, bool) {
	r, ok := builtinResources[groupKind{group, kind}]
	return r, ok
}

type groupKind struct{ group, kind string }

// builtinResources lists the storable kinds of kube-apiserver's groups (no subresource or
// review kinds, no removed groups such as extensions).
var builtinResources = map[groupKind]string{
	{"", "ConfigMap"}:             "configmaps",
	{"", "Endpoints"}:             "endpoints",
	{"", "Event"}:                 "events",
	{"", "LimitRange"}:            "limitranges",
	{"", "Namespace"}:             "namespaces",
	{"", "Node"}:                  "nodes",
	{"", "PersistentVolume"}:      "persistentvolumes",
	{"", "PersistentVolumeClaim"}: "persistentvolumeclaims",
	{"", "Pod"}:                   "pods",
	{"", "PodTemplate"}:           "podtemplates",
	{"", "ReplicationController"}: "replicationcontrollers",
	{"", "ResourceQuota"}:         "resourcequotas",
	{"", "Secret"}:                "secrets",
	{"", "Service"}:               "services",
	{"", "ServiceAccount"}:        "serviceaccounts",
	{"admissionregistration.k8s.io", "MutatingAdmissionPolicy"}:          "mutatingadmissionpolicies",
	{"admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"}:   "mutatingadmissionpolicybindings",
	{"admissionregistration.k8s.io", "MutatingWebhookConfiguration"}:     "mutatingwebhookconfigurations",
	{"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"}:        "validatingadmissionpolicies",
	{"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"}: "validatingadmissionpolicybindings",
	{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"}:   "validatingwebhookconfigurations",
	{"apiextensions.k8s.io", "CustomResourceDefinition"}:                 "customresourcedefinitions",
	{"apiregistration.k8s.io", "APIService"}:                             "apiservices",
	{"apps", "ControllerRevision"}:                                       "controllerrevisions",
	{"apps", "DaemonSet"}:                                                "daemonsets",
	{"apps", "Deployment"}:                                               "deployments",
	{"apps", "ReplicaSet"}:                                               "replicasets",
	{"apps", "StatefulSet"}:                                              "statefulsets",
	{"autoscaling", "HorizontalPodAutoscaler"}:                           "horizontalpodautoscalers",
	{"batch", "CronJob"}:                                                 "cronjobs",
	{"batch", "Job"}:                                                     "jobs",
	{"certificates.k8s.io", "CertificateSigningRequest"}:                 "certificatesigningrequests",
	{"certificates.k8s.io", "ClusterTrustBundle"}:                        "clustertrustbundles",
	{"certificates.k8s.io", "PodCertificateRequest"}:                     "podcertificaterequests",
	{"coordination.k8s.io", "Lease"}:                                     "leases",
	{"coordination.k8s.io", "LeaseCandidate"}:                            "leasecandidates",
	{"discovery.k8s.io", "EndpointSlice"}:                                "endpointslices",
	{"events.k8s.io", "Event"}:                                           "events",
	{"flowcontrol.apiserver.k8s.io", "FlowSchema"}:                       "flowschemas",
	{"flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"}:       "prioritylevelconfigurations",
	{"internal.apiserver.k8s.io", "StorageVersion"}:                      "storageversions",
	{"networking.k8s.io", "IPAddress"}:                                   "ipaddresses",
	{"networking.k8s.io", "Ingress"}:                                     "ingresses",
	{"networking.k8s.io", "IngressClass"}:                                "ingressclasses",
	{"networking.k8s.io", "NetworkPolicy"}:                               "networkpolicies",
	{"networking.k8s.io", "ServiceCIDR"}:                                 "servicecidrs",
	{"node.k8s.io", "RuntimeClass"}:                                      "runtimeclasses",
	{"policy", "PodDisruptionBudget"}:                                    "poddisruptionbudgets",
	{"rbac.authorization.k8s.io", "ClusterRole"}:                         "clusterroles",
	{"rbac.authorization.k8s.io", "ClusterRoleBinding"}:                  "clusterrolebindings",
	{"rbac.authorization.k8s.io", "Role"}:                                "roles",
	{"rbac.authorization.k8s.io", "RoleBinding"}:                         "rolebindings",
	{"resource.k8s.io", "DeviceClass"}:                                   "deviceclasses",
	{"resource.k8s.io", "DeviceTaintRule"}:                               "devicetaintrules",
	{"resource.k8s.io", "ResourceClaim"}:                                 "resourceclaims",
	{"resource.k8s.io", "ResourceClaimTemplate"}:                         "resourceclaimtemplates",
	{"resource.k8s.io", "ResourceSlice"}:                                 "resourceslices",
	{"scheduling.k8s.io", "PriorityClass"}:                               "priorityclasses",
	{"storage.k8s.io", "CSIDriver"}:                                      "csidrivers",
	{"storage.k8s.io", "CSINode"}:                                        "csinodes",
	{"storage.k8s.io", "CSIStorageCapacity"}:                             "csistoragecapacities",
	{"storage.k8s.io", "StorageClass"}:                                   "storageclasses",
	{"storage.k8s.io", "VolumeAttachment"}:                               "volumeattachments",
	{"storage.k8s.io", "VolumeAttributesClass"}:                          "volumeattributesclasses",
	{"storagemigration.k8s.io", "StorageVersionMigration"}:               "storageversionmigrations",
}
