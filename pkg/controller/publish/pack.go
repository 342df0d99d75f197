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

package publish

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/controller/instance"
)

// IsSecret tells a core v1 Secret: what a published render never carries to the artifact
// server, as whoever may read the ExternalArtifact could fetch it there.
func IsSecret(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return gvk.Group == "" && gvk.Kind == "Secret"
}

// FluxPruneAnnotation set to FluxPruneDisabled on an object keeps kustomize-controller from
// pruning it when a later artifact drops it, or when its Kustomization is deleted.
const (
	FluxPruneAnnotation = "kustomize.toolkit.fluxcd.io/prune"
	FluxPruneDisabled   = "disabled"
)

// Artifact packs the published part of a plan (Split's) as the artifact carries it, objects
// the template retains marked so: the controller publishes what it returns, and the preview of
// a published instance fails where it fails (a limit passed is an *artifact.LimitError).
func Artifact(published []*instance.Planned, limits artifact.Limits) (*artifact.Artifact, []templatesv1.TemplateInstanceObject, error) {
	objects := make([]*unstructured.Unstructured, len(published))
	for i, p := range published {
		objects[i] = p.Obj
		if p.Ref.Lifecycle == templatesv1.LifecycleRetain {
			objects[i] = Retained(p.Obj)
		}
	}
	a, refs, err := Pack(objects, limits)
	for i := range refs {
		refs[i].Lifecycle = published[i].Ref.Lifecycle
	}
	return a, refs, err
}

// Retained is obj as an artifact carries an object the template retains (lifecycle retain):
// Flux, which prunes what a published render drops, leaves it in place too. obj is not changed.
func Retained(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	annotations := out.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[FluxPruneAnnotation] = FluxPruneDisabled
	out.SetAnnotations(annotations)
	return out
}

// Pack packs the objects of a render (placed in their namespaces, without Secrets) into an
// artifact, and says which objects it holds.
func Pack(objects []*unstructured.Unstructured, limits artifact.Limits) (*artifact.Artifact, []templatesv1.TemplateInstanceObject, error) {
	if limits.MaxObjects > 0 && len(objects) > limits.MaxObjects {
		// Refused before anything is encoded.
		return nil, nil, &artifact.LimitError{What: "objects", Limit: int64(limits.MaxObjects), Got: int64(len(objects))}
	}
	packed := make([]artifact.Object, len(objects))
	refs := make([]templatesv1.TemplateInstanceObject, len(objects))
	for i, obj := range objects {
		data, err := obj.MarshalJSON()
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
		gvk := obj.GroupVersionKind()
		packed[i] = artifact.Object{Group: gvk.Group, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), JSON: data}
		refs[i] = templatesv1.TemplateInstanceObject{APIVersion: obj.GetAPIVersion(), Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	}
	a, err := artifact.Build(packed, limits)
	return a, refs, err
}

// RevisionName names a render in its revision: the stored Template's revision ("r3"), or the
// instance's generation for an inline template or one stored before revisions ("g5").
func RevisionName(templateRevision, generation int64) string {
	if templateRevision > 0 {
		return fmt.Sprintf("r%d", templateRevision)
	}
	return fmt.Sprintf("g%d", generation)
}

// Removed are the objects of the previous artifact the new one lacks: Flux prunes them (with a
// Kustomization's prune), so the requester and every author must be allowed to delete them, as
// for an applied instance's prune. One the template retained keeps its Lifecycle: Flux leaves
// it in place, and the prune rule asks for what releasing it takes, not for delete.
func Removed(prev *Storage, objects []templatesv1.TemplateInstanceObject) []templatesv1.TemplateInstanceObject {
	if prev == nil {
		return nil
	}
	kept := make(map[string]bool, len(objects))
	for _, o := range objects {
		kept[o.APIVersion+" "+o.Kind+" "+o.Namespace+" "+o.Name] = true
	}
	var out []templatesv1.TemplateInstanceObject
	for _, o := range prev.Objects {
		if !kept[o.APIVersion+" "+o.Kind+" "+o.Namespace+" "+o.Name] {
			out = append(out, o)
		}
	}
	return out
}

// SecretFields are the paths of the fields of obj (keys and values) that hold a secret value,
// as holds tells one: a published object may hold none, as whoever may read its
// ExternalArtifact may fetch the artifact.
func SecretFields(obj *unstructured.Unstructured, holds func(string) bool) []string {
	var out []string
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case string:
			if holds(v) {
				out = append(out, path)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				child := k
				if path != "" {
					child = path + "." + k
				}
				if holds(k) {
					out = append(out, child)
				}
				walk(v[k], child)
			}
		case []any:
			for i, item := range v {
				walk(item, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(obj.Object, "")
	return out
}
