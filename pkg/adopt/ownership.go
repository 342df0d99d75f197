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

package adopt

import (
	"encoding/json"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The metadata by which Helm and kubectl claim an object.
const (
	helmReleaseNameAnnotation      = "meta.helm.sh/release-name"
	helmReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
	managedByLabel                 = "app.kubernetes.io/managed-by"
	lastAppliedAnnotation          = "kubectl.kubernetes.io/last-applied-configuration"
)

// OwnershipMetadata lists the labels and annotations on obj by which another tool claims it:
// Helm's release annotations and its managed-by label, kubectl's last applied configuration.
func OwnershipMetadata(obj *unstructured.Unstructured) []string {
	var out []string
	for _, k := range []string{helmReleaseNameAnnotation, helmReleaseNamespaceAnnotation, lastAppliedAnnotation} {
		if _, ok := obj.GetAnnotations()[k]; ok {
			out = append(out, "annotation "+k)
		}
	}
	if obj.GetLabels()[managedByLabel] == "Helm" {
		out = append(out, "label "+managedByLabel+"=Helm")
	}
	sort.Strings(out)
	return out
}

// OwnershipPatch is a JSON patch that removes the other tools' ownership metadata from live,
// on the condition that live is unchanged (its resourceVersion); nil when there is none. The
// forced apply removes what the old managers owned; this removes what some other manager
// wrote of it, so that nothing still says the object is Helm's or kubectl's.
func OwnershipPatch(live *unstructured.Unstructured) []byte {
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value,omitempty"`
	}
	ops := []op{{Op: "test", Path: "/metadata/resourceVersion", Value: live.GetResourceVersion()}}
	for _, k := range []string{helmReleaseNameAnnotation, helmReleaseNamespaceAnnotation, lastAppliedAnnotation} {
		if _, ok := live.GetAnnotations()[k]; ok {
			ops = append(ops, op{Op: "remove", Path: "/metadata/annotations/" + escapePointer(k)})
		}
	}
	if live.GetLabels()[managedByLabel] == "Helm" {
		ops = append(ops, op{Op: "remove", Path: "/metadata/labels/" + escapePointer(managedByLabel)})
	}
	if len(ops) == 1 {
		return nil
	}
	patch, _ := json.Marshal(ops)
	return patch
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
