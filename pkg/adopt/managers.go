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
	"bytes"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Managers says which field managers' ownership adoption takes over: those of the tool the
// objects come from. Controllers that write the same objects (the Deployment controller's
// revision annotation, an autoscaler's replicas) keep theirs.
type Managers struct {
	// Names are taken over exactly.
	Names []string
	// Prefixes take over every manager whose name starts with one: "kubectl" takes
	// kubectl-client-side-apply, kubectl-edit and kubectl-label.
	Prefixes []string
}

// HelmManagers are the managers of objects a Helm release wrote: the helm CLI's ("helm"), and
// a program's that links the Helm library, which names itself after its binary unless told.
var HelmManagers = Managers{Prefixes: []string{"helm"}}

// KubectlManagers are the managers of objects kubectl wrote: apply (client- and server-side),
// edit, label, annotate, scale, patch and the rest.
var KubectlManagers = Managers{Prefixes: []string{"kubectl"}}

// Takes says whether the ownership of manager moves.
func (m Managers) Takes(manager string) bool {
	for _, n := range m.Names {
		if manager == n {
			return true
		}
	}
	for _, p := range m.Prefixes {
		if strings.HasPrefix(manager, p) {
			return true
		}
	}
	return false
}

// Union takes over what either takes over.
func (m Managers) Union(o Managers) Managers {
	return Managers{Names: append(append([]string(nil), m.Names...), o.Names...), Prefixes: append(append([]string(nil), m.Prefixes...), o.Prefixes...)}
}

// TakeOver moves the ownership of every field the taken managers own on the object itself
// (not a subresource such as status) to manager as an Apply entry at apiVersion: it is the
// managed fields an adopting write sets before Stencil's first forced apply, so that the
// apply then owns every field the old tool set and removes those the render no longer sets,
// and no field is left to the old tool. It returns the new entries and the names of the
// managers whose fields moved; nil entries when nothing moves. Entries recorded at another
// apiVersion cannot be moved (a field set is only meaningful at its version): that is an
// error naming the manager.
func TakeOver(entries []metav1.ManagedFieldsEntry, take Managers, manager, apiVersion string, now metav1.Time) ([]metav1.ManagedFieldsEntry, []string, error) {
	owned := &fieldpath.Set{}
	target := -1
	var moved []string
	changed := false
	var kept []metav1.ManagedFieldsEntry
	for _, e := range entries {
		ours := e.Manager == manager
		if e.Subresource != "" || (!ours && !take.Takes(e.Manager)) {
			kept = append(kept, e)
			continue
		}
		if ours && e.Operation == metav1.ManagedFieldsOperationApply && e.APIVersion == apiVersion {
			target = len(kept)
			kept = append(kept, e)
			set, err := decodeFields(e)
			if err != nil {
				return nil, nil, err
			}
			owned = owned.Union(set)
			continue
		}
		if e.APIVersion != apiVersion {
			return nil, nil, fmt.Errorf("the fields of manager %q are recorded at %s, not %s: apply the object once at %s with that tool, then adopt it",
				e.Manager, e.APIVersion, apiVersion, apiVersion)
		}
		set, err := decodeFields(e)
		if err != nil {
			return nil, nil, err
		}
		owned = owned.Union(set)
		changed = true
		if !ours {
			moved = append(moved, e.Manager)
		}
	}
	if !changed {
		return nil, nil, nil
	}
	raw, err := owned.ToJSON()
	if err != nil {
		return nil, nil, err
	}
	entry := metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: apiVersion,
		Time: &now, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}}
	if target >= 0 {
		kept[target] = entry
	} else {
		kept = append(kept, entry)
	}
	sort.Strings(moved)
	return kept, moved, nil
}

// Removed is what a forced apply of a render removes after TakeOver: the fields the taken
// managers owned that the render (applied: the dry run's entry of manager) does not set and
// no remaining manager owns, as leaf paths. A map or list item that still holds a field
// someone owns is not removed (server-side apply adds such items back), so it is not listed.
func Removed(before []metav1.ManagedFieldsEntry, take Managers, applied []metav1.ManagedFieldsEntry, manager string) ([]fieldpath.Path, error) {
	taken, kept := &fieldpath.Set{}, &fieldpath.Set{}
	for _, e := range before {
		if e.Subresource != "" {
			continue
		}
		set, err := decodeFields(e)
		if err != nil {
			return nil, err
		}
		if e.Manager == manager || take.Takes(e.Manager) {
			taken = taken.Union(set)
		} else {
			kept = kept.Union(set)
		}
	}
	for _, e := range applied {
		if e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationApply && e.Subresource == "" {
			set, err := decodeFields(e)
			if err != nil {
				return nil, err
			}
			kept = kept.Union(set)
		}
	}
	// Every item on the way to a kept field stays.
	holding := &fieldpath.Set{}
	kept.Iterate(func(p fieldpath.Path) {
		for i := 1; i < len(p); i++ {
			holding.Insert(p[:i].Copy())
		}
	})
	var out []fieldpath.Path
	taken.Difference(kept).Leaves().Iterate(func(p fieldpath.Path) {
		if !holding.Has(p) {
			out = append(out, p.Copy())
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// PathString writes a path as the plan shows it: spec.template.spec.containers[name="web"].env.
func PathString(p fieldpath.Path) string { return strings.TrimPrefix(p.String(), ".") }

// ManagerNames lists the managers of the object itself, sorted, each once.
func ManagerNames(entries []metav1.ManagedFieldsEntry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		if e.Subresource == "" && !seen[e.Manager] {
			seen[e.Manager] = true
			out = append(out, e.Manager)
		}
	}
	sort.Strings(out)
	return out
}

func decodeFields(e metav1.ManagedFieldsEntry) (*fieldpath.Set, error) {
	set := &fieldpath.Set{}
	if e.FieldsV1 == nil || len(e.FieldsV1.Raw) == 0 {
		return set, nil
	}
	if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
		return nil, fmt.Errorf("the managed fields of %q: %v", e.Manager, err)
	}
	return set, nil
}
