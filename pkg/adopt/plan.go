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
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Action is what adoption does with one object.
type Action string

const (
	// Adopt takes a live object of the source over: its fields become the instance's.
	Adopt Action = "Adopt"
	// Create creates an object the render has and the cluster has not.
	Create Action = "Create"
	// Owned is an object already the instance's: an earlier run took it over.
	Owned Action = "Owned"
	// LeaveInPlace leaves an object of the source that the render lacks where it is, without
	// the old tool's ownership.
	LeaveInPlace Action = "LeaveInPlace"
	// Refuse is an object the adoption cannot take: the plan says why.
	Refuse Action = "Refuse"
)

// maxPaths bounds the paths listed per object and list; the rest are counted.
const maxPaths = 64

// ObjectPlan is what adoption does with one object, and what that changes.
type ObjectPlan struct {
	Ref Ref
	// UID is the live object's.
	UID types.UID
	// Action is what happens to it.
	Action Action
	// Changed are the fields the render changes or adds; Removed those it no longer sets,
	// which the old tool did.
	Changed, Removed []string
	// Managers are the field managers whose ownership moves to Stencil's.
	Managers []string
	// Immutable are the immutable fields the render would change: each refuses the adoption.
	Immutable []string
	// Lifecycle is retain or delete: what becomes of the object when the instance is deleted.
	Lifecycle string
	// Problems refuse the adoption.
	Problems []string
}

// Candidate is one object of the render with what the cluster said of it.
type Candidate struct {
	// Rendered is the object as the instance applies it: placed in its namespace and
	// labelled a member of the instance's set.
	Rendered *unstructured.Unstructured
	// Live is the object as it is, nil when it does not exist.
	Live *unstructured.Unstructured
	// DryRun is the server's answer to a dry-run apply of Rendered by Manager (forced, for an
	// object of the source), or DryRunErr its refusal.
	DryRun    *unstructured.Unstructured
	DryRunErr error
	// Final is, for an object of the source, the server's answer to a dry run of the object
	// the takeover ends with (FinalPatch of Desired): defaulted and validated. FinalErr is its
	// refusal.
	Final    *unstructured.Unstructured
	FinalErr error
}

// Input is what a plan is made of.
type Input struct {
	// SetID is the instance's ApplySet id, the part-of label of its members; SourceSetID the
	// adopted ApplySet's (Source.SetID), empty for other sources.
	SetID, SourceSetID string
	// Source are the live objects the source claims, by Ref.Key.
	Source map[string]*unstructured.Unstructured
	// Candidates are the render's objects, in apply order.
	Candidates []Candidate
	// Take are the managers whose ownership moves; Manager is Stencil's.
	Take    Managers
	Manager string
	// RetainAll marks every object taken over retain, until the instance's first upgrade.
	RetainAll bool
	// LeaveUnrendered leaves the source's objects the render lacks in place instead of
	// refusing the adoption.
	LeaveUnrendered bool
}

// Result is the plan of every object: the render's, then the source's that it lacks.
type Result struct {
	Objects []ObjectPlan
}

// Refused says whether any object refuses the adoption.
func (r *Result) Refused() bool {
	for _, o := range r.Objects {
		if len(o.Problems) > 0 || len(o.Immutable) > 0 {
			return true
		}
	}
	return false
}

// Problems lists what refuses the adoption, one line per problem, each naming its object.
func (r *Result) Problems() []string {
	var out []string
	for _, o := range r.Objects {
		for _, f := range o.Immutable {
			out = append(out, fmt.Sprintf("%s: %s is immutable and the render changes it: adoption never recreates an object", o.Ref, f))
		}
		for _, p := range o.Problems {
			out = append(out, o.Ref.String()+": "+p)
		}
	}
	return out
}

// Plan plans the adoption of every object: what each render changes on the live object (the
// dry run's answer, compared with the live object, plus what the forced apply removes once
// the old managers' fields are Stencil's), what it cannot change (immutable fields), and what
// refuses it.
func Plan(in Input) (*Result, error) {
	res := &Result{}
	rendered := map[string]bool{}
	for _, c := range in.Candidates {
		ref, err := RefOf(c.Rendered.Object)
		if err != nil {
			return nil, err
		}
		rendered[ref.Key()] = true
		p, err := planObject(in, ref, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ref, err)
		}
		res.Objects = append(res.Objects, p)
	}
	keys := make([]string, 0, len(in.Source))
	for k := range in.Source {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if rendered[k] {
			continue
		}
		live := in.Source[k]
		ref, err := RefOf(live.Object)
		if err != nil {
			return nil, err
		}
		p := ObjectPlan{Ref: ref, UID: live.GetUID(), Action: LeaveInPlace}
		switch other := otherSet(in, live); {
		case other != "":
			// Left in place, it would lose another set's label.
			p.Action = Refuse
			p.Problems = []string{"it is a member of another apply set (" + other +
				"): Stencil never takes an object from another instance or tool; remove it from that set first"}
		case !in.LeaveUnrendered:
			p.Action = Refuse
			p.Problems = []string{"the Template does not render it: adopting would leave it behind with no owner " +
				"(render it, or leave it in place on purpose with --leave-unrendered)"}
		}
		res.Objects = append(res.Objects, p)
	}
	return res, nil
}

// otherSet is the apply set live is a member of when that is neither the instance's nor the
// adopted ApplySet: "" when it is no other set's.
func otherSet(in Input, live *unstructured.Unstructured) string {
	id := live.GetLabels()[ApplySetPartOfLabel]
	if id == "" || id == in.SetID || (in.SourceSetID != "" && id == in.SourceSetID) {
		return ""
	}
	return id
}

func planObject(in Input, ref Ref, c Candidate) (ObjectPlan, error) {
	p := ObjectPlan{Ref: ref, Lifecycle: lifecycleOf(c.Rendered)}
	if keys := OwnershipMetadata(c.Rendered); len(keys) > 0 {
		p.Problems = append(p.Problems, "the Template renders the old tool's ownership metadata "+strings.Join(keys, ", ")+
			": remove it from the Template, or the old tool still claims the object")
	}
	if c.Live != nil {
		p.UID = c.Live.GetUID()
	}
	switch {
	case c.Live == nil:
		p.Action = Create
	case in.Source[ref.Key()] != nil && in.Source[ref.Key()].GetUID() == c.Live.GetUID() && otherSet(in, c.Live) != "":
		// A selector or a release record (which whoever may write Secrets writes) may name an
		// object of another apply set: another instance's, whose next pass would fight over it.
		p.Action = Refuse
		p.Problems = append(p.Problems, "it is a member of another apply set ("+otherSet(in, c.Live)+
			"): Stencil never takes an object from another instance or tool; remove it from that set first")
		return p, nil
	case in.Source[ref.Key()] != nil && in.Source[ref.Key()].GetUID() == c.Live.GetUID():
		// Taken over again when an earlier run was cut short: every step is idempotent.
		p.Action = Adopt
		if in.RetainAll {
			p.Lifecycle = templates.LifecycleRetain
		}
	case c.Live.GetLabels()[ApplySetPartOfLabel] == in.SetID:
		p.Action = Owned
	default:
		p.Action = Refuse
		p.Problems = append(p.Problems, "it exists and is not one of the objects adopted: "+ownerOf(c.Live))
		return p, nil
	}
	refusal := c.DryRunErr
	if refusal == nil && p.Action == Adopt {
		refusal = c.FinalErr
	}
	if refusal != nil {
		immutable, other := dryRunRefusal(refusal, ref.Group == "" && ref.Kind == "Secret")
		p.Immutable = append(p.Immutable, immutable...)
		p.Problems = append(p.Problems, other...)
		if c.Live != nil && c.DryRun != nil {
			// The server names what it refuses; the kinds' rules name the fields among what
			// the render changes.
			p.Immutable = dedupe(append(p.Immutable, ImmutableChanges(ref.GroupKind(), c.Live.Object, Changes(c.Live.Object, c.DryRun.Object), nil)...))
		}
		return p, nil
	}
	after := c.DryRun
	if p.Action == Adopt {
		after = c.Final
		p.Managers = movedManagers(c.Live, in.Take, in.Manager)
	}
	if c.Live == nil || after == nil {
		return p, nil
	}
	p.Changed, p.Removed = Diff(c.Live.Object, after.Object)
	p.Changed, p.Removed = capPaths(p.Changed), capPaths(p.Removed)
	return p, nil
}

// lifecycleOf is the render's lifecycle of obj: retain when annotated so, else delete.
func lifecycleOf(obj *unstructured.Unstructured) string {
	if obj.GetAnnotations()[templates.LifecycleAnnotation] == templates.LifecycleRetain {
		return templates.LifecycleRetain
	}
	return templates.LifecycleDelete
}

// ownerOf says whose a live object is, as far as its labels tell.
func ownerOf(live *unstructured.Unstructured) string {
	switch {
	case live.GetLabels()[ApplySetPartOfLabel] != "":
		return "it belongs to the apply set " + live.GetLabels()[ApplySetPartOfLabel]
	case live.GetAnnotations()[helmReleaseNameAnnotation] != "":
		return "it belongs to Helm release " + live.GetAnnotations()[helmReleaseNameAnnotation]
	}
	return "Stencil never takes over an object it was not asked to"
}

// movedManagers names the managers of live whose ownership moves.
func movedManagers(live *unstructured.Unstructured, take Managers, manager string) []string {
	var out []string
	for _, name := range ManagerNames(live.GetManagedFields()) {
		if name != manager && take.Takes(name) {
			out = append(out, name)
		}
	}
	return out
}

// dryRunRefusal splits the causes of a refused dry run into immutable fields and other
// problems. The causes of a Secret's are told by field and type only: their messages hold the
// values.
func dryRunRefusal(err error, secret bool) (immutable, other []string) {
	if status, ok := err.(apierrors.APIStatus); ok && apierrors.IsInvalid(err) {
		details := status.Status().Details
		if details != nil {
			for _, c := range details.Causes {
				switch {
				case strings.Contains(c.Message, "immutable"):
					immutable = append(immutable, c.Field)
				case secret:
					other = append(other, fmt.Sprintf("%s: %s (the values of a Secret are not shown)", c.Field, c.Type))
				default:
					other = append(other, strings.TrimSpace(c.Field+": "+c.Message))
				}
			}
			if len(immutable)+len(other) > 0 {
				return immutable, other
			}
		}
	}
	if status, ok := err.(apierrors.APIStatus); ok {
		if secret {
			return nil, []string{fmt.Sprintf("the cluster refuses it: %s (the values of a Secret are not shown)", status.Status().Reason)}
		}
		return nil, []string{"the cluster refuses it: " + status.Status().Message}
	}
	return nil, []string{err.Error()}
}

func capPaths(paths []string) []string {
	if len(paths) <= maxPaths {
		return paths
	}
	return append(paths[:maxPaths:maxPaths], fmt.Sprintf("... and %d more", len(paths)-maxPaths))
}

func dedupe(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
