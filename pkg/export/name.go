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
	"fmt"
	"regexp"
	"strings"
	"sync"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// NameParameter is the parameter of the application's name.
const NameParameter = "NAME"

// dnsLabel is RFC 1123's label, the names of most kinds and the values of app labels.
var dnsLabel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })

// stem is an object's name without the application's name: "web" for "shop-web" in the
// application shop, "" for "shop" itself.
func (p *planner) stem(obj Object) string {
	name := transform.NestedString(obj, "metadata", "name")
	if p.appName == "" {
		return name
	}
	if name == p.appName {
		return ""
	}
	if rest, ok := p.cutName(name); ok {
		return rest[1:]
	}
	return name
}

// cutName returns what follows the application's name in s ("-web" in "shop-web"), and
// whether s starts with it followed by a separator or nothing.
func (p *planner) cutName(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, p.appName)
	if !ok || p.appName == "" || rest != "" && !strings.ContainsRune("-._", rune(rest[0])) {
		return "", false
	}
	return rest, true
}

// substitute writes the reference to NAME in place of the application's name at the start of s.
func (p *planner) substitute(s string) (string, bool) {
	rest, ok := p.cutName(s)
	if !ok {
		return s, false
	}
	return ref(NameParameter) + rest, true
}

// name declares NAME and queues the renames, the label and selector values, and the container
// environment values that name a renamed Service.
func (p *planner) name(objects []Object) {
	param := templates.Parameter{
		DisplayName: "Application name",
		Description: fmt.Sprintf("The name of the application (%q when exported): it starts the objects' names and is the value of their app labels.", p.appName),
		Value:       p.appName,
		Required:    true,
	}
	// A name that is a DNS label keeps to one, so that a value no Service or label could
	// carry is refused when processing starts rather than by the API server object by object.
	if dnsLabel().MatchString(p.appName) {
		param.Pattern = dnsLabel().String()
	}
	p.declare(param, NameParameter)
	p.edit(func() error {
		services := map[string]string{}
		for _, obj := range objects {
			if isKind(obj, "", "Service") {
				if to, ok := p.substitute(transform.NestedString(obj, "metadata", "name")); ok {
					services[transform.NestedString(obj, "metadata", "name")] = to
				}
			}
		}
		if err := filters.RenameObjects(objects, func(obj Object) (string, bool) {
			return p.substitute(transform.NestedString(obj, "metadata", "name"))
		}); err != nil {
			return err
		}
		for _, obj := range objects {
			p.labels(obj, "")
			if isKind(obj, "", "Service") || isKind(obj, "", "ReplicationController") {
				p.substituteValues(transform.NestedMap(obj, "spec", "selector"))
			}
			for _, t := range podTemplates(obj) {
				for _, c := range containers(transform.NestedMap(t, "spec")) {
					for _, e := range list(c, "env") {
						if e, ok := e.(map[string]any); ok {
							if to, ok := services[transform.NestedString(e, "value")]; ok {
								e["value"] = to
							}
						}
					}
				}
			}
		}
		return nil
	})
}

// labels substitutes NAME in every label map and label selector under node.
func (p *planner) labels(node any, key string) {
	switch n := node.(type) {
	case map[string]any:
		if key == "labels" || key == "matchLabels" {
			p.substituteValues(n)
			return
		}
		for k, v := range n {
			p.labels(v, k)
		}
	case []any:
		for _, v := range n {
			if key == "matchExpressions" {
				if m, ok := v.(map[string]any); ok {
					values, _ := m["values"].([]any)
					for i, s := range values {
						if s, ok := s.(string); ok {
							values[i], _ = p.substitute(s)
						}
					}
				}
				continue
			}
			p.labels(v, key)
		}
	}
}

// substituteValues substitutes NAME in the string values of m.
func (p *planner) substituteValues(m map[string]any) {
	for k, v := range m {
		if s, ok := v.(string); ok {
			m[k], _ = p.substitute(s)
		}
	}
}

// detectName finds the application's name: the one value of the app.kubernetes.io/instance
// label, else of the app label, else the name every object's name starts with.
func detectName(objects []Object) string {
	for _, key := range []string{"app.kubernetes.io/instance", "app"} {
		found := ""
		for _, obj := range objects {
			v := transform.NestedString(obj, "metadata", "labels", key)
			if v == "" {
				continue
			}
			if found != "" && v != found {
				found = ""
				break
			}
			found = v
		}
		if found != "" {
			return found
		}
	}
	return commonNamePrefix(objects)
}

// commonNamePrefix is the longest prefix of every object's name that ends where a name ends
// or at a separator (-, . or _).
func commonNamePrefix(objects []Object) string {
	if len(objects) == 0 {
		return ""
	}
	prefix := transform.NestedString(objects[0], "metadata", "name")
	for _, obj := range objects[1:] {
		name := transform.NestedString(obj, "metadata", "name")
		n := 0
		for n < len(prefix) && n < len(name) && prefix[n] == name[n] {
			n++
		}
		prefix = prefix[:n]
	}
	for ; prefix != ""; prefix = prefix[:len(prefix)-1] {
		if strings.ContainsRune("-._", rune(prefix[len(prefix)-1])) {
			continue
		}
		whole := true
		for _, obj := range objects {
			name := transform.NestedString(obj, "metadata", "name")
			if len(name) > len(prefix) && !strings.ContainsRune("-._", rune(name[len(prefix)])) {
				whole = false
				break
			}
		}
		if whole {
			return prefix
		}
	}
	return ""
}
