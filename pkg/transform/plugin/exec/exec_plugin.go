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

package exec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
)

// Two protocols, both from the seeds:
//   - seed 000: the executable DIR/<API group of the config>, with "generate" or "transform"
//     as its argument; the config (and, to transform, every object) on stdin as a YAML
//     stream, the objects on stdout; exit 127 means the operation is not supported;
//   - KRM functions (provider exec or container): a ResourceList in, a ResourceList out,
//     whose results of severity error fail the run, one message per result.
// Streams are written as JSON documents, which every YAML reader reads.

// execStep is one plugin config compiled into a step.
type execStep struct {
	policy *Policy
	// exe is the resolved executable; args its arguments (seed 000's operation).
	exe  string
	args []string
	krm  bool
	// generator says the config is in generators: its objects are added; a transformer may
	// not add, remove or rename any.
	generator bool
	config    transform.Object
	plugin    string
}

// SeedFactory compiles a seed 000 config of group.
func (e *Policy) SeedFactory(group string, generator bool) transform.Factory {
	return func(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
		exe, err := e.resolve(group)
		if err != nil {
			return nil, field.ErrorList{field.Invalid(fldPath.Child("apiVersion"), group, "no plugin for this API group: "+err.Error())}
		}
		obj, derr := jsonbytes.DecodeObject(config)
		if derr != nil {
			return nil, field.ErrorList{field.Invalid(fldPath, "", derr.Error())}
		}
		op := "transform"
		if generator {
			op = "generate"
		}
		return &execStep{policy: e, exe: exe, args: []string{op}, generator: generator, config: obj, plugin: group}, nil
	}
}

// KRMFactory compiles a KRM function config: rel names the executable, or image is mapped
// to one by the administrator.
func (e *Policy) KRMFactory(rel, image string, path *field.Path, generator bool) (transform.Factory, field.ErrorList) {
	plugin := rel
	if image != "" {
		mapped, ok := e.Images[image]
		if !ok {
			return nil, field.ErrorList{field.Forbidden(path, fmt.Sprintf("the image %q is not allowed on this server: an administrator maps each allowed image to an installed executable (--plugin-images); no image is ever pulled", image))}
		}
		rel, plugin = mapped, image
	}
	exe, err := e.resolve(rel)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(path, plugin, err.Error())}
	}
	return func(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
		obj, derr := jsonbytes.DecodeObject(config)
		if derr != nil {
			return nil, field.ErrorList{field.Invalid(fldPath, "", derr.Error())}
		}
		delete(obj, "provider")
		return &execStep{policy: e, exe: exe, krm: true, generator: generator, config: obj, plugin: plugin}, nil
	}, nil
}

// Transform runs the plugin and checks what it gave back.
func (s *execStep) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	var in bytes.Buffer
	var err error
	if s.krm {
		list := map[string]any{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "functionConfig": map[string]any(s.config)}
		items := make([]any, 0, len(objects))
		if !s.generator {
			for _, o := range objects {
				items = append(items, map[string]any(o))
			}
		}
		list["items"] = items
		err = writeDoc(&in, list)
	} else {
		err = writeDoc(&in, s.config)
		for i := 0; err == nil && !s.generator && i < len(objects); i++ {
			err = writeDoc(&in, objects[i])
		}
	}
	if err != nil {
		return nil, err
	}
	out, err := s.policy.run(ctx, s.exe, s.args, in.Bytes())
	if errors.Is(err, errPluginUnsupported) {
		return nil, fmt.Errorf("plugin %s: %w: %s", s.plugin, err, s.operation())
	}
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w", s.plugin, err)
	}
	limits := s.policy.Limits.WithDefaults()
	docs, err := readDocs(out, outputLimits{objects: limits.MaxOutputObjects, resourceList: s.krm, yamlBytes: limits.MaxOutputBytes / 4})
	if err != nil {
		return nil, fmt.Errorf("plugin %s: reading its output: %w", s.plugin, err)
	}
	if s.krm {
		if docs, err = s.resultItems(ctx, docs); err != nil {
			return nil, err
		}
	} else if !s.generator {
		docs = s.withoutConfig(docs)
	}
	if s.generator {
		return append(objects, docs...), nil
	}
	if err := sameObjects(objects, docs); err != nil {
		return nil, fmt.Errorf("plugin %s: %w", s.plugin, err)
	}
	return docs, nil
}

// operation names what the plugin was asked to do, for messages.
func (s *execStep) operation() string {
	switch {
	case s.krm && s.generator:
		return "a KRM function as a generator"
	case s.krm:
		return "a KRM function as a transformer"
	}
	return s.args[0]
}

// withoutConfig drops the config from a seed 000 transform's output, which may echo it.
func (s *execStep) withoutConfig(docs []transform.Object) []transform.Object {
	id := transform.IDOf(s.config)
	out := docs[:0]
	for _, d := range docs {
		if transform.IDOf(d) != id {
			out = append(out, d)
		}
	}
	return out
}

// resultItems reads a KRM function's ResourceList: results of severity error fail the run,
// the others become warnings.
func (s *execStep) resultItems(ctx *transform.Context, docs []transform.Object) ([]transform.Object, error) {
	if len(docs) != 1 || transform.NestedString(docs[0], "kind") != "ResourceList" {
		return nil, fmt.Errorf("plugin %s: a KRM function must write one ResourceList", s.plugin)
	}
	results, _ := docs[0]["results"].([]any)
	var failures []string
	for i, r := range results {
		m, _ := r.(map[string]any)
		msg := fmt.Sprintf("results[%d]", i)
		if m != nil {
			msg = fmt.Sprint(m["message"])
			if ref := transform.NestedMap(m, "resourceRef"); ref != nil {
				msg = fmt.Sprintf("%v %v: %s", ref["kind"], ref["name"], msg)
			}
		}
		if m != nil && m["severity"] == "error" {
			failures = append(failures, msg)
		} else {
			ctx.Warnf("plugin %s: %s", s.plugin, msg)
		}
	}
	if len(failures) > 0 {
		return nil, fmt.Errorf("plugin %s reported %d error(s): %s", s.plugin, len(failures), strings.Join(failures, "; "))
	}
	items, _ := docs[0]["items"].([]any)
	out := make([]transform.Object, 0, len(items))
	for i, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("plugin %s: items[%d] is not an object", s.plugin, i)
		}
		out = append(out, obj)
	}
	return out, nil
}

// sameObjects holds a transform plugin to seed 000's rule: the same objects come back, none
// added or removed, none renamed or moved to another namespace.
func sameObjects(before, after []transform.Object) error {
	count := map[transform.ObjectID]int{}
	for _, o := range before {
		count[transform.IDOf(o)]++
	}
	for _, o := range after {
		id := transform.IDOf(o)
		if count[id] == 0 {
			return fmt.Errorf("a transformer may not add objects or change names or namespaces: it returned %s, which it was not given", transform.Describe(o))
		}
		count[id]--
	}
	for _, o := range before {
		if count[transform.IDOf(o)] > 0 {
			return fmt.Errorf("a transformer may not remove objects: %s is missing from its output", transform.Describe(o))
		}
	}
	return nil
}

// writeDoc writes one document of a YAML stream, as JSON.
func writeDoc(w *bytes.Buffer, v any) error {
	w.WriteString("---\n")
	b, err := jsonbytes.AppendValue(nil, v)
	if err != nil {
		return err
	}
	w.Write(b)
	w.WriteByte('\n')
	return nil
}
