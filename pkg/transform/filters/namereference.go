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

package filters

import (
	"fmt"
	"slices"
	"stencil.dev/stencil/pkg/transform"
	"strings"
	"sync"
)

// This file is Stencil's name-reference table and the fix-up that follows a rename, the
// counterpart of Kustomize's nameReference config and FixBackReferences. Kustomize defers the
// fix-up to the end of a build and finds referrals through previous-name annotations; here the
// renaming transformer fixes references at once, which gives the same result because every
// later transformer sees the new names.

// nameRef says that the field of referrer objects names an object of kind target.
type nameRef struct {
	target   gvkMatcher // group and kind of the referred object
	referrer CompiledFieldSpec
}

// podSpecPaths are the pod specs of each workload kind.
var podSpecPaths = []struct{ kind, group, path string }{
	{"Pod", "", "spec"},
	{"PodTemplate", "", "template/spec"},
	{"Deployment", "", "spec/template/spec"},
	{"ReplicaSet", "", "spec/template/spec"},
	{"DaemonSet", "", "spec/template/spec"},
	{"StatefulSet", "", "spec/template/spec"},
	{"ReplicationController", "", "spec/template/spec"},
	{"Job", "", "spec/template/spec"},
	{"CronJob", "", "spec/jobTemplate/spec/template/spec"},
}

// podSpecRefs are the references inside a pod spec, by referred kind.
var podSpecRefs = []struct {
	target gvkMatcher
	paths  []string
}{
	{gvkMatcher{kind: "ConfigMap"}, []string{
		"volumes/configMap/name",
		"volumes/projected/sources/configMap/name",
		"containers/env/valueFrom/configMapKeyRef/name",
		"initContainers/env/valueFrom/configMapKeyRef/name",
		"ephemeralContainers/env/valueFrom/configMapKeyRef/name",
		"containers/envFrom/configMapRef/name",
		"initContainers/envFrom/configMapRef/name",
		"ephemeralContainers/envFrom/configMapRef/name",
	}},
	{gvkMatcher{kind: "Secret"}, []string{
		"volumes/secret/secretName",
		"volumes/projected/sources/secret/name",
		"containers/env/valueFrom/secretKeyRef/name",
		"initContainers/env/valueFrom/secretKeyRef/name",
		"ephemeralContainers/env/valueFrom/secretKeyRef/name",
		"containers/envFrom/secretRef/name",
		"initContainers/envFrom/secretRef/name",
		"ephemeralContainers/envFrom/secretRef/name",
		"imagePullSecrets/name",
	}},
	{gvkMatcher{kind: "ServiceAccount"}, []string{"serviceAccountName"}},
	{gvkMatcher{kind: "PersistentVolumeClaim"}, []string{"volumes/persistentVolumeClaim/claimName"}},
	{gvkMatcher{group: "scheduling.k8s.io", kind: "PriorityClass"}, []string{"priorityClassName"}},
}

// otherRefs are the references outside pod specs: {target group, target kind, referrer group,
// referrer kind, path}.
var otherRefs = [][5]string{
	{"", "ConfigMap", "rbac.authorization.k8s.io", "Role", "rules/resourceNames"},
	{"", "ConfigMap", "rbac.authorization.k8s.io", "ClusterRole", "rules/resourceNames"},
	{"", "ConfigMap", "", "Ingress", `metadata/annotations/nginx.ingress.kubernetes.io\/fastcgi-params-configmap`},
	{"", "Secret", "", "Ingress", "spec/tls/secretName"},
	{"", "Secret", "", "Ingress", `metadata/annotations/ingress.kubernetes.io\/auth-secret`},
	{"", "Secret", "", "Ingress", `metadata/annotations/nginx.ingress.kubernetes.io\/auth-secret`},
	{"", "Secret", "", "Ingress", `metadata/annotations/nginx.ingress.kubernetes.io\/auth-tls-secret`},
	{"", "Secret", "", "ServiceAccount", "imagePullSecrets/name"},
	{"", "Secret", "", "ServiceAccount", "secrets/name"},
	{"", "Secret", "storage.k8s.io", "StorageClass", "parameters/secretName"},
	{"", "Secret", "storage.k8s.io", "StorageClass", "parameters/adminSecretName"},
	{"", "Secret", "storage.k8s.io", "StorageClass", "parameters/userSecretName"},
	{"", "Secret", "storage.k8s.io", "StorageClass", "parameters/secretRef"},
	{"", "Secret", "rbac.authorization.k8s.io", "Role", "rules/resourceNames"},
	{"", "Secret", "rbac.authorization.k8s.io", "ClusterRole", "rules/resourceNames"},
	{"", "Secret", "", "PersistentVolume", "spec/azureFile/secretName"},
	{"", "Service", "apps", "StatefulSet", "spec/serviceName"},
	{"", "Service", "", "Ingress", "spec/rules/http/paths/backend/serviceName"},
	{"", "Service", "", "Ingress", "spec/backend/serviceName"},
	{"", "Service", "", "Ingress", "spec/rules/http/paths/backend/service/name"},
	{"", "Service", "", "Ingress", "spec/defaultBackend/service/name"},
	{"", "Service", "apiregistration.k8s.io", "APIService", "spec/service/name"},
	{"", "Service", "admissionregistration.k8s.io", "ValidatingWebhookConfiguration", "webhooks/clientConfig/service"},
	{"", "Service", "admissionregistration.k8s.io", "MutatingWebhookConfiguration", "webhooks/clientConfig/service"},
	{"rbac.authorization.k8s.io", "Role", "rbac.authorization.k8s.io", "RoleBinding", "roleRef/name"},
	{"rbac.authorization.k8s.io", "ClusterRole", "rbac.authorization.k8s.io", "RoleBinding", "roleRef/name"},
	{"rbac.authorization.k8s.io", "ClusterRole", "rbac.authorization.k8s.io", "ClusterRoleBinding", "roleRef/name"},
	{"", "ServiceAccount", "rbac.authorization.k8s.io", "RoleBinding", "subjects"},
	{"", "ServiceAccount", "rbac.authorization.k8s.io", "ClusterRoleBinding", "subjects"},
	{"", "PersistentVolume", "", "PersistentVolumeClaim", "spec/volumeName"},
	{"", "PersistentVolume", "rbac.authorization.k8s.io", "ClusterRole", "rules/resourceNames"},
	{"storage.k8s.io", "StorageClass", "", "PersistentVolume", "spec/storageClassName"},
	{"storage.k8s.io", "StorageClass", "", "PersistentVolumeClaim", "spec/storageClassName"},
	{"storage.k8s.io", "StorageClass", "apps", "StatefulSet", "spec/volumeClaimTemplates/spec/storageClassName"},
	{"networking.k8s.io", "IngressClass", "", "Ingress", "spec/ingressClassName"},
	{"apps", "Deployment", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name"},
	{"apps", "ReplicaSet", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name"},
	{"apps", "StatefulSet", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name"},
	{"", "ReplicationController", "", "HorizontalPodAutoscaler", "spec/scaleTargetRef/name"},
	{"admissionregistration.k8s.io", "ValidatingAdmissionPolicy", "admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", "spec/policyName"},
}

// nameRefsByKind indexes the table by referrer kind. It is built the first time a rename
// needs it, not when the package initialises: parsing its field specs is a quarter of the
// package initialisation that every stencil command pays.
var nameRefsByKind = sync.OnceValue(func() map[string][]nameRef {
	byKind := map[string][]nameRef{}
	add := func(target gvkMatcher, group, kind, path string) {
		spec := MustFieldSpecs(FieldSpec{Group: group, Kind: kind, Path: path})[0]
		byKind[kind] = append(byKind[kind], nameRef{target: target, referrer: spec})
	}
	for _, ps := range podSpecPaths {
		for _, r := range podSpecRefs {
			for _, p := range r.paths {
				add(r.target, ps.group, ps.kind, ps.path+"/"+p)
			}
		}
	}
	for _, r := range otherRefs {
		add(gvkMatcher{group: r[0], kind: r[1]}, r[2], r[3], r[4])
	}
	return byKind
})

// resourcePlurals are the RBAC resource names of the kinds referred to from rules.
var resourcePlurals = map[string]string{"ConfigMap": "configmaps", "Secret": "secrets", "PersistentVolume": "persistentvolumes"}

// Rename records that an object was renamed.
type Rename struct {
	// ID is the object's group, version and kind (after the rename), Namespace its namespace.
	ID        transform.GVK
	Namespace string
	// OldName and NewName are its name before and after.
	OldName, NewName string
	clusterScoped    bool
	isServiceAccount bool
}

// renameKey finds renames by referred group, kind and old name.
type renameKey struct {
	group, kind, name string
}

// FixNameReferences rewrites every reference to a renamed object.
func FixNameReferences(objects []transform.Object, renames []Rename) error {
	if len(renames) == 0 {
		return nil
	}
	index := make(map[renameKey][]*Rename, len(renames))
	for i := range renames {
		r := &renames[i]
		r.clusterScoped = IsClusterScoped(r.ID)
		r.isServiceAccount = r.ID.Kind == "ServiceAccount" && r.ID.Group == ""
		k := renameKey{r.ID.Group, r.ID.Kind, r.OldName}
		index[k] = append(index[k], r)
	}
	renamedKinds := map[gvkMatcher]bool{}
	for _, r := range renames {
		renamedKinds[gvkMatcher{group: r.ID.Group, kind: r.ID.Kind}] = true
	}
	// The references of each referrer kind to kinds that were renamed; most referrers have
	// none, and are then not walked at all.
	relevant := map[string][]*nameRef{}
	for _, obj := range objects {
		id := transform.GVKOf(obj)
		refs, ok := relevant[id.Kind]
		if !ok {
			byKind := nameRefsByKind()[id.Kind]
			for i := range byKind {
				if ref := &byKind[i]; renamedKinds[ref.target] {
					refs = append(refs, ref)
				}
			}
			relevant[id.Kind] = refs
		}
		if len(refs) == 0 {
			continue
		}
		f := refFixer{index: index, referrer: obj, referrerNS: transform.NamespaceOf(obj), referrerCluster: IsClusterScoped(id)}
		for _, ref := range refs {
			if !ref.referrer.Matches(id) {
				continue
			}
			f.target = ref.target
			if err := ref.referrer.Apply(obj, f.fix); err != nil {
				return err
			}
		}
	}
	return nil
}

// refFixer rewrites the references of one referrer object to one target kind.
type refFixer struct {
	index           map[renameKey][]*Rename
	referrer        transform.Object
	referrerNS      string
	referrerCluster bool
	target          gvkMatcher
}

// fix handles the field parent[key]: a name, a list of names, or {name, namespace} objects.
func (f *refFixer) fix(parent map[string]any, key string) error {
	// A reference object that says which kind it refers to (roleRef, scaleTargetRef) is
	// only fixed for that kind.
	if k, ok := parent["kind"].(string); ok && key == "name" && k != f.target.kind {
		return nil
	}
	switch v := parent[key].(type) {
	case string:
		if r, err := f.lookup(v, "", false); err != nil || r == nil {
			return err
		} else {
			parent[key] = r.NewName
		}
	case map[string]any:
		return f.fixMapping(v)
	case []any:
		if key == "resourceNames" && !f.ruleCoversTarget(parent) {
			return nil
		}
		for i, e := range v {
			switch e := e.(type) {
			case string:
				r, err := f.lookup(e, "", false)
				if err != nil {
					return err
				}
				if r != nil {
					v[i] = r.NewName
				}
			case map[string]any:
				if err := f.fixMapping(e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// fixMapping fixes {name, namespace[, kind]} as in RoleBinding subjects and webhook services.
func (f *refFixer) fixMapping(m map[string]any) error {
	if k, ok := m["kind"].(string); ok && k != f.target.kind {
		return nil
	}
	name, ok := m["name"].(string)
	if !ok {
		return nil
	}
	ns, hasNS := m["namespace"].(string)
	r, err := f.lookup(name, ns, hasNS && ns != "")
	if err != nil || r == nil {
		return err
	}
	m["name"] = r.NewName
	if r.Namespace != "" {
		m["namespace"] = r.Namespace
	}
	return nil
}

// ruleCoversTarget reports whether an RBAC rule is about the target kind's resource.
func (f *refFixer) ruleCoversTarget(rule map[string]any) bool {
	plural := resourcePlurals[f.target.kind]
	resources, _ := rule["resources"].([]any)
	return slices.ContainsFunc(resources, func(r any) bool { s, _ := r.(string); return s == plural || s == "*" })
}

// lookup finds the rename of the referred object, filtering candidates by namespace as
// Kustomize does: a given namespace must match; otherwise a namespaced referrer only refers to
// objects of its own namespace, except cluster-scoped ones and ServiceAccounts.
func (f *refFixer) lookup(name, namespace string, byNamespace bool) (*Rename, error) {
	cands := f.index[renameKey{f.target.group, f.target.kind, name}]
	var found *Rename
	for _, r := range cands {
		switch {
		case byNamespace:
			if !r.clusterScoped && EffectiveNamespace(r.Namespace) != EffectiveNamespace(namespace) {
				continue
			}
		case f.referrerCluster, r.clusterScoped, r.isServiceAccount:
		default:
			if EffectiveNamespace(r.Namespace) != EffectiveNamespace(f.referrerNS) {
				continue
			}
		}
		if found != nil && (found.NewName != r.NewName || found.Namespace != r.Namespace) {
			return nil, fmt.Errorf("%s refers to %s %q, which matches several renamed objects (%s, %s)",
				transform.Describe(f.referrer), f.target.kind, name, qualified(found), qualified(r))
		}
		found = r
	}
	return found, nil
}

func qualified(r *Rename) string {
	if r.Namespace == "" {
		return r.NewName
	}
	return strings.Join([]string{r.Namespace, r.NewName}, "/")
}

// prefixSuffixSkip are the kinds Kustomize never renames: their names are fixed by their
// content (CRDs, APIServices) or are the namespace itself.
var prefixSuffixSkip = []gvkMatcher{
	{kind: "CustomResourceDefinition"},
	{group: "apiregistration.k8s.io", kind: "APIService"},
	{kind: "Namespace"},
}

// SkipsRename reports whether objects of id keep their name whatever renames them.
func SkipsRename(id transform.GVK) bool {
	for _, m := range prefixSuffixSkip {
		if m.matches(id) {
			return true
		}
	}
	return false
}

// RenameObjects gives every object for which newName answers true the name it returns, and
// rewrites the references to it that the name-reference table knows, as PrefixSuffixTransformer
// does; stencil export renames through it so that both follow one table. Kinds whose names are
// fixed by their content (CRDs, APIServices, Namespaces) are never renamed.
func RenameObjects(objects []transform.Object, newName func(transform.Object) (string, bool)) error {
	var renames []Rename
	for _, obj := range objects {
		id := transform.GVKOf(obj)
		old := transform.NameOf(obj)
		if SkipsRename(id) || old == "" {
			continue
		}
		name, ok := newName(obj)
		if !ok || name == old {
			continue
		}
		transform.NestedMap(obj, "metadata")["name"] = name
		renames = append(renames, Rename{ID: id, Namespace: transform.NamespaceOf(obj), OldName: old, NewName: name})
	}
	return FixNameReferences(objects, renames)
}
