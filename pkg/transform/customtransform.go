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

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/transform/jsonpath"
)

// RemovalRule is a CustomTransform as processing applies it: the admin's removals for every
// object of one API group and resource (or kind).
type RemovalRule struct {
	// Name is the CustomTransform's name; rules apply in name order.
	Name string
	// APIGroup is the object's group, "" for core. It is always compared.
	APIGroup string
	// Resource is the lowercase plural resource ("deployments"); it binds through the
	// kindToResource mapping given to ApplyRemovals.
	Resource string
	// Kind binds by the object's kind directly ("Deployment"), needing no mapping.
	Kind string
	// Paths are the removals, parsed by ParseRemovalPaths.
	Paths []jsonpath.Path
}

// binds reports whether the rule applies to an object of group and kind; resource maps the
// kind to its resource, and is only called when needed.
func (r *RemovalRule) binds(group, kind string, resource func() (string, bool)) bool {
	if r.APIGroup != group {
		return false
	}
	if r.Kind != "" && r.Kind == kind {
		return true
	}
	if r.Resource != "" {
		res, ok := resource()
		return ok && res == r.Resource
	}
	return false
}

// ApplyRemovals applies every rule that binds to each object, rules in name order (ties keep
// their given order), removing their paths in place. A rule binds when its APIGroup equals
// the object's group and either its Kind equals the object's kind or its Resource equals the
// resource kindToResource gives for the object's group and kind. As in KubeStellar, the
// version is ignored and matching is exact and case-sensitive. kindToResource may be nil, for
// DefaultKindToResource; a server with discovery passes its REST mapper instead.
func ApplyRemovals(objects []Object, rules []RemovalRule, kindToResource func(group, kind string) (string, bool)) {
	if len(rules) == 0 {
		return
	}
	if kindToResource == nil {
		kindToResource = DefaultKindToResource
	}
	// Order by name so that the result never depends on the order a lister returns.
	sorted := slices.Clone(rules)
	slices.SortStableFunc(sorted, func(a, b RemovalRule) int { return cmp.Compare(a.Name, b.Name) })
	for _, obj := range objects {
		id := objectGVK(obj)
		var (
			resource   string
			resolved   bool
			resolvedOK bool
		)
		resourceOf := func() (string, bool) {
			if !resolved {
				resource, resolvedOK = kindToResource(id.group, id.kind)
				resolved = true
			}
			return resource, resolvedOK
		}
		for i := range sorted {
			if !sorted[i].binds(id.group, id.kind, resourceOf) {
				continue
			}
			for _, p := range sorted[i].Paths {
				jsonpath.Remove(obj, p)
			}
		}
	}
}

// ParseRemovalPaths parses JSONPath removal paths. It returns the paths that parse, in order,
// and an error at fldPath[i], with the byte offset of the problem, for each that does not. It
// validates RemoveTransformer's paths and a CustomTransform's spec.remove.
func ParseRemovalPaths(paths []string, fldPath *field.Path) ([]jsonpath.Path, field.ErrorList) {
	var errs field.ErrorList
	out := make([]jsonpath.Path, 0, len(paths))
	for i, s := range paths {
		p, err := jsonpath.Parse(s)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Index(i), s, err.Error()))
			continue
		}
		out = append(out, p)
	}
	return out, errs
}

// ValidateRemovalPaths validates a CustomTransform's spec.remove; pass
// field.NewPath("spec", "remove") so that errors name spec.remove[i].
func ValidateRemovalPaths(paths []string, fldPath *field.Path) field.ErrorList {
	_, errs := ParseRemovalPaths(paths, fldPath)
	return errs
}

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
