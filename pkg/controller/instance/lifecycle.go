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

package instance

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// ObjectLifecycle is what becomes of a rendered object when the instance is deleted or stops
// rendering it: retain when the template annotates it so, or when an adoption with
// retainUntilUpgrade took it over and the instance runs still what it adopted at (the same
// generation of its spec, the same revision); "" (deleted) otherwise. An annotation that is
// neither retain nor delete (a parameter substituted into it) refuses the object.
func ObjectLifecycle(ti *templatesv1.TemplateInstance, obj *unstructured.Unstructured, revision int64) (string, error) {
	switch v, set := obj.GetAnnotations()[templatesv1.AnnotationLifecycle]; {
	case v == templatesv1.LifecycleRetain:
		return templatesv1.LifecycleRetain, nil
	case set && v != templatesv1.LifecycleDelete:
		return "", fmt.Errorf("annotation %s is %q: it must be %s or %s", templatesv1.AnnotationLifecycle, v, templatesv1.LifecycleDelete, templatesv1.LifecycleRetain)
	}
	a, done := ti.Spec.Adoption, ti.Status.Adoption
	if a == nil || !a.RetainUntilUpgrade || done == nil || done.Phase != templatesv1.AdoptionAdopted ||
		done.Generation != ti.Generation || done.Revision != revision {
		return "", nil
	}
	gvk := obj.GroupVersionKind()
	for _, o := range done.Objects {
		if o.Action == templatesv1.AdoptionAdopt && o.Kind == gvk.Kind && o.Name == obj.GetName() && o.Namespace == obj.GetNamespace() {
			return templatesv1.LifecycleRetain, nil
		}
	}
	return "", nil
}
