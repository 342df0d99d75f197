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
)

// namespaceDefaults are the objects every namespace gets by itself, by group/kind/name: the
// ServiceAccount controller's default account and the CA bundles published into each one.
var namespaceDefaults = map[string]string{
	"/ServiceAccount/default":             "every namespace gets it from the ServiceAccount controller",
	"/ConfigMap/kube-root-ca.crt":         "every namespace gets it from the root CA publisher",
	"/ConfigMap/openshift-service-ca.crt": "every namespace gets it from OpenShift's service CA operator",
}

// tokenSecretType is the type of the Secrets that hold a ServiceAccount token.
const tokenSecretType = "kubernetes.io/service-account-token"

// selectObjects splits objects into those the template keeps and those something else
// creates, with the reason.
func selectObjects(objects []Object) (kept []Object, skipped []Skipped) {
	byUID := make(map[string]Object, len(objects))
	selectedServices := map[string]bool{}
	for _, obj := range objects {
		if uid := transform.NestedString(obj, "metadata", "uid"); uid != "" {
			byUID[uid] = obj
		}
		if isKind(obj, "", "Service") && transform.NestedMap(obj, "spec", "selector") != nil {
			selectedServices[transform.NestedString(obj, "metadata", "name")] = true
		}
	}
	for _, obj := range objects {
		if reason := skipReason(obj, byUID, selectedServices); reason != "" {
			skipped = append(skipped, Skipped{Object: describe(obj), Reason: reason})
			continue
		}
		kept = append(kept, obj)
	}
	return kept, skipped
}

// skipReason says why obj is made by something else, or "" when the template keeps it.
func skipReason(obj Object, byUID map[string]Object, selectedServices map[string]bool) string {
	name := transform.NestedString(obj, "metadata", "name")
	if reason, ok := namespaceDefaults[group(obj)+"/"+transform.NestedString(obj, "kind")+"/"+name]; ok {
		return reason
	}
	// An owner that is exported re-creates what it owns; a controller that is not exported
	// still manages its object, which a copy would fight over.
	for _, ref := range list(obj, "metadata", "ownerReferences") {
		ref, _ := ref.(map[string]any)
		owner := transform.NestedString(ref, "kind") + " " + transform.NestedString(ref, "name")
		if _, ok := byUID[transform.NestedString(ref, "uid")]; ok {
			return "owned by " + owner + ", which re-creates it"
		}
		if controller, _ := ref["controller"].(bool); controller {
			return "managed by " + owner + ", which is not exported"
		}
	}
	labels := transform.NestedMap(obj, "metadata", "labels")
	switch {
	case isKind(obj, "", "Endpoints"):
		if selectedServices[name] || labels["endpoints.kubernetes.io/managed-by"] != nil {
			return "kept by the endpoints controller for Service " + name
		}
	case isKind(obj, "discovery.k8s.io", "EndpointSlice"):
		if by, _ := labels["endpointslice.kubernetes.io/managed-by"].(string); by != "" {
			return "kept by " + by
		}
	case isKind(obj, "", "Secret") && transform.NestedString(obj, "type") == tokenSecretType:
		// The token controller of clusters before 1.24 made <account>-token-<random> for every
		// ServiceAccount and listed it in the account's secrets.
		account := transform.NestedString(obj, "metadata", "annotations", "kubernetes.io/service-account.name")
		if account != "" && strings.HasPrefix(name, account+"-token-") {
			return "the token controller made it for ServiceAccount " + account
		}
	}
	return ""
}
