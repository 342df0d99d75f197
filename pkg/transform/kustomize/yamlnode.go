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
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// jsonNumber matches a number as JSON writes it.
var jsonNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`)
})

// yamlToValue converts a kyaml node into the tree jsonbytes.DecodeObjects builds. Reading the node
// directly keeps the exact text of numbers (a yaml.v3 decode would turn large integers into
// float64) and saves a YAML -> JSON round trip.
func yamlToValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlToValue(n.Content[0])
	case yaml.AliasNode:
		return yamlToValue(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := yamlToValue(n.Content[i])
			if err != nil {
				return nil, err
			}
			v, err := yamlToValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			switch k := k.(type) {
			case string:
				m[k] = v
			case json.Number:
				m[string(k)] = v
			case bool:
				m[strconv.FormatBool(k)] = v
			default:
				return nil, fmt.Errorf("line %d: unsupported map key", n.Content[i].Line)
			}
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := yamlToValue(c)
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return l, nil
	case yaml.ScalarNode:
		return yamlScalar(n)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// yamlScalar converts a scalar by its resolved tag.
func yamlScalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err != nil {
			return n.Value, nil
		}
		return b, nil
	case "!!int":
		if jsonNumber().MatchString(n.Value) {
			return json.Number(n.Value), nil
		}
		// YAML spellings such as 0x1F, 0o17 or +12.
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: integer %q", n.Line, n.Value)
		}
		return json.Number(strconv.FormatInt(i, 10)), nil
	case "!!float":
		if jsonNumber().MatchString(n.Value) {
			return json.Number(n.Value), nil
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("line %d: number %q has no JSON form", n.Line, n.Value)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	}
	return n.Value, nil
}
