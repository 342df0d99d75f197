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

package export

import (
	"strings"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/builtin"
)

// serverMetadata are the metadata fields the API server writes that the cleanup rules leave.
var serverMetadata = []string{"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"}

// controllerAnnotations are written by controllers of the source cluster, about its state there.
var controllerAnnotations = []string{
	"deployment.kubernetes.io/revision",
	"deprecated.daemonset.template.generation",
	"pv.kubernetes.io/bind-completed",
	"pv.kubernetes.io/bound-by-controller",
	"volume.beta.kubernetes.io/storage-provisioner",
	"volume.kubernetes.io/storage-provisioner",
	"volume.kubernetes.io/selected-node",
	"kubernetes.io/service-account.uid",
}

// kubectlAnnotationPrefix is kubectl's: the last applied configuration, restartedAt, the
// default container. They record what kubectl did to the source objects.
const kubectlAnnotationPrefix = "kubectl.kubernetes.io/"

// jobNameLabels are added to a Job's pod template by the API server, from the Job's name.
var jobNameLabels = []string{"job-name", "batch.kubernetes.io/job-name"}

// clean removes from obj what the source cluster wrote: the cleanup rules of the project
// first, then what they leave.
func clean(ctx *transform.Context, obj Object) {
	builtin.CleanObject(ctx, obj)
	cleanMetadata(obj, "metadata")
	for _, t := range podTemplates(obj) {
		if !isKind(obj, "", "Pod") {
			cleanMetadata(t, "metadata")
		}
	}
	if isKind(obj, "batch", "CronJob") {
		cleanMetadata(transform.NestedMap(obj, "spec", "jobTemplate"), "metadata")
	}
	switch {
	case isKind(obj, "", "Secret") && transform.NestedString(obj, "type") == tokenSecretType:
		// The token controller writes the token, the CA and the namespace for the account
		// of the destination.
		delete(obj, "data")
	case isKind(obj, "", "ServiceAccount"):
		// The references to the tokens the token controller made are left out with them.
		account := transform.NestedString(obj, "metadata", "name")
		if secrets, ok := obj["secrets"].([]any); ok {
			kept := secrets[:0]
			for _, s := range secrets {
				if m, _ := s.(map[string]any); !strings.HasPrefix(transform.NestedString(m, "name"), account+"-token-") {
					kept = append(kept, s)
				}
			}
			if len(kept) == 0 {
				delete(obj, "secrets")
			} else {
				obj["secrets"] = kept
			}
		}
	case isKind(obj, "", "PersistentVolumeClaim"):
		// A binding the PV controller made names a volume of the source cluster.
		if transform.NestedString(obj, "metadata", "annotations", "pv.kubernetes.io/bound-by-controller") == "yes" {
			delete(transform.NestedMap(obj, "spec"), "volumeName")
		}
	case isKind(obj, "batch", "Job"):
		deleteKeys(obj, []string{"spec", "template", "metadata", "labels"}, jobNameLabels...)
	case isKind(obj, "apps", "StatefulSet"):
		for _, claim := range list(obj, "spec", "volumeClaimTemplates") {
			if claim, ok := claim.(map[string]any); ok {
				delete(claim, "status")
				cleanMetadata(claim, "metadata")
			}
		}
	}
	deleteKeys(obj, []string{"metadata", "annotations"}, controllerAnnotations...)
}

// cleanMetadata removes the server's fields and kubectl's annotations from parent[key].
func cleanMetadata(parent map[string]any, key string) {
	meta := transform.NestedMap(parent, key)
	if meta == nil {
		return
	}
	for _, f := range serverMetadata {
		delete(meta, f)
	}
	if annotations := transform.NestedMap(meta, "annotations"); annotations != nil {
		for k := range annotations {
			if strings.HasPrefix(k, kubectlAnnotationPrefix) {
				delete(annotations, k)
			}
		}
		if len(annotations) == 0 {
			delete(meta, "annotations")
		}
	}
	if len(meta) == 0 {
		delete(parent, key)
	}
}
