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
	"fmt"
	"slices"
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
	referrer fieldSpec
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
		spec := mustFieldSpecs(FieldSpec{Group: group, Kind: kind, Path: path})[0]
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

// rename records that an object was renamed.
type rename struct {
	id               gvk
	namespace        string
	oldName, newName string
	clusterScoped    bool
	isServiceAccount bool
}

// renameKey finds renames by referred group, kind and old name.
type renameKey struct {
	group, kind, name string
}

// fixNameReferences rewrites every reference to a renamed object.
func fixNameReferences(objects []Object, renames []rename) error {
	if len(renames) == 0 {
		return nil
	}
	index := make(map[renameKey][]*rename, len(renames))
	for i := range renames {
		r := &renames[i]
		r.clusterScoped = isClusterScoped(r.id)
		r.isServiceAccount = r.id.kind == "ServiceAccount" && r.id.group == ""
		k := renameKey{r.id.group, r.id.kind, r.oldName}
		index[k] = append(index[k], r)
	}
	renamedKinds := map[gvkMatcher]bool{}
	for _, r := range renames {
		renamedKinds[gvkMatcher{group: r.id.group, kind: r.id.kind}] = true
	}
	// The references of each referrer kind to kinds that were renamed; most referrers have
	// none, and are then not walked at all.
	relevant := map[string][]*nameRef{}
	for _, obj := range objects {
		id := objectGVK(obj)
		refs, ok := relevant[id.kind]
		if !ok {
			byKind := nameRefsByKind()[id.kind]
			for i := range byKind {
				if ref := &byKind[i]; renamedKinds[ref.target] {
					refs = append(refs, ref)
				}
			}
			relevant[id.kind] = refs
		}
		if len(refs) == 0 {
			continue
		}
		f := refFixer{index: index, referrer: obj, referrerNS: objectNamespace(obj), referrerCluster: isClusterScoped(id)}
		for _, ref := range refs {
			if !ref.referrer.matches(id) {
				continue
			}
			f.target = ref.target
			if err := ref.referrer.apply(obj, f.fix); err != nil {
				return err
			}
		}
	}
	return nil
}

// refFixer rewrites the references of one referrer object to one target kind.
type refFixer struct {
	index           map[renameKey][]*rename
	referrer        Object
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
			parent[key] = r.newName
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
					v[i] = r.newName
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
	m["name"] = r.newName
	if r.namespace != "" {
		m["namespace"] = r.namespace
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
func (f *refFixer) lookup(name, namespace string, byNamespace bool) (*rename, error) {
	cands := f.index[renameKey{f.target.group, f.target.kind, name}]
	var found *rename
	for _, r := range cands {
		switch {
		case byNamespace:
			if !r.clusterScoped && effectiveNamespace(r.namespace) != effectiveNamespace(namespace) {
				continue
			}
		case f.referrerCluster, r.clusterScoped, r.isServiceAccount:
		default:
			if effectiveNamespace(r.namespace) != effectiveNamespace(f.referrerNS) {
				continue
			}
		}
		if found != nil && (found.newName != r.newName || found.namespace != r.namespace) {
			return nil, fmt.Errorf("%s refers to %s %q, which matches several renamed objects (%s, %s)",
				Describe(f.referrer), f.target.kind, name, qualified(found), qualified(r))
		}
		found = r
	}
	return found, nil
}

func qualified(r *rename) string {
	if r.namespace == "" {
		return r.newName
	}
	return strings.Join([]string{r.namespace, r.newName}, "/")
}

// RenameObjects gives every object for which newName answers true the name it returns, and
// rewrites the references to it that the name-reference table knows, as PrefixSuffixTransformer
// does; stencil export renames through it so that both follow one table. Kinds whose names are
// fixed by their content (CRDs, APIServices, Namespaces) are never renamed.
func RenameObjects(objects []Object, newName func(Object) (string, bool)) error {
	var renames []rename
	for _, obj := range objects {
		id := objectGVK(obj)
		old := objectName(obj)
		if skipRename(id) || old == "" {
			continue
		}
		name, ok := newName(obj)
		if !ok || name == old {
			continue
		}
		NestedMap(obj, "metadata")["name"] = name
		renames = append(renames, rename{id: id, namespace: objectNamespace(obj), oldName: old, newName: name})
	}
	return fixNameReferences(objects, renames)
}
