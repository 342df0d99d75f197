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
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// BuiltinAPIVersion is the apiVersion of Stencil's built-in transformers.
const BuiltinAPIVersion = "builtin"

// KustomizationAPIVersion is the apiVersion of an inline Kustomization transformer
// (pkg/transform/kustomize).
const KustomizationAPIVersion = "kustomize.config.k8s.io/v1beta1"

// ConfigMeta is the header every transformer config shares; built-in configs embed it.
type ConfigMeta struct {
	// APIVersion is "builtin" (the default) or, for Kustomization, KustomizationAPIVersion.
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind names the transformer.
	Kind string `json:"kind,omitempty"`
	// Metadata names the transformer in the list.
	Metadata ConfigMetadata `json:"metadata,omitempty"`
}

// ConfigMetadata is the metadata of a transformer config.
type ConfigMetadata struct {
	// Name identifies the transformer in the consolidated list; it defaults to the kind in
	// kebab case.
	Name string `json:"name,omitempty"`
	// Namespace is the target namespace of a NamespaceTransformer, as in Kustomize.
	Namespace string `json:"namespace,omitempty"`
	// Labels and Annotations are informational.
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// defaultName is the default metadata.name of a transformer: its kind in kebab case, as the
// Composition KEP says ("PrefixSuffixTransformer" -> "prefix-suffix-transformer").
func defaultName(kind string) string {
	var b strings.Builder
	runes := []rune(kind)
	for i, r := range runes {
		if unicode.IsUpper(r) {
			// A new word starts at an upper-case letter after a lower-case one, or at the last
			// upper-case letter of an acronym ("JSONPatch" -> "json-patch").
			if i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1]) ||
				(i+1 < len(runes) && unicode.IsLower(runes[i+1]) && unicode.IsUpper(runes[i-1]))) {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// DecodeConfig decodes a transformer config into v strictly: unknown and duplicate fields
// are errors, so a misspelt field is reported instead of silently ignored. Errors carry
// paths under fldPath.
func DecodeConfig(raw []byte, v any, fldPath *field.Path) field.ErrorList {
	strictErrs, err := sigsjson.UnmarshalStrict(raw, v)
	if err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return field.ErrorList{field.Invalid(childPath(fldPath, typeErr.Field), typeErr.Value,
				"must be of type "+typeName(typeErr.Type.String()))}
		}
		return field.ErrorList{field.Invalid(fldPath, "", "malformed config: "+err.Error())}
	}
	var errs field.ErrorList
	for _, e := range strictErrs {
		var fe sigsjson.FieldError
		if errors.As(e, &fe) {
			if strings.HasPrefix(e.Error(), "duplicate field") {
				errs = append(errs, field.Duplicate(childPath(fldPath, fe.FieldPath()), ""))
			} else {
				errs = append(errs, field.Forbidden(childPath(fldPath, fe.FieldPath()), "unknown field"))
			}
			continue
		}
		errs = append(errs, field.Invalid(fldPath, "", e.Error()))
	}
	return errs
}

// typeName turns a Go type into the JSON word users know.
func typeName(t string) string {
	switch {
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "struct"), isConfigType(t):
		return "object"
	case strings.HasPrefix(t, "[]"):
		return "array"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "number"
	case t == "bool":
		return "boolean"
	}
	return t
}

// isConfigType reports whether t names a config type of the transformer packages (a struct:
// an object to the template's author): this package's, or one of the packages below it that
// decode configs with DecodeConfig.
func isConfigType(t string) bool {
	for _, p := range []string{"transform.", "filters.", "builtin.", "generator.", "kustomize.", "plugin.", "starlark.", "exec."} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// childPath appends a JSON field path such as "target.name" or "fieldSpecs[0].path".
func childPath(base *field.Path, dotted string) *field.Path {
	p := base
	for dotted != "" {
		switch dotted[0] {
		case '.':
			dotted = dotted[1:]
		case '[':
			end := strings.IndexByte(dotted, ']')
			if end < 0 {
				return p.Child(dotted)
			}
			if n, err := strconv.Atoi(dotted[1:end]); err == nil {
				p = p.Index(n)
			} else {
				p = p.Key(dotted[1:end])
			}
			dotted = dotted[end+1:]
		default:
			end := strings.IndexAny(dotted, ".[")
			if end < 0 {
				end = len(dotted)
			}
			p = p.Child(dotted[:end])
			dotted = dotted[end:]
		}
	}
	return p
}

// HasParamRef reports whether s holds a parameter reference (`${`, `$(`), whose value is only
// known after substitution.
func HasParamRef(s string) bool {
	return strings.Contains(s, "${") || strings.Contains(s, "$(")
}

// valueHasParamRef reports whether any string or key in v holds a parameter reference.
func valueHasParamRef(v any) bool {
	switch v := v.(type) {
	case string:
		return HasParamRef(v)
	case map[string]any:
		for k, e := range v {
			if HasParamRef(k) || valueHasParamRef(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if valueHasParamRef(e) {
				return true
			}
		}
	}
	return false
}

// valueAtPath returns the value of config at the field path rel (relative, as rendered by
// field.Path: ".a.b[0][key]"), and whether it exists.
func valueAtPath(config any, rel string) (any, bool) {
	cur := config
	for rel != "" {
		var key string
		switch rel[0] {
		case '.':
			rel = rel[1:]
			end := strings.IndexAny(rel, ".[")
			if end < 0 {
				end = len(rel)
			}
			key, rel = rel[:end], rel[end:]
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[key]; !ok {
				return nil, false
			}
		case '[':
			end := strings.IndexByte(rel, ']')
			if end < 0 {
				return nil, false
			}
			key, rel = rel[1:end], rel[end+1:]
			switch c := cur.(type) {
			case []any:
				n, err := strconv.Atoi(key)
				if err != nil || n < 0 || n >= len(c) {
					return nil, false
				}
				cur = c[n]
			case map[string]any:
				var ok bool
				if cur, ok = c[key]; !ok {
					return nil, false
				}
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return cur, true
}

// dropParamRefErrors removes the errors about fields whose values hold parameter references:
// validation at create time cannot know what they become. The root of the config is never
// dropped.
func dropParamRefErrors(errs field.ErrorList, raw []byte, fldPath *field.Path) field.ErrorList {
	if len(errs) == 0 || !strings.Contains(string(raw), "$") {
		return errs
	}
	config, err := jsonbytes.DecodeObject(raw)
	if err != nil {
		return errs
	}
	base := fldPath.String()
	var kept field.ErrorList
	for _, e := range errs {
		rel, ok := strings.CutPrefix(e.Field, base)
		if ok && rel != "" {
			// A type error is reported at the field itself; an unknown-field error may name a
			// key that a parameter will rename, so look at the parent as well.
			// Only errors about a value can change with it: a forbidden field stays forbidden.
			valueErr := e.Type == field.ErrorTypeInvalid || e.Type == field.ErrorTypeNotSupported
			if v, found := valueAtPath(config, rel); valueErr && found && valueHasParamRef(v) {
				continue
			}
			if e.Type == field.ErrorTypeForbidden && HasParamRef(rel) {
				continue
			}
		}
		kept = append(kept, e)
	}
	return kept
}
