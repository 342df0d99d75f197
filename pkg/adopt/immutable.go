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
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// immutableRule says which fields of a kind the API server refuses to change on update.
type immutableRule struct {
	// fields are immutable, with everything under them.
	fields []string
	// onlyMutable, when set, makes every field under spec immutable but these.
	onlyMutable []string
	// when limits the rule to live objects it holds for (an immutable ConfigMap).
	when func(live map[string]any) bool
	// changesOnly ignores removals: the server keeps the value (a Service's clusterIP).
	changesOnly bool
}

// immutableRules are the built-in kinds' immutable fields, as their validation has them: an
// adoption whose render changes one of these could only go through by recreating the object,
// which adoption never does.
var immutableRules = map[schema.GroupKind][]immutableRule{
	{Group: "apps", Kind: "Deployment"}: {{fields: []string{"spec.selector"}}},
	{Group: "apps", Kind: "ReplicaSet"}: {{fields: []string{"spec.selector"}}},
	{Group: "apps", Kind: "DaemonSet"}:  {{fields: []string{"spec.selector"}}},
	{Group: "apps", Kind: "StatefulSet"}: {{onlyMutable: []string{"spec.replicas", "spec.ordinals", "spec.template", "spec.updateStrategy",
		"spec.revisionHistoryLimit", "spec.persistentVolumeClaimRetentionPolicy", "spec.minReadySeconds"}}},
	{Group: "batch", Kind: "Job"}:   {{fields: []string{"spec.selector", "spec.template", "spec.completionMode"}}},
	{Kind: "Service"}:               {{fields: []string{"spec.clusterIP", "spec.clusterIPs"}, changesOnly: true}},
	{Kind: "PersistentVolumeClaim"}: {{onlyMutable: []string{"spec.resources.requests", "spec.volumeAttributesClassName"}}},
	{Kind: "Secret"}:                {{fields: []string{"type"}}, {fields: []string{"data", "stringData", "immutable"}, when: isImmutable}},
	{Kind: "ConfigMap"}:             {{fields: []string{"data", "binaryData", "immutable"}, when: isImmutable}},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        {{fields: []string{"roleRef"}}},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: {{fields: []string{"roleRef"}}},
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                  {{fields: []string{"provisioner", "parameters", "reclaimPolicy", "volumeBindingMode"}}},
}

func isImmutable(live map[string]any) bool { b, _ := live["immutable"].(bool); return b }

// ImmutableChanges picks, of the paths an adoption would change and remove, those the API
// server would refuse to change on the live object: each named with the immutable field it
// falls under.
func ImmutableChanges(gk schema.GroupKind, live map[string]any, changed, removed []string) []string {
	seen := map[string]bool{}
	for _, rule := range immutableRules[gk] {
		if rule.when != nil && !rule.when(live) {
			continue
		}
		paths := changed
		if !rule.changesOnly {
			paths = append(append([]string(nil), changed...), removed...)
		}
		for _, p := range paths {
			if f := rule.immutableField(p); f != "" {
				seen[f] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// immutableField is the immutable field path falls under, or "".
func (r immutableRule) immutableField(path string) string {
	for _, f := range r.fields {
		if under(path, f) {
			return f
		}
	}
	if r.onlyMutable != nil && path == "spec" {
		return "spec"
	}
	if r.onlyMutable != nil && under(path, "spec") {
		for _, m := range r.onlyMutable {
			if under(path, m) {
				return ""
			}
		}
		// Name the field of spec the path is in: spec.serviceName, not its leaf.
		rest := strings.TrimPrefix(path, "spec.")
		if i := strings.IndexAny(rest, ".["); i >= 0 {
			rest = rest[:i]
		}
		return "spec." + rest
	}
	return ""
}

// under says path is field or inside it.
func under(path, field string) bool {
	return path == field || strings.HasPrefix(path, field+".") || strings.HasPrefix(path, field+"[")
}
