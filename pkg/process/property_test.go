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

package process

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFastAndSlowPathsAgree generates random workload-shaped templates, dense in what the
// program compiler treats specially (label targets, nulls, typed references, substituted
// keys, namespaces, containers), and checks that the compiled program and the slow path give
// the same valid JSON, with and without labels.
func TestFastAndSlowPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	params := `[{"name":"S","value":"text"},{"name":"N","value":"7"},{"name":"NUL","value":"null"},
		{"name":"OBJ","value":"{\"k\":[1,null]}"},{"name":"KEY","value":"dyn"},{"name":"KIND","value":"Deployment"}]`
	for i := range 400 {
		dialect := Stencil
		if i%3 == 2 {
			dialect = OpenShift
		}
		var objects []string
		for range 1 + rng.IntN(3) {
			objects = append(objects, randomObject(rng))
		}
		template := stencilTemplate(params, "["+strings.Join(objects, ",")+"]")
		if dialect == OpenShift {
			template = openShiftTemplateJSON(params, "["+strings.Join(objects, ",")+"]")
		}
		for _, labels := range []map[string]string{nil, {"app": "x", "zz": "y"}} {
			_, errs := processCase(t, template, Request{Labels: labels})
			if len(errs) > 0 {
				t.Fatalf("%v\n%s", errs, template)
			}
		}
	}
}

func randomObject(rng *rand.Rand) string {
	kinds := []string{`"apiVersion":"apps/v1","kind":"Deployment"`, `"apiVersion":"v1","kind":"Service"`,
		`"apiVersion":"batch/v1","kind":"CronJob"`, `"apiVersion":"v1","kind":"ReplicationController"`,
		`"apiVersion":"v1","kind":"DeploymentConfig"`, `"apiVersion":"apps/v1","kind":"${KIND}"`,
		`"apiVersion":"v1","kind":"ConfigMap"`}
	members := []string{kinds[rng.IntN(len(kinds))]}
	for _, key := range []string{"metadata", "spec", "data"} {
		if rng.IntN(4) > 0 {
			members = append(members, fmt.Sprintf("%q:%s", key, randomValue(rng, 4, key)))
		}
	}
	rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + strings.Join(members, ",") + "}"
}

// randomValue returns a JSON value for key, nested up to depth.
func randomValue(rng *rand.Rand, depth int, key string) string {
	scalars := []string{`"plain"`, `"${S}"`, `"a-${S}-b"`, `"$(S)"`, `"$((N))"`, `"${{N}}"`, `"${{NUL}}"`,
		`"$((OBJ))"`, `null`, `3`, `true`, `"$${S}"`, `"${{S}}x"`}
	if depth == 0 || rng.IntN(5) == 0 {
		return scalars[rng.IntN(len(scalars))]
	}
	if rng.IntN(6) == 0 {
		items := make([]string, rng.IntN(3))
		for i := range items {
			items[i] = randomValue(rng, depth-1, key)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	keys := map[string][]string{
		"metadata":    {"name", "namespace", "labels", "annotations"},
		"spec":        {"selector", "template", "jobTemplate", "replicas", "spec"},
		"selector":    {"matchLabels", "matchExpressions", "app"},
		"template":    {"metadata", "spec"},
		"jobTemplate": {"spec", "metadata"},
	}
	candidates, ok := keys[key]
	if !ok {
		candidates = []string{"a", "b", "${KEY}", "$(KEY)", "labels", "metadata", "containers"}
	}
	var members []string
	seen := map[string]bool{}
	for range rng.IntN(4) {
		k := candidates[rng.IntN(len(candidates))]
		if seen[k] || (strings.Contains(k, "KEY") && (seen["${KEY}"] || seen["$(KEY)"])) {
			continue
		}
		seen[k] = true
		members = append(members, fmt.Sprintf("%q:%s", k, randomValue(rng, depth-1, k)))
	}
	return "{" + strings.Join(members, ",") + "}"
}
