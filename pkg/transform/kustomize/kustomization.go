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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// Register adds the inline Kustomization (apiVersion KustomizationAPIVersion,
// kind Kustomization) to reg.
func Register(reg *transform.Registry) { reg.SetKustomization(newKustomizationTransformer) }

// The Kustomization transformer runs an inline kustomization with krusty over the current
// objects, on an in-memory filesystem that holds only those objects and the kustomization.
// On a server that must be safe:
//   - Nothing leaves the process: resources, components and bases are refused (the objects
//     are the only resource, and a remote one would make krusty fetch a URL or run git), and
//     so are generator, transformer and validator plugins and Helm charts, which run programs.
//     Fields naming files are refused as well, since there are none.
//   - Kustomize prints deprecation warnings to os.Stderr. The deprecated fields that have an
//     exact modern form (commonLabels, imageTags, patchesStrategicMerge) are rewritten to it
//     and their warnings returned as transformer warnings; the others (patchesJson6902, whose
//     position in Kustomize's order differs from patches, and vars) are refused.
//   - Kustomize keeps its OpenAPI schema in process-global state: see warmKustomize for why
//     builds may still run concurrently, as long as `openapi:` is refused.
//   - A build cannot be interrupted, so its cost is bounded before it starts (see
//     checkKustomizeCost), and the server runs it in a worker process that is killed when its
//     request ends (worker.go).
//   - Binaries should be built with -tags kustomize_disable_go_plugin_support, which drops the
//     Go plugin loader (never reachable here: plugins are disabled) and ~37 MB.

const (
	kustomizeRoot        = "/stencil"
	kustomizeObjectsFile = "stencil-objects.yaml"
)

type kustomizationTransformer struct {
	kustomization []byte // kustomization.yaml
	warnings      []string
	// sortOptions is set when the kustomization orders its output itself. The objects keep
	// their order otherwise (sortOptions: {order: legacy} gives kustomize build's order).
	sortOptions bool
	// patches, replacements and generated (the objects the generators add) are what
	// checkKustomizeCost reads.
	patches      []kustomizePatch
	replacements []types.ReplacementField
	generated    int
}

func newKustomizationTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var k types.Kustomization
	if errs := transform.DecodeConfig(config, &k, fldPath); len(errs) > 0 {
		return nil, errs
	}
	errs := append(refuseKustomizationFields(&k, fldPath), refuseExpandingPatches(&k, fldPath)...)
	// Deprecated fields with an exact modern form are rewritten, so that Kustomize has no
	// deprecation to print on os.Stderr; the warnings are returned instead.
	var warnings []string
	if k.CommonLabels != nil {
		warnings = append(warnings, "'commonLabels' is deprecated; use 'labels' with includeSelectors: true")
		if len(k.CommonLabels) > 0 {
			k.Labels = append(k.Labels, types.Label{Pairs: k.CommonLabels, IncludeSelectors: true})
		}
		k.CommonLabels = nil
	}
	if k.ImageTags != nil {
		warnings = append(warnings, "'imageTags' is deprecated; use 'images'")
		k.Images = append(k.Images, k.ImageTags...)
		k.ImageTags = nil
	}
	if k.PatchesStrategicMerge != nil {
		warnings = append(warnings, "'patchesStrategicMerge' is deprecated; use 'patches'")
		// Kustomize applies patchesStrategicMerge just before patches, so they go first.
		var patches []types.Patch
		for _, p := range k.PatchesStrategicMerge {
			patches = append(patches, types.Patch{Patch: string(p)})
		}
		k.Patches = append(patches, k.Patches...)
		k.PatchesStrategicMerge = nil
	}
	k.MetaData = nil
	k.APIVersion, k.Kind = transform.KustomizationAPIVersion, types.KustomizationKind
	k.Resources = []string{kustomizeObjectsFile}
	raw, err := json.Marshal(&k)
	if err != nil {
		errs = append(errs, field.InternalError(fldPath, err))
	}
	return &kustomizationTransformer{kustomization: raw, warnings: warnings, sortOptions: k.SortOptions != nil,
		patches: compileKustomizePatches(k.Patches), replacements: k.Replacements,
		generated: len(k.ConfigMapGenerator) + len(k.SecretGenerator)}, errs
}

// refuseKustomizationFields reports every field that would reach outside the process, run a
// program, read a file or change process-global state.
func refuseKustomizationFields(k *types.Kustomization, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	refuse := func(set bool, name, why string) {
		if set {
			errs = append(errs, field.Forbidden(fldPath.Child(name), why))
		}
	}
	const noResources = "the inline Kustomization runs over the template's objects; other resources (files, URLs, git) are not supported"
	const noPlugins = "plugins are not supported: use the built-in transformers"
	const noFiles = "there are no files: give the content inline"
	refuse(k.Resources != nil, "resources", noResources)
	refuse(k.Components != nil, "components", noResources)
	refuse(k.Bases != nil, "bases", noResources)
	refuse(k.Crds != nil, "crds", noFiles)
	refuse(k.Configurations != nil, "configurations", noFiles)
	refuse(k.Generators != nil, "generators", noPlugins)
	refuse(k.Transformers != nil, "transformers", noPlugins)
	refuse(k.Validators != nil, "validators", noPlugins)
	refuse(k.HelmCharts != nil, "helmCharts", "Helm charts are not supported: they run the helm program")
	refuse(k.HelmGlobals != nil, "helmGlobals", "Helm charts are not supported: they run the helm program")
	refuse(k.HelmChartInflationGenerator != nil, "helmChartInflationGenerator", "Helm charts are not supported: they run the helm program")
	refuse(k.OpenAPI != nil, "openapi", "a custom OpenAPI schema is not supported: Kustomize keeps it process-wide")
	refuse(k.PatchesJson6902 != nil, "patchesJson6902", "deprecated: use patches")
	refuse(k.Vars != nil, "vars", "deprecated: use replacements")
	for i, p := range k.Patches {
		refuse(p.Path != "", fmt.Sprintf("patches[%d].path", i), noFiles)
	}
	for i, p := range k.PatchesStrategicMerge {
		// Kustomize takes an entry without a newline or colon for a file name.
		refuse(!strings.ContainsAny(string(p), "\n:{"), fmt.Sprintf("patchesStrategicMerge[%d]", i), noFiles)
	}
	for i, r := range k.Replacements {
		refuse(r.Path != "", fmt.Sprintf("replacements[%d].path", i), noFiles)
	}
	for i, g := range k.ConfigMapGenerator {
		refuseSources(refuse, fmt.Sprintf("configMapGenerator[%d]", i), g.KvPairSources, noFiles)
	}
	for i, g := range k.SecretGenerator {
		refuseSources(refuse, fmt.Sprintf("secretGenerator[%d]", i), g.KvPairSources, noFiles)
	}
	return errs
}

// refuseExpandingPatches reports the patches whose YAML aliases stand for more than
// positions.MaxJSONBytes of their text: krusty reads them with kyaml and applies them with
// sigs.k8s.io/yaml, neither of which bounds aliases in bytes.
func refuseExpandingPatches(k *types.Kustomization, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := func(path *field.Path, text string) {
		raw, err := json.Marshal(text)
		if err != nil {
			return
		}
		if _, err := filters.ParsePatch(raw); errors.As(err, new(*positions.ExpansionError)) {
			errs = append(errs, field.Invalid(path, "", err.Error()))
		}
	}
	for i, p := range k.Patches {
		check(fldPath.Child("patches").Index(i).Child("patch"), p.Patch)
	}
	for i, p := range k.PatchesStrategicMerge {
		check(fldPath.Child("patchesStrategicMerge").Index(i), string(p))
	}
	return errs
}

func refuseSources(refuse func(bool, string, string), prefix string, s types.KvPairSources, why string) {
	refuse(s.FileSources != nil, prefix+".files", why)
	refuse(s.EnvSources != nil, prefix+".envs", why)
	refuse(s.EnvSource != "", prefix+".env", why)
}

// Transform builds the kustomization over the objects.
func (t *kustomizationTransformer) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	if limit := ctx.Limits().KustomizeObjects; len(objects) > limit {
		return nil, fmt.Errorf("a Kustomization runs over at most %d objects, not %d", limit, len(objects))
	}
	var docs []byte
	sizes := make([]int, len(objects))
	for i, obj := range objects {
		start := len(docs)
		var err error
		if docs, err = jsonbytes.AppendValue(docs, obj); err != nil {
			return nil, err
		}
		sizes[i] = len(docs) - start
		docs = append(docs, "\n---\n"...)
		if limit := ctx.Limits().KustomizeBytes; len(docs) > limit {
			return nil, fmt.Errorf("a Kustomization runs over at most %d bytes of objects", limit)
		}
	}
	if err := t.checkKustomizeCost(ctx, objects, sizes); err != nil {
		return nil, err
	}
	slots := ctx.BuildSlots()
	if err := slots.Acquire(ctx); err != nil {
		return nil, err
	}
	var out []transform.Object
	var err error
	if builder := slots.Builder(); builder != nil {
		// Apart, where it is stopped when the request ends.
		request := ctx.Request()
		if request == nil {
			request = context.Background()
		}
		out, err = builder.Build(request, t.kustomization, docs, t.sortOptions)
	} else {
		warmKustomize()
		out, err = buildInProcess(t.kustomization, docs, t.sortOptions)
	}
	slots.Release()
	if err != nil {
		return nil, err
	}
	for _, w := range t.warnings {
		ctx.Warnf("%s", w)
	}
	return out, nil
}

// buildInProcess builds kustomization (kustomization.yaml) over objects (the YAML stream of
// the objects file) on an in-memory file system, in the calling goroutine.
func buildInProcess(kustomization, objects []byte, sortOptions bool) ([]transform.Object, error) {
	fSys := filesys.MakeFsInMemory()
	if err := fSys.WriteFile(kustomizeRoot+"/kustomization.yaml", kustomization); err != nil {
		return nil, err
	}
	if err := fSys.WriteFile(kustomizeRoot+"/"+kustomizeObjectsFile, objects); err != nil {
		return nil, err
	}
	opts := krusty.MakeDefaultOptions()
	if sortOptions {
		// With sortOptions, any other Reorder makes krusty log a conflict on os.Stderr.
		opts.Reorder = krusty.ReorderOptionUnspecified
	}
	return Build(fSys, kustomizeRoot, opts)
}

// Build builds the kustomization at dir of fSys with krusty (plugins are disabled in krusty's
// default options) and converts the result to objects as jsonbytes decodes them (numbers as
// json.Number); the Kustomization transformer calls it holding a build slot. A panic in
// Kustomize becomes an error: a bad template must not take the server down.
func Build(fSys filesys.FileSystem, dir string, opts *krusty.Options) (out []transform.Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("kustomize failed: %v", r)
		}
	}()
	resMap, err := krusty.MakeKustomizer(opts).Run(fSys, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize: %w", err)
	}
	resources := resMap.Resources()
	out = make([]transform.Object, 0, len(resources))
	for _, r := range resources {
		v, err := yamlToValue(r.YNode())
		if err != nil {
			return nil, fmt.Errorf("kustomize output: %w", err)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("kustomize output: %s is not an object", r.CurId())
		}
		out = append(out, obj)
	}
	return out, nil
}
