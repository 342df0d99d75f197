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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// Composition, after Kustomize's KEP-2299 (never merged there): a Template's consolidated
// transformer list is the consolidated lists of the Templates it imports (prepended by default,
// or appended) around its own transformers; then its transformerOverrides are applied as
// strategic-merge patches to the configs they name; then its transformerOrder, if any, gives
// the final order. Every imported Template is consolidated the same way first.

// TemplateGetter fetches another stored Template of the same namespace by name. A NotFound
// API error is reported as a missing import, any other error as an internal one. A nil
// getter makes every import an error (for a CLI without access to stored templates).
type TemplateGetter func(name string) (*templates.Template, error)

// Consolidate returns the ordered transformer list of t with every import resolved. Configs
// are not validated beyond their header (Compile does that after substitution). Errors name
// the field of t that leads to the problem.
func Consolidate(t *templates.Template, get TemplateGetter) ([]Config, field.ErrorList) {
	return ConsolidateWithin(t, get, Limits{})
}

// ConsolidateWithin is Consolidate under limits' TransformerImports and ImportDepth, for a
// server whose operator changed them.
func ConsolidateWithin(t *templates.Template, get TemplateGetter, limits Limits) ([]Config, field.ErrorList) {
	reads := 0
	return consolidate(t, get, nil, []string{t.Name}, &reads, limits.WithDefaults())
}

// consolidate works on one template; base is nil for the template being processed and the
// import's path for an imported one, chain holds the names of the templates on the way, and
// reads counts the imports read so far; limits has every field set.
func consolidate(t *templates.Template, get TemplateGetter, base *field.Path, chain []string, reads *int, limits Limits) ([]Config, field.ErrorList) {
	var errs field.ErrorList
	var before, after []Config
	imported := map[string]bool{}
	for i, imp := range t.TransformersFrom {
		impPath := child(base, "transformersFrom").Index(i)
		if imported[imp.Name] {
			errs = append(errs, field.Duplicate(impPath.Child("name"), imp.Name))
			continue
		}
		imported[imp.Name] = true
		if *reads >= limits.TransformerImports {
			errs = append(errs, field.TooMany(impPath, *reads+1, limits.TransformerImports))
			break
		}
		*reads++
		if slices.Contains(chain, imp.Name) {
			cycle := strings.Join(append(slices.Clone(chain), imp.Name), " -> ")
			errs = append(errs, field.Invalid(impPath.Child("name"), imp.Name, "transformer import cycle: "+cycle))
			continue
		}
		if len(chain) > limits.ImportDepth {
			errs = append(errs, field.Invalid(impPath.Child("name"), imp.Name, fmt.Sprintf("transformer imports nest deeper than %d templates", limits.ImportDepth)))
			continue
		}
		if get == nil {
			errs = append(errs, field.Invalid(impPath.Child("name"), imp.Name, "imported templates cannot be read here"))
			continue
		}
		other, err := get(imp.Name)
		switch {
		case apierrors.IsNotFound(err):
			errs = append(errs, field.NotFound(impPath.Child("name"), imp.Name))
			continue
		case apierrors.IsForbidden(err):
			errs = append(errs, field.Forbidden(impPath.Child("name"), err.Error()))
			continue
		case err != nil:
			errs = append(errs, field.InternalError(impPath.Child("name"), err))
			continue
		}
		list, impErrs := consolidate(other, get, impPath, append(chain, imp.Name), reads, limits)
		errs = append(errs, impErrs...)
		if imp.ImportMode == templates.ImportModeAppend {
			after = append(after, list...)
		} else {
			before = append(before, list...)
		}
	}
	list := before
	for i, raw := range t.Transformers {
		c, err := newConfig(raw, child(base, "transformers").Index(i))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		list = append(list, c)
	}
	list = append(list, after...)
	for i, raw := range t.TransformerOverrides {
		if err := applyOverride(list, raw, child(base, "transformerOverrides").Index(i)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if errs := checkUniqueNames(list); len(errs) > 0 {
		return nil, errs
	}
	if len(t.TransformerOrder) > 0 {
		ordered, orderErrs := reorder(list, t.TransformerOrder, child(base, "transformerOrder"))
		if len(orderErrs) > 0 {
			return nil, orderErrs
		}
		list = ordered
	}
	return list, nil
}

// child returns base.name, or the root field name when base is nil.
func child(base *field.Path, name string) *field.Path {
	if base == nil {
		return field.NewPath(name)
	}
	return base.Child(name)
}

// newConfig reads one transformer config and defaults its apiVersion and metadata.name.
func newConfig(raw runtime.RawExtension, path *field.Path) (Config, *field.Error) {
	obj, err := jsonbytes.DecodeObject(raw.Raw)
	if err != nil {
		return Config{}, field.Invalid(path, string(raw.Raw), "a transformer config must be an object: "+err.Error())
	}
	h, ferr := defaultHeader(obj, path)
	if ferr != nil {
		return Config{}, ferr
	}
	enc, err := jsonbytes.AppendValue(nil, obj)
	if err != nil {
		return Config{}, field.Invalid(path, "", err.Error())
	}
	return Config{APIVersion: h.APIVersion, Kind: h.Kind, Name: h.Metadata.Name, Raw: enc, Path: path}, nil
}

// defaultHeader reads apiVersion, kind and metadata.name of a config or override, setting
// the defaults in obj: apiVersion builtin, and the kind in kebab case as the name.
func defaultHeader(obj Object, path *field.Path) (Header, *field.Error) {
	var h Header
	kind, ok := obj["kind"].(string)
	if !ok || kind == "" {
		return h, field.Required(path.Child("kind"), "")
	}
	if obj["apiVersion"] == nil {
		obj["apiVersion"] = BuiltinAPIVersion
	}
	apiVersion, ok := obj["apiVersion"].(string)
	if !ok {
		return h, field.Invalid(path.Child("apiVersion"), obj["apiVersion"], "must be a string")
	}
	meta, err := EnsureMap(obj, "metadata")
	if err != nil {
		return h, field.Invalid(path.Child("metadata"), obj["metadata"], "must be an object")
	}
	if meta["name"] == nil || meta["name"] == "" {
		meta["name"] = defaultName(kind)
	}
	name, ok := meta["name"].(string)
	if !ok {
		return h, field.Invalid(path.Child("metadata", "name"), meta["name"], "must be a string")
	}
	h.APIVersion, h.Kind, h.Metadata.Name = apiVersion, kind, name
	return h, nil
}

// applyOverride patches the config of list with the override's apiVersion, kind and name.
func applyOverride(list []Config, raw runtime.RawExtension, path *field.Path) *field.Error {
	patch, err := jsonbytes.DecodeObject(raw.Raw)
	if err != nil {
		return field.Invalid(path, string(raw.Raw), "an override must be an object: "+err.Error())
	}
	h, ferr := defaultHeader(patch, path)
	if ferr != nil {
		return ferr
	}
	for i := range list {
		c := &list[i]
		if c.APIVersion != h.APIVersion || c.Kind != h.Kind || c.Name != h.Metadata.Name {
			continue
		}
		obj, err := jsonbytes.DecodeObject(c.Raw)
		if err != nil {
			return field.InternalError(path, err)
		}
		// Transformer configs have no patch strategies: maps merge, lists are replaced, null
		// removes a field, and $patch directives work as in any strategic-merge patch.
		merged, err := strategicpatch.StrategicMergeMapPatchUsingLookupPatchMeta(obj, patch, MergeSchema{})
		if err != nil {
			return field.Invalid(path, string(raw.Raw), err.Error())
		}
		enc, err := jsonbytes.AppendValue(nil, merged)
		if err != nil {
			return field.Invalid(path, string(raw.Raw), err.Error())
		}
		c.Raw = enc
		return nil
	}
	return field.Invalid(path.Child("metadata", "name"), h.Metadata.Name,
		fmt.Sprintf("no transformer %s %s named %q to override", h.APIVersion, h.Kind, h.Metadata.Name))
}

// checkUniqueNames reports transformers of the same name: overrides and the order refer to
// transformers by name.
func checkUniqueNames(list []Config) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]*field.Path{}
	for _, c := range list {
		if first, dup := seen[c.Name]; dup {
			errs = append(errs, field.Duplicate(c.Path.Child("metadata", "name"),
				fmt.Sprintf("%s (also the name of %s; give one of them another metadata.name)", c.Name, first)))
			continue
		}
		seen[c.Name] = c.Path
	}
	return errs
}

// reorder puts list in the order of names, which must name every transformer once.
func reorder(list []Config, order []templates.TransformerReference, path *field.Path) ([]Config, field.ErrorList) {
	var errs field.ErrorList
	byName := make(map[string]int, len(list))
	for i, c := range list {
		byName[c.Name] = i
	}
	used := make([]bool, len(list))
	out := make([]Config, 0, len(list))
	for i, ref := range order {
		j, ok := byName[ref.Name]
		switch {
		case !ok:
			errs = append(errs, field.NotFound(path.Index(i).Child("name"), ref.Name))
		case used[j]:
			errs = append(errs, field.Duplicate(path.Index(i).Child("name"), ref.Name))
		default:
			used[j] = true
			out = append(out, list[j])
		}
	}
	var missing []string
	for j, u := range used {
		if !u {
			missing = append(missing, list[j].Name)
		}
	}
	if len(missing) > 0 {
		errs = append(errs, field.Invalid(path, strings.Join(missing, ", "),
			"transformerOrder must list every transformer of the consolidated list; missing: "+strings.Join(missing, ", ")))
	}
	return out, errs
}

// MergeSchema knows no patch strategy: maps merge, lists are replaced, as in a JSON merge
// patch.
type MergeSchema struct{}

// LookupPatchMetadataForStruct knows no strategy for any field.
func (MergeSchema) LookupPatchMetadataForStruct(string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	return MergeSchema{}, strategicpatch.PatchMeta{}, nil
}

// LookupPatchMetadataForSlice knows no strategy for any list.
func (MergeSchema) LookupPatchMetadataForSlice(string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	return MergeSchema{}, strategicpatch.PatchMeta{}, nil
}

// Name is the schema's name: it has none.
func (MergeSchema) Name() string { return "" }
