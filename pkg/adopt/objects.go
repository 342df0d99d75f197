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
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Ref names one object: its kind, namespace (empty for a cluster-scoped kind, or for a
// namespaced one that takes the release's) and name.
type Ref struct {
	schema.GroupVersionKind
	Namespace string
	Name      string
}

// GroupKindString is the object's kind as kubectl writes it: Deployment.apps, Service.
func (r Ref) GroupKindString() string {
	if r.Group == "" {
		return r.Kind
	}
	return r.Kind + "." + r.Group
}

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.GroupKindString() + " " + r.Name
	}
	return r.GroupKindString() + " " + r.Namespace + "/" + r.Name
}

// Key identifies the object whatever version of its kind names it.
func (r Ref) Key() string {
	return r.Group + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

// MaxManifestObjects bounds the objects one manifest may name.
const MaxManifestObjects = 10000

// ManifestObjects names every object of a release's manifest, in order. A kind List is read
// as its items, as Helm's client reads it; empty documents are skipped. A document that is
// not an object, or names no kind or name, is an error naming the document and the template
// it came from (Helm writes "# Source: chart/templates/x.yaml" before each).
func ManifestObjects(manifest string) ([]Ref, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	var out []Ref
	var errs []error
	for doc := 0; ; doc++ {
		raw, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the release's manifest, document %d: %v", doc, err)
		}
		where := fmt.Sprintf("document %d", doc)
		if source := sourceComment(string(raw)); source != "" {
			where += " (" + source + ")"
		}
		var obj map[string]any
		if err := yaml.Unmarshal(raw, &obj); err != nil {
			errs = append(errs, fmt.Errorf("the release's manifest, %s: %v", where, err))
			continue
		}
		if obj == nil {
			continue
		}
		refs, err := refsOf(obj)
		if err != nil {
			errs = append(errs, fmt.Errorf("the release's manifest, %s: %v", where, err))
			continue
		}
		out = append(out, refs...)
		if len(out) > MaxManifestObjects {
			return nil, fmt.Errorf("the release's manifest names more than %d objects", MaxManifestObjects)
		}
	}
	return out, errors.Join(errs...)
}

func sourceComment(doc string) string {
	for _, line := range strings.Split(doc, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "# Source: "); ok {
			return s
		}
	}
	return ""
}

// refsOf names obj, or the items of a List.
func refsOf(obj map[string]any) ([]Ref, error) {
	ref, err := RefOf(obj)
	if err != nil {
		return nil, err
	}
	if ref.Group != "" || !strings.HasSuffix(ref.Kind, "List") {
		return []Ref{ref}, nil
	}
	items, _ := obj["items"].([]any)
	var out []Ref
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("items[%d] is not an object", i)
		}
		r, err := RefOf(m)
		if err != nil {
			return nil, fmt.Errorf("items[%d]: %v", i, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// RefOf names one decoded object.
func RefOf(obj map[string]any) (Ref, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	namespace, _ := meta["namespace"].(string)
	if apiVersion == "" || kind == "" {
		return Ref{}, errors.New("apiVersion and kind are required")
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return Ref{}, fmt.Errorf("apiVersion %q: %v", apiVersion, err)
	}
	if name == "" && !strings.HasSuffix(kind, "List") {
		return Ref{}, fmt.Errorf("%s has no metadata.name", kind)
	}
	return Ref{GroupVersionKind: gv.WithKind(kind), Namespace: namespace, Name: name}, nil
}
