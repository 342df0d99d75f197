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

// Package publish delivers a TemplateInstance's render through Flux instead of applying it:
// the render packed as an artifact (pkg/artifact) is stored in a ConfigMap of the instance's
// namespace, named by an ExternalArtifact (source.toolkit.fluxcd.io/v1) whose status is written
// as source-controller writes its own, and served by the artifact server (pkg/artifact/server)
// through Store. Every read and write is the requester's, as for an applied instance: the
// server itself gets no right on the namespace.
package publish

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The Flux kinds a published instance writes and reads: what source-controller v1.9's and
// kustomize-controller v1.9's CRDs serve.
var (
	// ExternalArtifacts is the resource of ExternalArtifacts.
	ExternalArtifacts = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "externalartifacts"}
	// Kustomizations is the resource of Flux Kustomizations.
	Kustomizations = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
	// ConfigMaps is where the artifacts are stored.
	ConfigMaps = corev1.SchemeGroupVersion.WithResource("configmaps")
)

// ExternalArtifactKind is the kind a Kustomization's sourceRef names.
const ExternalArtifactKind = "ExternalArtifact"

// The storage of an instance's artifact: one ConfigMap, named after the instance, that holds
// the tarball and what the artifact server checks a request against.
const (
	// StorageSuffix ends the ConfigMap's name: "<instance>-artifact".
	StorageSuffix = "-artifact"
	// ArtifactOfLabel on the ConfigMap names its instance.
	ArtifactOfLabel = "templates.stencil.dev/artifact-of"
	// ArchiveKey holds the tarball (binaryData).
	ArchiveKey = "artifact.tar.gz"
	// DigestKey, RevisionKey and TokenKey hold its digest, revision and the token of its URL.
	DigestKey   = "digest"
	RevisionKey = "revision"
	TokenKey    = "token"
	// ObjectsKey lists the objects the artifact holds, one "<apiVersion> <kind> <namespace>
	// <name>" a line, so that the next publication knows what Flux will prune.
	ObjectsKey = "objects"
)

// StorageName names the ConfigMap of an instance's artifact.
func StorageName(instance string) string { return instance + StorageSuffix }
