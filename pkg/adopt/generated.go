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
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
)

// minGeneratedLength is the shortest generated value looked for in the render: a shorter one
// may stand in the objects by chance.
const minGeneratedLength = 8

// Located is where a generated parameter's value was found.
type Located struct {
	// Value is the live value.
	Value string
	// Where names the object and field: "Secret ns/web-db data.password".
	Where string
}

// GeneratedValues finds the values another tool generated, so that an adopting instance keeps
// them instead of generating new ones: for each generated parameter, the render's value
// (generated, so nothing else in the objects holds it) is looked up in the rendered objects,
// and the live object's field at the same place gives the value the parameter takes. A
// Secret's data is compared decoded, and a rendered stringData key is read from the live
// data (the API server moves stringData there). Text around the value must match (a URL
// holding a password): the value is what lies between. It returns the values found, and for
// the parameters left to generate anew, why; live objects that disagree on a value are such a
// reason.
func GeneratedValues(generated map[string]string, rendered []map[string]any, live func(Ref) map[string]any) (map[string]Located, map[string]string) {
	found := map[string]Located{}
	why := map[string]string{}
	names := make([]string, 0, len(generated))
	for n := range generated {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, obj := range rendered {
		ref, err := RefOf(obj)
		if err != nil {
			continue
		}
		liveObj := live(ref)
		if liveObj == nil {
			continue
		}
		secret := ref.Group == "" && ref.Kind == "Secret"
		walkStrings(obj, nil, func(path []any, s string) {
			livePath := path
			if secret && len(path) == 2 && (path[0] == "data" || path[0] == "stringData") {
				if path[0] == "data" {
					s = decodeBase64(s)
				}
				livePath = []any{"data", path[1]}
			}
			for _, n := range names {
				v := generated[n]
				if len(v) < minGeneratedLength || !strings.Contains(s, v) {
					continue
				}
				where := ref.String() + " " + formatPath(livePath)
				liveValue, ok := lookup(liveObj, livePath).(string)
				if ok && secret && livePath[0] == "data" {
					liveValue = decodeBase64(liveValue)
				}
				value, match := between(s, v, liveValue)
				switch {
				case !ok || !match:
					if _, done := found[n]; !done {
						why[n] = "the live " + where + " does not hold it in the same place"
					}
				case found[n].Where != "" && found[n].Value != value:
					why[n] = "the live objects disagree: " + found[n].Where + " and " + where + " hold different values"
					found[n] = Located{Where: found[n].Where}
				case found[n].Where == "":
					found[n] = Located{Value: value, Where: where}
					delete(why, n)
				}
			}
		})
	}
	for n, l := range found {
		if l.Value == "" {
			delete(found, n)
		}
	}
	for _, n := range names {
		if _, ok := found[n]; !ok && why[n] == "" {
			if len(generated[n]) < minGeneratedLength {
				why[n] = fmt.Sprintf("its values are shorter than %d characters: too short to find in the objects", minGeneratedLength)
			} else {
				why[n] = "no rendered object holds it"
			}
		}
	}
	return found, why
}

// between reads the value that stands in live where v stands in rendered: live must be
// rendered with every v replaced by one value, whose length the lengths tell.
func between(rendered, v, live string) (string, bool) {
	count := strings.Count(rendered, v)
	rest := len(live) - (len(rendered) - count*len(v))
	if count == 0 || rest <= 0 || rest%count != 0 {
		return "", false
	}
	start := strings.Index(rendered, v)
	value := live[start : start+rest/count]
	if strings.ReplaceAll(rendered, v, value) != live {
		return "", false
	}
	return value, true
}

func decodeBase64(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return ""
	}
	return string(b)
}

// walkStrings calls f with the path and value of every string in v.
func walkStrings(v any, path []any, f func([]any, string)) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			walkStrings(x, append(path[:len(path):len(path)], k), f)
		}
	case []any:
		for i, x := range t {
			walkStrings(x, append(path[:len(path):len(path)], i), f)
		}
	case string:
		f(path, t)
	}
}

func lookup(v any, path []any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func formatPath(path []any) string {
	s := ""
	for _, p := range path {
		switch k := p.(type) {
		case string:
			s = joinField(s, k)
		case int:
			s += fmt.Sprintf("[%d]", k)
		}
	}
	return s
}
