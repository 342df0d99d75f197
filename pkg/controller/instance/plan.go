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
	"encoding/base64"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// Planned is one object to apply, with where it goes.
type Planned struct {
	Obj      *unstructured.Unstructured
	Resource schema.GroupVersionResource
	Ref      templatesv1.TemplateInstanceObject
	// Generated marks the instance's own Secret of generated values.
	Generated bool
}

// Object names where the planned object goes.
func (p *Planned) Object() Object {
	return Object{Resource: p.Resource, Namespace: p.Ref.Namespace, Name: p.Ref.Name}
}

func (p *Planned) String() string { return inventory.DescribeObject(p.Ref) }

// Plan maps every object to its resource, puts namespaced objects without a namespace in the
// instance's, and labels each a member of the instance's set; no object may be named after a
// value read from a Secret. The generated-values Secret, if any, comes first: its values must
// be stored before anything uses them. Every refused object is named in one InvalidObjects.
func (p *Planner) Plan(ti *templatesv1.TemplateInstance, r *Rendered) ([]*Planned, error) {
	id := inventory.ApplySetID(ti.Namespace, ti.Name)
	objects := r.Objects
	if len(r.Generated) > 0 {
		objects = append([]*unstructured.Unstructured{generatedSecret(ti, r.Generated)}, objects...)
	}
	var refused []string
	seen := map[string]bool{}
	out := make([]*Planned, 0, len(objects))
	for i, obj := range objects {
		gvk := obj.GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" || obj.GetName() == "" {
			refused = append(refused, fmt.Sprintf("object %d: apiVersion, kind and metadata.name are required", i))
			continue
		}
		mapping, err := inventory.Mapping(p.cfg.Mapper, gvk)
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s %s: the cluster serves no such kind: %v", gvk.Kind, obj.GetName(), err))
			continue
		}
		inventory.Place(obj, mapping, ti.Namespace)
		if r.FromSecrets.Holds(obj.GetName()) || r.FromSecrets.Holds(obj.GetNamespace()) {
			// Names are read by everyone who may list, and the instance's status lists them.
			refused = append(refused, fmt.Sprintf("object %d (%s): its name or namespace holds a value read from a Secret, "+
				"which would show it to everyone who may list %s or read the instance", i, gvk.Kind, mapping.Resource.Resource))
			continue
		}
		inventory.Label(obj, id)
		pl := &Planned{Obj: obj, Resource: mapping.Resource, Generated: len(r.Generated) > 0 && i == 0,
			Ref: templatesv1.TemplateInstanceObject{APIVersion: obj.GetAPIVersion(), Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}}
		if !pl.Generated {
			lifecycle, err := ObjectLifecycle(ti, obj, r.Revision)
			if err != nil {
				refused = append(refused, pl.String()+": "+err.Error())
				continue
			}
			pl.Ref.Lifecycle = lifecycle
		}
		if key := inventory.ObjectKey(pl.Ref); seen[key] {
			refused = append(refused, pl.String()+": rendered twice")
			continue
		} else {
			seen[key] = true
		}
		out = append(out, pl)
	}
	if len(refused) > 0 {
		return nil, Fail("InvalidObjects", "%s", strings.Join(refused, "; "))
	}
	return out, nil
}

// generatedSecret is the Secret of an instance's generated values, owned by the instance.
func generatedSecret(ti *templatesv1.TemplateInstance, values map[string]string) *unstructured.Unstructured {
	data := map[string]interface{}{}
	for k, v := range values {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	s := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "data": data,
		"metadata": map[string]interface{}{"name": GeneratedSecretName(ti.Name), "namespace": ti.Namespace},
	}}
	s.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: templatesv1.SchemeGroupVersion.String(), Kind: "TemplateInstance", Name: ti.Name, UID: ti.UID}})
	s.SetLabels(map[string]string{inventory.GeneratedValuesLabel: "true"})
	return s
}

// Members are the objects of a plan the instance's inventory lists (all but the
// generated-values Secret, which is bookkeeping), and their keys.
func Members(plan []*Planned) ([]templatesv1.TemplateInstanceObject, map[string]bool) {
	keep := map[string]bool{}
	var objects []templatesv1.TemplateInstanceObject
	for _, pl := range plan {
		if !pl.Generated {
			keep[inventory.ObjectKey(pl.Ref)] = true
			objects = append(objects, pl.Ref)
		}
	}
	return objects, keep
}
