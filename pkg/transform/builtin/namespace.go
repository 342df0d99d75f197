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

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// The modes of NamespaceConfig.SetRoleBindingSubjects, as in Kustomize.
const (
	// SubjectsDefaultOnly moves ServiceAccount subjects named "default".
	SubjectsDefaultOnly = "defaultOnly"
	// SubjectsAllServiceAccounts moves every ServiceAccount subject.
	SubjectsAllServiceAccounts = "allServiceAccounts"
	// SubjectsNone leaves subjects alone, except those naming a ServiceAccount being moved.
	SubjectsNone = "none"
)

// NamespaceConfig is the config of NamespaceTransformer (Kustomize's namespace). The target
// namespace is metadata.namespace, as in Kustomize's builtin config.
type NamespaceConfig struct {
	transform.ConfigMeta
	// UnsetOnly only sets the namespace of objects that have none.
	UnsetOnly bool `json:"unsetOnly,omitempty"`
	// SetRoleBindingSubjects is defaultOnly (the default), allServiceAccounts or none.
	// Subjects naming a ServiceAccount among the objects always follow it, as Kustomize's
	// Name-reference pass makes them.
	SetRoleBindingSubjects string `json:"setRoleBindingSubjects,omitempty"`
	// FieldSpecs, when given, replace the default fields besides metadata.namespace.
	FieldSpecs []filters.FieldSpec `json:"fieldSpecs,omitempty"`
}

type namespaceTransformer struct {
	namespace string
	unsetOnly bool
	subjects  string
	specs     filters.SpecSet
}

func newNamespaceTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c NamespaceConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	var errs field.ErrorList
	if ns := c.Metadata.Namespace; ns != "" {
		for _, msg := range validation.IsDNS1123Label(ns) {
			errs = append(errs, field.Invalid(fldPath.Child("metadata", "namespace"), ns, msg))
		}
	}
	switch c.SetRoleBindingSubjects {
	case "":
		c.SetRoleBindingSubjects = SubjectsDefaultOnly
	case SubjectsDefaultOnly, SubjectsAllServiceAccounts, SubjectsNone:
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("setRoleBindingSubjects"), c.SetRoleBindingSubjects,
			[]string{SubjectsDefaultOnly, SubjectsAllServiceAccounts, SubjectsNone}))
	}
	specs, specErrs := filters.CompileFieldSpecs(c.FieldSpecs, fldPath.Child("fieldSpecs"))
	errs = append(errs, specErrs...)
	// metadata/namespace is always handled by scope, as Kustomize does.
	if c.FieldSpecs == nil {
		specs = defaultNamespaceFields
	}
	var kept []filters.CompiledFieldSpec
	for _, s := range specs {
		if s.Path != "metadata/namespace" {
			kept = append(kept, s)
		}
	}
	return &namespaceTransformer{namespace: c.Metadata.Namespace, unsetOnly: c.UnsetOnly, subjects: c.SetRoleBindingSubjects, specs: filters.NewSpecSet(kept)}, errs
}

// saKey identifies a ServiceAccount by name and effective namespace.
type saKey struct{ name, namespace string }

// Transform sets metadata.namespace of namespaced objects, the namespace fields of the specs
// and the namespace of RoleBinding subjects.
func (t *namespaceTransformer) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	if t.namespace == "" {
		return objects, nil
	}
	set := func(parent map[string]any, key string) error {
		cur, ok := parent[key].(string)
		if !ok && parent[key] != nil {
			return fmt.Errorf("not a string")
		}
		if !t.unsetOnly || cur == "" {
			parent[key] = t.namespace
		}
		return nil
	}
	// The ServiceAccounts being moved, by their namespace before the move.
	moved := map[saKey]string{}
	var bindings []transform.Object
	seen := make(map[[4]string]bool, len(objects))
	for _, obj := range objects {
		id := transform.GVKOf(obj)
		if !filters.IsClusterScoped(id) {
			ctx.RecordOrigin(obj)
			meta, err := transform.EnsureMap(obj, "metadata")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", transform.Describe(obj), err)
			}
			old := filters.EffectiveNamespace(transform.NamespaceOf(obj))
			if err := set(meta, "namespace"); err != nil {
				return nil, fmt.Errorf("%s: metadata.namespace: %w", transform.Describe(obj), err)
			}
			if id.Group == "" && id.Kind == "ServiceAccount" {
				moved[saKey{transform.NameOf(obj), old}] = transform.NamespaceOf(obj)
			}
		}
		if id.Group == "rbac.authorization.k8s.io" && (id.Kind == "RoleBinding" || id.Kind == "ClusterRoleBinding") {
			bindings = append(bindings, obj)
		}
		for _, s := range t.specs.ForKind(id.Kind) {
			// metadata/name only renames Namespace objects of the core group.
			if !s.Matches(id) || (s.Path == "metadata/name" && transform.NestedString(obj, "apiVersion") != "v1") {
				continue
			}
			if err := s.Apply(obj, set); err != nil {
				return nil, err
			}
		}
		key := [4]string{transform.NestedString(obj, "apiVersion"), id.Kind, transform.NamespaceOf(obj), transform.NameOf(obj)}
		if seen[key] && key[3] != "" {
			return nil, fmt.Errorf("setting namespace %q makes two objects %s", t.namespace, transform.Describe(obj))
		}
		seen[key] = true
	}
	for _, b := range bindings {
		t.fixSubjects(b, moved)
	}
	return objects, nil
}

// fixSubjects moves the ServiceAccount subjects of a binding.
func (t *namespaceTransformer) fixSubjects(binding transform.Object, moved map[saKey]string) {
	subjects, _ := binding["subjects"].([]any)
	for _, s := range subjects {
		subj, ok := s.(map[string]any)
		if !ok || subj["kind"] != "ServiceAccount" {
			continue
		}
		name, _ := subj["name"].(string)
		ns, _ := subj["namespace"].(string)
		if to, ok := moved[saKey{name, filters.EffectiveNamespace(ns)}]; ok {
			subj["namespace"] = to
			continue
		}
		if ns == "" {
			// A subject without namespace refers to a moved ServiceAccount of that name in
			// any namespace, as Kustomize resolves it.
			if to, ok := movedByName(moved, name); ok {
				subj["namespace"] = to
				continue
			}
		}
		switch {
		case t.subjects == SubjectsAllServiceAccounts,
			t.subjects == SubjectsDefaultOnly && name == "default":
			if !t.unsetOnly || ns == "" {
				subj["namespace"] = t.namespace
			}
		}
	}
}

// movedByName finds the single moved ServiceAccount of a name.
func movedByName(moved map[saKey]string, name string) (string, bool) {
	found, n := "", 0
	for k, to := range moved {
		if k.name == name {
			found, n = to, n+1
		}
	}
	return found, n == 1
}
