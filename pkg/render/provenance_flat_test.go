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

package render_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/provenance"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform/remove"
)

// flatCases are templates whose objects no step changes: a for-each object, a typed ${{P}},
// a substituted member name, template and caller labels merged into label maps, a member name
// holding a secret value, empty objects and arrays, escaped and dotted member names, and the
// OpenShift dialect's rewrites.
var flatCases = map[string]string{
	"rules.yaml": `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: rules}
parameters:
- {name: ENVS, type: json, value: '["dev","prod"]'}
- {name: RES, type: json, value: '{"limits":{"cpu":"1"}}'}
- {name: KEY, value: color}
- {name: PASSWORD, value: hunter2}
objectLabels: {app: web}
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm-${ITEM}
    annotations: {templates.stencil.dev/for-each: params.ENVS}
  data: {env: "${ITEM}", "${KEY}": blue, "${PASSWORD}": x, "a.b": "1", "q\"uote": "2", empty: {}, none: []}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    selector: {matchLabels: {tier: front}}
    template:
      spec:
        containers:
        - {name: app, image: nginx, resources: "${{RES}}", args: [a, "${KEY}", 3, true, null]}
`,
	"openshift.json": `{"kind": "Template", "apiVersion": "template.openshift.io/v1", "metadata": {"name": "os"},
  "parameters": [{"name": "NAME", "value": "web"}],
  "objects": [
    {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "${NAME}", "namespace": "elsewhere"},
     "spec": {"ports": [{"port": 80, "targetPort": 8080}]}},
    {"kind": "DeploymentConfig", "apiVersion": "v1", "metadata": {"name": "${NAME}"}, "spec": {"replicas": 1}}
  ]}`,
}

// TestFlatTraceIsTheTrackersMap: a request whose objects no step changes gets its map from
// the trace's one walk over the engine's bytes, without decoding them or making Nodes; the
// same request with a step that changes nothing (a CustomTransform of a kind no object has)
// decodes the objects and makes the map from the Tracker's Nodes. Both maps must be the same,
// and so must the objects, for the templates above, the examples and the engine's test files.
func TestFlatTraceIsTheTrackersMap(t *testing.T) {
	files := map[string][]byte{}
	for name, data := range flatCases {
		files[name] = []byte(data)
	}
	for _, pattern := range []string{"../../artifacts/examples/*.*", "../process/testdata/*.*"} {
		names, _ := filepath.Glob(pattern)
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "kind: Template") || strings.Contains(string(data), `"kind": "Template"`) {
				files[name] = data
			}
		}
	}
	if len(files) < 8 {
		t.Fatalf("only %d templates found", len(files))
	}
	nothing := []remove.Rule{{Name: "nothing", Kind: "NoSuchKind"}}
	r := render.NewRenderer(render.Options{})
	for name, data := range files {
		f, err := process.ReadTemplateFile(name, data, true)
		if _, ours := flatCases[name]; err != nil && !ours {
			// A file of several kinds (an instance and its RBAC): not a template file.
			continue
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		run := func(rules []remove.Rule) *render.Output {
			in := render.Input{Template: f.Template, RemovalRules: rules, Provenance: &render.ProvenanceOptions{Positions: f.Positions()}}
			in.Request.IgnoreUnknownParameters = true
			in.Request.Labels = map[string]string{"caller": "yes", "app": "theirs"}
			// Generated values are the same in both runs.
			in.Request.Parameters = map[string]string{}
			for _, p := range f.Template.Parameters {
				in.Request.Parameters[p.Name] = p.Value
				if p.Value == "" {
					in.Request.Parameters[p.Name] = "v-" + strings.ToLower(p.Name)
				}
			}
			if _, ok := in.Request.Parameters["PASSWORD"]; ok {
				// The caller's, not the template's default: a secret member name, masked.
				in.Request.Parameters["PASSWORD"] = "s3cr3t-hunter"
			}
			out, errs, err := r.Render(context.Background(), in)
			if err != nil || len(errs) > 0 {
				t.Fatalf("%s: %v %v", name, err, errs)
			}
			return out
		}
		flat, traced := run(nil), run(nothing)
		if !reflect.DeepEqual(flat.Provenance, traced.Provenance) {
			a, _ := json.MarshalIndent(flat.Provenance, "", " ")
			b, _ := json.MarshalIndent(traced.Provenance, "", " ")
			t.Errorf("%s: the flat trace's map differs from the tracker's:\n%s\n---\n%s", name, a, b)
		}
		if len(flat.Objects) != len(traced.Objects) {
			t.Fatalf("%s: %d and %d objects", name, len(flat.Objects), len(traced.Objects))
		}
		for i := range flat.Objects {
			var a, b any
			if json.Unmarshal(flat.Objects[i], &a) != nil || json.Unmarshal(traced.Objects[i], &b) != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("%s: object %d differs:\n%s\n%s", name, i, flat.Objects[i], traced.Objects[i])
			}
		}
		if n := countFields(flat.Provenance); n == 0 {
			t.Errorf("%s: no fields described", name)
		}
		if b, _ := json.Marshal(flat.Provenance); strings.Contains(string(b), "s3cr3t") {
			t.Errorf("%s: a secret in the map: %s", name, b)
		}
	}
}

func countFields(m *provenance.Map) int {
	n := 0
	for _, o := range m.Objects {
		n += len(o.Fields)
	}
	return n
}
