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

package generator

import (
	"encoding/base64"
	"fmt"
	"stencil.dev/stencil/pkg/transform"
	"strings"
	"unicode/utf8"
)

// Transform adds the generated object, or replaces or merges into the one already there.
func (g *dataGenerator) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	obj := g.object()
	match := -1
	for i, o := range objects {
		if g.sameID(o) {
			if match >= 0 {
				return nil, fmt.Errorf("found several objects that could accept the %s %s", g.kind, g.name)
			}
			match = i
		}
	}
	behavior := g.behavior
	if behavior == "" {
		behavior = behaviorCreate
	}
	switch {
	case match < 0 && behavior != behaviorCreate:
		return nil, fmt.Errorf("the %s %s does not exist; cannot %s it", g.kind, g.describeName(), behavior)
	case match < 0:
		ctx.MarkForHash(obj, !g.options.DisableNameSuffixHash)
		return append(objects, obj), nil
	case behavior == behaviorCreate:
		return nil, fmt.Errorf("the %s %s exists already: behavior must be merge or replace", g.kind, g.describeName())
	}
	old := objects[match]
	mergeMeta(obj, old)
	if behavior == behaviorMerge {
		for _, key := range []string{"data", "binaryData"} {
			if merged := mergeMaps(transform.NestedMap(old, key), transform.NestedMap(obj, key)); len(merged) > 0 {
				obj[key] = merged
			}
		}
	}
	// As in Kustomize, the result keeps the hash suffix only when both the object merged into
	// was to get one (it was generated) and this generator wants one: merging into a plain
	// object keeps its name.
	hash := ctx.MarkedForHash(old) && !g.options.DisableNameSuffixHash
	ctx.UnmarkForHash(old)
	ctx.MarkForHash(obj, hash)
	objects[match] = obj
	return objects, nil
}

func (g *dataGenerator) describeName() string {
	if g.namespace != "" {
		return g.namespace + "/" + g.name
	}
	return g.name
}

// sameID reports whether o has the generated object's group, version, kind, name and
// namespace; an empty namespace and "default" are the same, as Kustomize's ResId says.
func (g *dataGenerator) sameID(o transform.Object) bool {
	if transform.NestedString(o, "apiVersion") != "v1" || transform.NestedString(o, "kind") != g.kind || transform.NameOf(o) != g.name {
		return false
	}
	ns := transform.NamespaceOf(o)
	return ns == g.namespace || (ns == "" && g.namespace == "default") || (ns == "default" && g.namespace == "")
}

// object builds the generated object as Kustomize's generators do.
func (g *dataGenerator) object() transform.Object {
	metadata := map[string]any{"name": g.name}
	if g.namespace != "" {
		metadata["namespace"] = g.namespace
	}
	if len(g.options.Labels) > 0 {
		metadata["labels"] = stringMap(g.options.Labels)
	}
	if len(g.options.Annotations) > 0 {
		metadata["annotations"] = stringMap(g.options.Annotations)
	}
	obj := transform.Object{"apiVersion": "v1", "kind": g.kind, "metadata": metadata}
	if g.kind == "Secret" {
		obj["type"] = g.secretType
	}
	data, binary := map[string]any{}, map[string]any{}
	for _, p := range g.data {
		switch {
		case g.kind == "Secret":
			data[p.key] = wrappedBase64(p.value)
		case utf8.ValidString(p.value):
			data[p.key] = p.value
		default:
			binary[p.key] = wrappedBase64(p.value)
		}
	}
	if len(data) > 0 {
		obj["data"] = data
	}
	if len(binary) > 0 {
		obj["binaryData"] = binary
	}
	if g.options.Immutable {
		obj["immutable"] = true
	}
	return obj
}

// wrappedBase64 is base64 with a line break after every 70 characters when it is longer,
// exactly as Kustomize writes Secret data: the hash is computed over these strings, and
// Kubernetes' base64 decoding ignores the breaks.
func wrappedBase64(s string) string {
	const lineLen = 70
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	if len(enc) < lineLen {
		return enc
	}
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/lineLen + 1)
	for i := 0; i < len(enc); i += lineLen {
		b.WriteString(enc[i:min(i+lineLen, len(enc))])
		b.WriteByte('\n')
	}
	return b.String()
}

// mergeMeta gives obj the name and namespace of old and the union of both objects' labels and
// annotations, obj's winning, as Kustomize's replace and merge do.
func mergeMeta(obj, old transform.Object) {
	metadata := obj["metadata"].(map[string]any)
	metadata["name"] = transform.NameOf(old)
	if ns := transform.NamespaceOf(old); ns != "" {
		metadata["namespace"] = ns
	} else {
		delete(metadata, "namespace")
	}
	for _, key := range []string{"labels", "annotations"} {
		if merged := mergeMaps(transform.NestedMap(old, "metadata", key), transform.NestedMap(obj, "metadata", key)); len(merged) > 0 {
			metadata[key] = merged
		}
	}
}

// mergeMaps returns the union of a and b, b's values winning.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
