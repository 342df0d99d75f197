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

import "stencil.dev/stencil/pkg/transform/filters"

// Default field specs. Kustomize keeps its own in internal packages
// (api/internal/konfig/builtinpluginconsts), so these are Stencil's tables with the same
// entries, which keeps our built-ins equivalent to the kustomization fields.

// fs builds a FieldSpec; empty group, version or kind match any.
func fs(path, group, version, kind string, create bool) filters.FieldSpec {
	return filters.FieldSpec{Group: group, Version: version, Kind: kind, Path: path, Create: create}
}

// metadataLabelSpecs are metadata labels plus the pod-template labels of the workload kinds.
var metadataLabelSpecs = []filters.FieldSpec{
	fs("metadata/labels", "", "", "", true),
	fs("spec/template/metadata/labels", "", "v1", "ReplicationController", true),
	fs("spec/template/metadata/labels", "", "", "Deployment", true),
	fs("spec/template/metadata/labels", "", "", "ReplicaSet", true),
	fs("spec/template/metadata/labels", "", "", "DaemonSet", true),
	fs("spec/template/metadata/labels", "apps", "", "StatefulSet", true),
	fs("spec/template/metadata/labels", "batch", "", "Job", true),
	fs("spec/jobTemplate/metadata/labels", "batch", "", "CronJob", true),
	fs("spec/jobTemplate/spec/template/metadata/labels", "batch", "", "CronJob", true),
}

// volumeClaimTemplateLabelSpecs label the PVCs a StatefulSet creates.
var volumeClaimTemplateLabelSpecs = []filters.FieldSpec{
	fs("spec/volumeClaimTemplates[]/metadata/labels", "apps", "", "StatefulSet", true),
}

// affinityLabelSelectorPaths are the pod (anti-)affinity and topology-spread selectors of a pod
// template, which must keep matching the pods once they carry the new labels.
var affinityLabelSelectorPaths = []string{
	"spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
	"spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
	"spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
	"spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
	"spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels",
}

// selectorLabelSpecs are the selectors commonLabels also sets.
var selectorLabelSpecs = func() []filters.FieldSpec {
	specs := []filters.FieldSpec{
		fs("spec/selector", "", "v1", "Service", true),
		fs("spec/selector", "", "v1", "ReplicationController", true),
		fs("spec/selector/matchLabels", "", "", "Deployment", true),
	}
	for _, p := range affinityLabelSelectorPaths {
		specs = append(specs, fs(p, "apps", "", "Deployment", false))
	}
	specs = append(specs,
		fs("spec/selector/matchLabels", "", "", "ReplicaSet", true),
		fs("spec/selector/matchLabels", "", "", "DaemonSet", true),
		fs("spec/selector/matchLabels", "apps", "", "StatefulSet", true),
	)
	for _, p := range affinityLabelSelectorPaths {
		specs = append(specs, fs(p, "apps", "", "StatefulSet", false))
	}
	return append(specs,
		fs("spec/selector/matchLabels", "batch", "", "Job", false),
		fs("spec/jobTemplate/spec/selector/matchLabels", "batch", "", "CronJob", false),
		fs("spec/selector/matchLabels", "policy", "", "PodDisruptionBudget", false),
		fs("spec/podSelector/matchLabels", "networking.k8s.io", "", "NetworkPolicy", false),
		fs("spec/ingress/from/podSelector/matchLabels", "networking.k8s.io", "", "NetworkPolicy", false),
		fs("spec/egress/to/podSelector/matchLabels", "networking.k8s.io", "", "NetworkPolicy", false),
	)
}()

// annotationSpecs are commonAnnotations' fields: metadata and pod templates.
var annotationSpecs = []filters.FieldSpec{
	fs("metadata/annotations", "", "", "", true),
	fs("spec/template/metadata/annotations", "", "v1", "ReplicationController", true),
	fs("spec/template/metadata/annotations", "", "", "Deployment", true),
	fs("spec/template/metadata/annotations", "", "", "ReplicaSet", true),
	fs("spec/template/metadata/annotations", "", "", "DaemonSet", true),
	fs("spec/template/metadata/annotations", "", "", "StatefulSet", true),
	fs("spec/template/metadata/annotations", "batch", "", "Job", true),
	fs("spec/jobTemplate/metadata/annotations", "batch", "", "CronJob", true),
	fs("spec/jobTemplate/spec/template/metadata/annotations", "batch", "", "CronJob", true),
}

// imageSpecs are the image fields outside container lists (containers and initContainers are
// found at any depth, as Kustomize's legacy image filter does).
var imageSpecs = []filters.FieldSpec{
	fs("spec/containers[]/image", "", "", "", false),
	fs("spec/initContainers[]/image", "", "", "", false),
	fs("spec/volumes[]/image/reference", "", "", "", false),
	fs("spec/template/spec/containers[]/image", "", "", "", false),
	fs("spec/template/spec/initContainers[]/image", "", "", "", false),
	fs("spec/template/spec/volumes[]/image/reference", "", "", "", false),
	fs("spec/jobTemplate/spec/template/spec/volumes[]/image/reference", "", "", "", false),
}

// namespaceSpecs are the fields besides metadata.namespace that name the namespace.
var namespaceSpecs = []filters.FieldSpec{
	fs("metadata/name", "", "v1", "Namespace", true),
	fs("spec/service/namespace", "apiregistration.k8s.io", "", "APIService", true),
	fs("spec/conversion/webhook/clientConfig/service/namespace", "apiextensions.k8s.io", "", "CustomResourceDefinition", false),
}

// replicaSpecs are the replica counts.
var replicaSpecs = []filters.FieldSpec{
	fs("spec/replicas", "", "", "Deployment", true),
	fs("spec/replicas", "", "", "ReplicationController", true),
	fs("spec/replicas", "", "", "ReplicaSet", true),
	fs("spec/replicas", "", "", "StatefulSet", true),
}

// namePrefixSpecs: only the object's own name; references follow through the name-reference
// table.
var namePrefixSpecs = []filters.FieldSpec{
	fs("metadata/name", "", "", "", false),
}

// Compiled defaults.
var (
	defaultMetadataLabels    = filters.MustFieldSpecs(fs("metadata/labels", "", "", "", true))
	defaultTemplateLabels    = filters.MustFieldSpecs(metadataLabelSpecs...)
	defaultVolumeClaimLabels = filters.MustFieldSpecs(volumeClaimTemplateLabelSpecs...)
	defaultSelectorLabels    = filters.MustFieldSpecs(selectorLabelSpecs...)
	defaultAnnotations       = filters.MustFieldSpecs(annotationSpecs...)
	defaultImages            = filters.MustFieldSpecs(imageSpecs...)
	defaultNamespaceFields   = filters.MustFieldSpecs(namespaceSpecs...)
	defaultReplicas          = filters.MustFieldSpecs(replicaSpecs...)
	defaultNamePrefixSuffix  = filters.MustFieldSpecs(namePrefixSpecs...)
	defaultCommonLabels      = concatSpecs(defaultSelectorLabels, defaultTemplateLabels, defaultVolumeClaimLabels)
)

func concatSpecs(lists ...[]filters.CompiledFieldSpec) []filters.CompiledFieldSpec {
	var out []filters.CompiledFieldSpec
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
