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
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// creationOrder ranks kinds so that what others use exists first (Helm's install order); other
// kinds, custom resources among them, come last.
var creationOrder = sync.OnceValue(func() map[string]int {
	kinds := []string{
		"Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodDisruptionBudget",
		"ServiceAccount", "Secret", "ConfigMap", "PersistentVolumeClaim", "CustomResourceDefinition",
		"Role", "RoleBinding", "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet",
		"Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "Ingress",
	}
	rank := make(map[string]int, len(kinds))
	for i, k := range kinds {
		rank[k] = i
	}
	return rank
})

// sortForCreation orders objects by creationOrder, then by kind and name.
func sortForCreation(objects []Object) {
	rank := func(obj Object) int {
		if r, ok := creationOrder()[transform.NestedString(obj, "kind")]; ok {
			return r
		}
		return len(creationOrder())
	}
	slices.SortStableFunc(objects, func(a, b Object) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		if d := compare(transform.NestedString(a, "kind"), transform.NestedString(b, "kind")); d != 0 {
			return d
		}
		return compare(transform.NestedString(a, "metadata", "name"), transform.NestedString(b, "metadata", "name"))
	})
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// template escapes the objects' strings, makes the planned edits and returns the Template,
// validated as the server validates a Template it stores, and the objects it escaped text in.
func (p *planner) template(name string, objects []Object) (*templates.Template, []string, error) {
	names := make([]string, len(p.params))
	for i, param := range p.params {
		names[i] = param.Name
	}
	escaper := process.NewEscaper(names)
	var escaped []string
	for _, obj := range objects {
		if escapeStrings(obj, escaper) {
			escaped = append(escaped, describe(obj))
		}
	}
	for _, edit := range p.edits {
		if err := edit(); err != nil {
			return nil, nil, err
		}
	}
	raws, err := jsonbytes.EncodeObjects(objects)
	if err != nil {
		return nil, nil, err
	}
	t := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: name}, Parameters: p.params}
	t.Objects = make([]runtime.RawExtension, len(raws))
	for i, raw := range raws {
		t.Objects[i] = runtime.RawExtension{Raw: raw}
	}
	// The store fills in the namespace of the request; any one does for the checks.
	stored := *t
	stored.Namespace = metav1.NamespaceDefault
	engineErrs, _ := render.CheckTemplate(&stored, plugin.Policy{})
	errs := append(validation.ValidateTemplate(&stored), engineErrs...)
	if len(errs) > 0 {
		e := &fieldError{}
		for _, err := range validation.SortByField(errs) {
			e.problems = append(e.problems, err.Error())
		}
		return nil, nil, e
	}
	return t, escaped, nil
}

// escapeStrings writes every string and key under node through the escaper, and reports
// whether it changed any.
func escapeStrings(node any, e *process.Escaper) bool {
	changed := false
	escape := func(s string) string {
		out := e.Escape(s)
		changed = changed || out != s
		return out
	}
	var walk func(node any)
	walk = func(node any) {
		switch n := node.(type) {
		case map[string]any:
			var renamed map[string]string
			for k, v := range n {
				if s, ok := v.(string); ok {
					n[k] = escape(s)
				} else {
					walk(v)
				}
				if ek := escape(k); ek != k {
					if renamed == nil {
						renamed = map[string]string{}
					}
					renamed[k] = ek
				}
			}
			for k, ek := range renamed {
				n[ek] = n[k]
				delete(n, k)
			}
		case []any:
			for i, v := range n {
				if s, ok := v.(string); ok {
					n[i] = escape(s)
				} else {
					walk(v)
				}
			}
		}
	}
	walk(node)
	return changed
}
