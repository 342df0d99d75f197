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

package inventory

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Mapping finds the resource of a kind; an unknown kind resets the mapper's discovery and is
// looked up once more, as it may be a custom resource defined since the mapper last asked.
func Mapping(mapper meta.RESTMapper, gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err == nil || !meta.IsNoMatchError(err) {
		return m, err
	}
	meta.MaybeResetRESTMapper(mapper)
	return mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
}

// Namespaced reports whether the resource of mapping lives in namespaces.
func Namespaced(mapping *meta.RESTMapping) bool {
	return mapping.Scope.Name() == meta.RESTScopeNameNamespace
}

// Place gives obj the namespace it is applied in: its own, or namespace when it names none,
// for a namespaced kind; none for a cluster-scoped one.
func Place(obj *unstructured.Unstructured, mapping *meta.RESTMapping, namespace string) {
	switch {
	case !Namespaced(mapping):
		obj.SetNamespace("")
	case obj.GetNamespace() == "":
		obj.SetNamespace(namespace)
	}
}

// Label makes obj a member of the apply set id.
func Label(obj *unstructured.Unstructured, id string) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[PartOfLabel] = id
	obj.SetLabels(labels)
}
