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

package export

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform"
)

// planner collects the parameters of a template and the edits that put references to them
// into the objects. The edits run after the objects' own strings are escaped, so that the
// references they write are the only ones processing finds.
type planner struct {
	params []templates.Parameter
	byName map[string]int
	// images shares one parameter between containers of one name and one image.
	images map[[2]string]string
	edits  []func() error
	// appName is the value NAME replaces, "" when there is none.
	appName string
}

func newPlanner() *planner {
	return &planner{byName: map[string]int{}, images: map[[2]string]string{}}
}

// declare adds param under the first free name of names (the last one numbered when all are
// taken) and returns the name it got.
func (p *planner) declare(param templates.Parameter, names ...string) string {
	name := names[len(names)-1]
	for _, n := range names {
		if _, taken := p.byName[n]; !taken {
			name = n
			break
		}
	}
	for i := 2; ; i++ {
		if _, taken := p.byName[name]; !taken {
			break
		}
		name = fmt.Sprintf("%s_%d", names[len(names)-1], i)
	}
	param.Name = name
	p.byName[name] = len(p.params)
	p.params = append(p.params, param)
	return name
}

// edit queues a change of the objects.
func (p *planner) edit(f func() error) { p.edits = append(p.edits, f) }

// ref is a reference to a parameter inside a string, typedRef one that gives the value as
// JSON (an int for replicas).
func ref(name string) string      { return "${" + name + "}" }
func typedRef(name string) string { return "${{" + name + "}}" }

// parameterName spells parts as a parameter name: upper case, words joined by "_", any other
// character "_", never starting with a digit.
func parameterName(parts ...string) string {
	var b strings.Builder
	for _, part := range parts {
		if part == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		for _, r := range strings.ToUpper(part) {
			if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
	}
	name := b.String()
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "_" + name
	}
	return name
}

// secrets makes each Secret value a required parameter without a default, given through
// stringData; a value that is not text keeps its place in data, as a base64 parameter.
func (p *planner) secrets(objects []Object) {
	for _, obj := range objects {
		if !isKind(obj, "", "Secret") || transform.NestedString(obj, "type") == tokenSecretType {
			continue
		}
		data := transform.NestedMap(obj, "data")
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		secretName := transform.NestedString(obj, "metadata", "name")
		for _, key := range keys {
			encoded, _ := data[key].(string)
			if encoded == "" {
				continue // nothing to hide, and a required parameter could not be empty
			}
			decoded, err := base64.StdEncoding.DecodeString(encoded)
			text := err == nil && utf8.Valid(decoded)
			param := templates.Parameter{
				DisplayName: fmt.Sprintf("%s: %s", secretName, key),
				Description: fmt.Sprintf("The value of %q in Secret %q. It was not exported: give it when processing.", key, secretName),
				Required:    true,
				Secret:      true,
			}
			if !text {
				param.Type = templates.ParameterTypeBase64
				param.Description = fmt.Sprintf("The value of %q in Secret %q, base64-encoded (it is not text). It was not exported: give it when processing.", key, secretName)
			}
			name := p.declare(param, parameterName(p.stem(obj), key), parameterName(secretName, key))
			p.edit(func() error {
				if text {
					delete(data, key)
					stringData, _ := obj["stringData"].(map[string]any)
					if stringData == nil {
						stringData = map[string]any{}
						obj["stringData"] = stringData
					}
					stringData[key] = ref(name)
				} else {
					data[key] = ref(name)
				}
				if len(data) == 0 {
					delete(obj, "data")
				}
				return nil
			})
		}
	}
}

// dropNamespace removes metadata.namespace, and the namespace of the ServiceAccounts of
// RoleBindings that is the source namespace: a RoleBinding's subject without one is of the
// binding's namespace, which keeps the binding working wherever the template is processed.
func (p *planner) dropNamespace(objects []Object) {
	p.edit(func() error {
		for _, obj := range objects {
			meta := transform.NestedMap(obj, "metadata")
			namespace := transform.NestedString(meta, "namespace")
			delete(meta, "namespace")
			if !isKind(obj, "rbac.authorization.k8s.io", "RoleBinding") || namespace == "" {
				continue
			}
			for _, s := range list(obj, "subjects") {
				if s, ok := s.(map[string]any); ok && transform.NestedString(s, "kind") == "ServiceAccount" && transform.NestedString(s, "namespace") == namespace {
					delete(s, "namespace")
				}
			}
		}
		return nil
	})
}

// imagesAndReplicas makes each container image <CONTAINER>_IMAGE (one parameter for the
// containers of one name and image) and each integer spec.replicas an int parameter.
func (p *planner) imagesAndReplicas(objects []Object) {
	for _, obj := range objects {
		kind, objName := transform.NestedString(obj, "kind"), transform.NestedString(obj, "metadata", "name")
		for _, t := range podTemplates(obj) {
			for _, c := range containers(transform.NestedMap(t, "spec")) {
				image, container := transform.NestedString(c, "image"), transform.NestedString(c, "name")
				if image == "" {
					continue
				}
				key := [2]string{container, image}
				name, shared := p.images[key]
				if !shared {
					name = p.declare(templates.Parameter{
						DisplayName: fmt.Sprintf("Image of %s", container),
						Description: fmt.Sprintf("The image of container %q of %s %q.", container, kind, objName),
						Value:       image,
						Required:    true,
					}, parameterName(container, "IMAGE"), parameterName(p.stem(obj), container, "IMAGE"))
					p.images[key] = name
				}
				p.edit(func() error { c["image"] = ref(name); return nil })
			}
		}
		spec := transform.NestedMap(obj, "spec")
		replicas, ok := number(spec["replicas"])
		if !ok || replicas != float64(int64(replicas)) {
			continue
		}
		name := p.declare(templates.Parameter{
			DisplayName: fmt.Sprintf("Replicas of %s", objName),
			Description: fmt.Sprintf("The number of replicas of %s %q.", kind, objName),
			Value:       fmt.Sprint(int64(replicas)),
			Type:        templates.ParameterTypeInt,
			Required:    true,
		}, parameterName(p.stem(obj), "REPLICAS"), parameterName(objName, "REPLICAS"))
		p.edit(func() error { spec["replicas"] = typedRef(name); return nil })
	}
}
