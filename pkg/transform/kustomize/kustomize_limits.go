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

package kustomize

import (
	"encoding/json"
	"fmt"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// Kustomize takes no context: once a build starts, it runs to its end whether or not anyone
// still waits for it. So what one build may cost is bounded before it starts, and only a few
// run at once; a request waiting for its turn stops waiting when it ends.

// (The bounds' values, and how they were measured, are in limits.go.)

// kustomizePatch is what the estimate needs of one entry of a Kustomization's patches.
type kustomizePatch struct {
	target *filters.CompiledSelector // nil: each document applies to the object of its own kind and name
	ids    []filters.PatchID
	json   jsonpatch.Patch // set for a JSON 6902 patch
	sizes  []int           // the strategic-merge documents' sizes, the most each adds
	// renames says that the patch may change names or kinds, after which the targets of the
	// patches that follow can no longer be told from the objects given.
	renames bool
}

// compileKustomizePatches reads the patches for the estimate. A patch that does not parse is
// counted as applying to every object: krusty reports its error.
func compileKustomizePatches(patches []types.Patch) []kustomizePatch {
	out := make([]kustomizePatch, len(patches))
	for i, p := range patches {
		kp := &out[i]
		if p.Target != nil {
			kp.target = kustomizeSelector(p.Target)
		}
		kp.renames = p.Options != nil && (p.Options.AllowNameChange || p.Options.AllowKindChange)
		raw, _ := json.Marshal(p.Patch)
		docs, err := filters.ParsePatch(raw)
		if err != nil {
			kp.target, kp.sizes = &filters.CompiledSelector{}, []int{len(p.Patch)}
			continue
		}
		if len(docs) == 1 && filters.IsList(docs[0]) {
			if kp.json, err = filters.CompileJSONPatch(docs[0].([]any)); err != nil {
				kp.json, kp.sizes = nil, []int{len(p.Patch)}
			}
			if kp.target == nil {
				kp.target = &filters.CompiledSelector{}
			}
			continue
		}
		for _, d := range docs {
			m, _ := d.(map[string]any)
			id, _ := filters.OwnPatchID(m)
			kp.ids = append(kp.ids, id)
			encoded, _ := json.Marshal(d)
			kp.sizes = append(kp.sizes, len(encoded))
		}
	}
	return out
}

// kustomizeSelector is a patch or replacement target as the estimate matches it: by group,
// version, kind, name and namespace. Label and annotation selectors are left out, since the
// patches before may set labels: the estimate may count more objects than match, never fewer.
// A regular expression that does not compile matches everything, and krusty reports it.
func kustomizeSelector(s *types.Selector) *filters.CompiledSelector {
	sel, errs := filters.CompileSelector(&filters.Selector{Group: s.Group, Version: s.Version, Kind: s.Kind, Name: s.Name, Namespace: s.Namespace}, nil)
	if len(errs) > 0 {
		return &filters.CompiledSelector{}
	}
	return sel
}

// matches reports whether the patch applies to obj, for the estimate.
func (p *kustomizePatch) matches(obj transform.Object, renamed bool) int {
	if renamed {
		return max(len(p.ids), 1)
	}
	if p.target != nil {
		if !p.target.Matches(&transform.Context{}, obj) {
			return 0
		}
		return max(len(p.ids), 1)
	}
	n := 0
	id := transform.GVKOf(obj)
	for _, pid := range p.ids {
		if pid.Kind == id.Kind && pid.Name == transform.NameOf(obj) {
			n++
		}
	}
	return n
}

// checkKustomizeCost refuses a build before it starts when its patches and replacements would
// take more than ctx's limit (KustomizeApplications), or could make objects larger than
// ctx's budget: JSON 6902 copies double an object each, so eleven copy operations over 200
// small ConfigMaps make hundreds of megabytes. sizes are the objects' sizes as JSON.
func (t *kustomizationTransformer) checkKustomizeCost(ctx *transform.Context, objects []transform.Object, sizes []int) error {
	maxWork := ctx.Limits().KustomizeApplications
	work := len(objects) + t.generated
	grown := 0
	renamed := false
	for _, p := range t.patches {
		for i, obj := range objects {
			n := p.matches(obj, renamed)
			if n == 0 {
				continue
			}
			work += n
			before := sizes[i]
			if p.json != nil {
				sizes[i] = filters.JSONPatchBound(p.json, sizes[i])
			}
			for _, s := range p.sizes {
				sizes[i] += s
			}
			grown += sizes[i] - before
		}
		if work > maxWork {
			break
		}
		renamed = renamed || p.renames
	}
	for _, r := range t.replacements {
		for _, target := range r.Targets {
			if target == nil || target.Select == nil {
				continue
			}
			sel := kustomizeSelector(target.Select)
			for _, obj := range objects {
				if renamed || sel.Matches(&transform.Context{}, obj) {
					work += max(len(target.FieldPaths), 1)
				}
			}
		}
	}
	if work > maxWork {
		return fmt.Errorf("this Kustomization would apply its patches and replacements to %d objects in all (counting each object once more); "+
			"at most %d are allowed: give its patches narrower targets, or split it", work, maxWork)
	}
	if !ctx.Fits(grown) {
		return fmt.Errorf("its patches could add %d bytes to the objects: %w", grown, ctx.TooLarge())
	}
	return nil
}

var kustomizeWarm sync.Once

// warmKustomize parses kyaml's OpenAPI schema, a process global, before the first build. The
// first build that needs the schema parses it under kyaml's lock, while other builds read its
// table of namespaced kinds without the lock (kustomize#4824): parsed once here, the schema is
// never written again, since every build then sets the same default (krusty's SetSchema only
// resets it for a kustomization that names an `openapi:` version or file, which is refused;
// components, which set it too, are refused as well). With that, concurrent builds share no
// state that is written: the rest of krusty's globals are constant tables, or the default
// field specs behind a sync.Once, copied for each build. TestKustomizationConcurrent checks
// that under -race; the first parse's window is too narrow for a test to hit reliably.
func warmKustomize() { kustomizeWarm.Do(func() { openapi.Schema() }) }
