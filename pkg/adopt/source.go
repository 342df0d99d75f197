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
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
)

// Reader reads the cluster as the requester: adoption sees only what the requester may read.
type Reader interface {
	// Get reads one object.
	Get(ctx context.Context, resource schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error)
	// List visits the objects of a resource in a namespace that selector selects, a page at a
	// time: what the visit keeps of an object is all that outlives its page.
	List(ctx context.Context, resource schema.GroupVersionResource, namespace, selector string, visit func(*unstructured.Unstructured) error) error
}

// MaxSourceObjects bounds the objects one source claims (a selector's, an ApplySet's members,
// a release's manifest) and the records of one release.
const MaxSourceObjects = MaxManifestObjects

// slim is what a source keeps of a live object: what names it, its uid and its ApplySet
// membership, never its data (a selector may reach thousands of Secrets of a MiB each: the
// plan reads the objects the render names itself, as the requester).
func slim(u *unstructured.Unstructured) *unstructured.Unstructured {
	meta := map[string]any{"name": u.GetName(), "uid": string(u.GetUID())}
	if ns := u.GetNamespace(); ns != "" {
		meta["namespace"] = ns
	}
	if set, ok := u.GetLabels()[ApplySetPartOfLabel]; ok {
		meta["labels"] = map[string]any{ApplySetPartOfLabel: set}
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind(), "metadata": meta}}
}

// Record is an object of the old tool that says it manages the objects: removed last, once
// every object is the instance's.
type Record struct {
	Resource  schema.GroupVersionResource
	Namespace string
	Name      string
	UID       types.UID
}

func (r Record) String() string {
	return fmt.Sprintf("%s %s/%s", r.Resource.Resource, r.Namespace, r.Name)
}

// Source is what an adoption takes over, as read from the cluster.
type Source struct {
	// Description names it: "Helm release shop/web revision 2 (chart web-1.0.0)".
	Description string
	// Objects are the live objects it claims, by Ref.Key.
	Objects map[string]*unstructured.Unstructured
	// Records are removed last, in order: a release's newest record last, so that a removal
	// cut short leaves the release readable for the next pass.
	Records []Record
	// Take are the managers whose ownership moves.
	Take Managers
	// Missing are the objects the source names that do not exist.
	Missing []Ref
	// SetID is, for an ApplySet, its id: the part-of label its members carry. Any other
	// part-of label names another apply set (another instance's, another tool's), whose
	// objects no adoption takes.
	SetID string
}

var (
	secretsResource    = corev1.SchemeGroupVersion.WithResource("secrets")
	configMapsResource = corev1.SchemeGroupVersion.WithResource("configmaps")
)

// ReadSource reads what adoption a takes over in namespace: a Helm release's deployed
// objects, an ApplySet's members, or the objects of the kinds kinds (the render's) that a
// selector selects.
func ReadSource(ctx context.Context, r Reader, mapper meta.RESTMapper, namespace string, a *templatesv1.TemplateInstanceAdoption, kinds []schema.GroupVersionKind) (*Source, error) {
	extra := Managers{Names: a.Managers}
	switch {
	case a.HelmRelease != "":
		s, err := readHelmRelease(ctx, r, mapper, namespace, a.HelmRelease)
		if s != nil {
			s.Take = HelmManagers.Union(extra)
		}
		return s, err
	case a.ApplySet != "":
		s, err := readApplySet(ctx, r, mapper, namespace, a.ApplySet)
		if s != nil {
			s.Take = KubectlManagers.Union(extra)
		}
		return s, err
	case a.Selector != nil:
		s, err := readSelected(ctx, r, mapper, namespace, a.Selector, kinds)
		if s != nil {
			s.Take = KubectlManagers.Union(extra)
		}
		return s, err
	}
	return nil, fmt.Errorf("the adoption names no source")
}

func readHelmRelease(ctx context.Context, r Reader, mapper meta.RESTMapper, namespace, release string) (*Source, error) {
	// Every record is named (adoption removes them all), but only the newest one's release is
	// kept to decode: a release may have thousands of records of a MiB each.
	var records []HelmRecord
	uids := map[string]types.UID{}
	newest, newestRevision := -1, 0
	err := r.List(ctx, secretsResource, namespace, HelmRecordSelector(release), func(item *unstructured.Unstructured) error {
		if len(records) >= MaxSourceObjects {
			return fmt.Errorf("Helm release %s/%s has more than %d records", namespace, release, MaxSourceObjects)
		}
		var secret corev1.Secret
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, &secret); err != nil {
			return fmt.Errorf("Helm release record Secret %s/%s: %v", namespace, item.GetName(), err)
		}
		rec := HelmRecord{Name: secret.Name, Type: string(secret.Type), Labels: secret.Labels}
		if revision, err := strconv.Atoi(secret.Labels[helmVersionLabel]); err == nil && revision > newestRevision {
			if newest >= 0 {
				records[newest].Release = nil
			}
			newest, newestRevision, rec.Release = len(records), revision, secret.Data["release"]
		}
		records = append(records, rec)
		uids[secret.Name] = secret.UID
		return nil
	})
	if err != nil {
		return nil, err
	}
	rel, names, err := LatestHelmRelease(namespace, release, records)
	if err != nil {
		return nil, err
	}
	refs, err := ManifestObjects(rel.Manifest)
	if err != nil {
		return nil, fmt.Errorf("Helm release %s/%s revision %d: %w", namespace, release, rel.Revision, err)
	}
	s := &Source{Description: fmt.Sprintf("Helm release %s/%s revision %d (chart %s)", namespace, release, rel.Revision, rel.Chart)}
	if err := s.readObjects(ctx, r, mapper, namespace, refs); err != nil {
		return nil, err
	}
	latest := HelmRecordName(release, rel.Revision)
	sort.SliceStable(names, func(i, j int) bool { return names[j] == latest && names[i] != latest })
	for _, n := range names {
		s.Records = append(s.Records, Record{Resource: secretsResource, Namespace: namespace, Name: n, UID: uids[n]})
	}
	return s, nil
}

// readObjects reads the live object of each ref, in the release's namespace when its kind is
// namespaced and it names none.
func (s *Source) readObjects(ctx context.Context, r Reader, mapper meta.RESTMapper, namespace string, refs []Ref) error {
	s.Objects = map[string]*unstructured.Unstructured{}
	for _, ref := range refs {
		mapping, err := mapper.RESTMapping(ref.GroupKind(), ref.Version)
		if err != nil {
			return fmt.Errorf("%s: the cluster serves no such kind: %v", ref, err)
		}
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			if ref.Namespace == "" {
				ref.Namespace = namespace
			}
		} else {
			ref.Namespace = ""
		}
		live, err := r.Get(ctx, mapping.Resource, ref.Namespace, ref.Name)
		if apierrors.IsNotFound(err) {
			s.Missing = append(s.Missing, ref)
			continue
		}
		if err != nil {
			return err
		}
		s.Objects[ref.Key()] = slim(live)
	}
	return nil
}

func readApplySet(ctx context.Context, r Reader, mapper meta.RESTMapper, namespace, parentName string) (*Source, error) {
	kind, name, err := validation.ApplySetParent(parentName)
	if err != nil {
		return nil, err
	}
	resource := secretsResource
	if kind == "ConfigMap" {
		resource = configMapsResource
	}
	parent, err := r.Get(ctx, resource, namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("ApplySet parent %s %s/%s does not exist: %w", kind, namespace, name, ErrSourceGone)
	}
	if err != nil {
		return nil, err
	}
	ref := Ref{GroupVersionKind: corev1.SchemeGroupVersion.WithKind(kind), Namespace: namespace, Name: name}
	set, err := ReadApplySet(ref, parent.GetLabels(), parent.GetAnnotations())
	if err != nil {
		return nil, err
	}
	var mappings []*meta.RESTMapping
	for _, gk := range set.GroupKinds {
		m, err := mapper.RESTMapping(gk)
		if err != nil {
			return nil, fmt.Errorf("ApplySet parent %s: member kind %s: %v", ref, gk, err)
		}
		mappings = append(mappings, m)
	}
	for _, gr := range set.GroupResources {
		gvk, err := mapper.KindFor(gr.WithVersion(""))
		if err != nil {
			return nil, fmt.Errorf("ApplySet parent %s: member resource %s: %v", ref, gr, err)
		}
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return nil, err
		}
		mappings = append(mappings, m)
	}
	s := &Source{Description: fmt.Sprintf("ApplySet %s (%s)", ref, set.Tooling), Objects: map[string]*unstructured.Unstructured{}, SetID: set.ID}
	for _, m := range mappings {
		namespaces := set.Namespaces
		if m.Scope.Name() != meta.RESTScopeNameNamespace {
			namespaces = []string{""}
		}
		for _, ns := range namespaces {
			if err := s.list(ctx, r, m.Resource, ns, set.MemberSelector()); err != nil {
				return nil, err
			}
		}
	}
	s.Records = []Record{{Resource: resource, Namespace: namespace, Name: name, UID: parent.GetUID()}}
	return s, nil
}

func readSelected(ctx context.Context, r Reader, mapper meta.RESTMapper, namespace string, selector *metav1.LabelSelector, kinds []schema.GroupVersionKind) (*Source, error) {
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, err
	}
	var names []string
	s := &Source{Objects: map[string]*unstructured.Unstructured{}}
	for _, gvk := range kinds {
		gk := gvk.GroupKind()
		m, err := mapper.RESTMapping(gk, gvk.Version)
		if err != nil {
			return nil, fmt.Errorf("kind %s: %v", gk, err)
		}
		ns := namespace
		if m.Scope.Name() != meta.RESTScopeNameNamespace {
			// Selecting cluster-scoped objects by label would reach beyond the namespace.
			continue
		}
		names = append(names, gk.String())
		if err := s.list(ctx, r, m.Resource, ns, sel.String()); err != nil {
			return nil, err
		}
	}
	s.Description = fmt.Sprintf("the %s of namespace %s labelled %s", strings.Join(names, ", "), namespace, sel)
	return s, nil
}

func (s *Source) list(ctx context.Context, r Reader, resource schema.GroupVersionResource, namespace, selector string) error {
	return r.List(ctx, resource, namespace, selector, func(item *unstructured.Unstructured) error {
		ref, err := RefOf(item.Object)
		if err != nil {
			return err
		}
		if _, seen := s.Objects[ref.Key()]; !seen && len(s.Objects) >= MaxSourceObjects {
			return fmt.Errorf("more than %d objects to adopt (%s labelled %s and the others): adopt them in parts", MaxSourceObjects, resource.Resource, selector)
		}
		s.Objects[ref.Key()] = slim(item)
		return nil
	})
}
