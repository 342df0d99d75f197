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

package positions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const template = `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: demo   # a comment
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    labels: &labels
      app.kubernetes.io/name: web
  spec:
    replicas: 3
    selector: {matchLabels: *labels}
    template:
      spec:
        containers:
        - name: web
          image: "${IMAGE}"
          args:
          - --port
          - "8080"
          env: &env
            - {name: A, value: a}
- kind: ConfigMap
  data:
    script: |
      echo hi
    <<: {merged: yes}
parameters:
- name: IMAGE
`

func TestLookupYAML(t *testing.T) {
	x, err := Read("t.yaml", []byte(template))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"kind":                     "t.yaml:2:1",
		"metadata.name":            "t.yaml:4:3",
		"objects[0].spec.replicas": "t.yaml:12:5",
		"objects[0].spec.template.spec.containers[0].image":        "t.yaml:18:11",
		"objects[0].spec.template.spec.containers[0].args[1]":      "t.yaml:21:13",
		"objects[0].metadata.labels[app.kubernetes.io/name]":       "t.yaml:10:7",
		"objects[0].metadata.labels.app.kubernetes.io/name":        "t.yaml:10:7",
		"objects[0].spec.selector.matchLabels":                     "t.yaml:13:16",
		"objects[0].spec.template.spec.containers[0].env[0].value": "t.yaml:23:25",
		"objects[1].data.script":                                   "t.yaml:26:5",
		"objects[1].data.merged":                                   "t.yaml:28:10",
		"/objects/0/spec/replicas":                                 "t.yaml:12:5",
		"objects[0].spec.replicas.nothing":                         "t.yaml:12:5",
		"nothing.at.all":                                           "",
	} {
		if got := x.Locate(path); got != want {
			t.Errorf("Locate(%s) = %q, want %q", path, got, want)
		}
	}
	s, ok := x.Lookup("objects[0].spec.replicas")
	if !ok || s.Value.String() != "12:15" || s.Key.String() != "12:5" {
		t.Errorf("replicas: %+v %v", s, ok)
	}
	// The alias's value is where it is used; the fields below it where the anchor wrote them.
	if s, _ := x.Lookup("objects[0].spec.selector.matchLabels"); s.Value.String() != "13:29" {
		t.Errorf("alias value at %v", s.Value)
	}
	if s, _ := x.Lookup("objects[0].spec.selector.matchLabels[app.kubernetes.io/name]"); s.Key.String() != "10:7" {
		t.Errorf("aliased field at %v", s.Key)
	}
	if p, ok := x.PathAt(18, 20); !ok || p.String() != "objects[0].spec.template.spec.containers[0].image" {
		t.Errorf("PathAt(18, 20) = %v %v", p, ok)
	}
	if p, ok := x.PathAt(12, 1); !ok || p.String() != "objects[0].spec" {
		t.Errorf("PathAt(12, 1) = %v", p)
	}
}

func TestLookupJSON(t *testing.T) {
	data := []byte("{\n  \"kind\": \"Template\",\n  \"objects\": [\n    {\"kind\": \"Service\", \"spec\": {\"ports\": [{\"port\": 80}]}}\n  ],\n  \"a\\u0062\": \"é\", \"after\": 1\n}\n")
	x, err := Read("t.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if string(x.JSON()) != string(data) {
		t.Fatal("JSON must be kept as it is")
	}
	for path, want := range map[string]string{
		"kind":                          "t.json:2:3",
		"objects[0]":                    "t.json:4:5",
		"objects[0].spec.ports[0].port": "t.json:4:45",
		"ab":                            "t.json:6:3",
		"after":                         "t.json:6:19",
	} {
		if got := x.Locate(path); got != want {
			t.Errorf("Locate(%s) = %q, want %q", path, got, want)
		}
	}
	var nilIndex *Index
	if nilIndex.Locate("kind") != "" || nilIndex.File() != "" {
		t.Error("a nil Index knows nothing")
	}
}

func TestPaths(t *testing.T) {
	for _, s := range []string{"objects[2].spec.replicas", "metadata.labels[app.kubernetes.io/name]", "a[0][1].b", "x"} {
		p, err := ParsePath(s)
		if err != nil || p.String() != s {
			t.Errorf("ParsePath(%q) = %v, %v", s, p, err)
		}
	}
	p, _ := ParsePath("/a~1b/0/c~0")
	if p.String() != "[a/b][0][c~]" || p.Pointer() != "/a~1b/0/c~0" {
		t.Errorf("pointer: %s %s", p, p.Pointer())
	}
	for _, bad := range []string{"a..b", "a[0", "a[0]b", ".a"} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) must fail", bad)
		}
	}
}

// TestFallbackPositions: a file the fast reader leaves to YAMLToJSON (tabs) still has places.
func TestFallbackPositions(t *testing.T) {
	x, err := Read("t.yaml", []byte("a:\n  b: 1\t# tab\n  c: [x, y]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := x.Locate("a.c[1]"); got != "t.yaml:3:10" {
		t.Errorf("Locate = %q", got)
	}
	var paths []string
	x.Walk(nil, func(p Path, _ Span) bool { paths = append(paths, p.String()); return true })
	if strings.Join(paths, " ") != " a a.b a.c a.c[0] a.c[1]" {
		t.Errorf("Walk: %q", paths)
	}
}

// TestEveryFieldHasAPlace reads every YAML file of the corpus and the project's testdata and
// checks that each field of the JSON has a place, and that the place holds its value: the
// first characters of a plain string, or the start of a quoted or block scalar, or an alias.
func TestEveryFieldHasAPlace(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/testdata/openshift-corpus/templates/*/*.y*ml")
	more, _ := filepath.Glob("../../pkg/*/testdata/*.yaml")
	files = append(files, more...)
	fields := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		x, err := Read(f, data)
		if err != nil {
			continue
		}
		x.walkOffsets(nil, func(p Path, key, value int) bool {
			s := x.span(key, value)
			fields++
			if !s.Value.IsValid() {
				t.Fatalf("%s: %s has no place", f, p)
			}
			if len(p) > 0 && !p[len(p)-1].IsIndex && !s.Key.IsValid() {
				t.Fatalf("%s: the member %s has no place", f, p)
			}
			raw := x.json[value:valueEnd(x.json, value)]
			at := data[s.Value.Offset:]
			var str string
			if json.Unmarshal(raw, &str) == nil && len(str) > 0 && !strings.ContainsAny(string(at[:1]), `"'|>*&`) &&
				!strings.HasPrefix(string(at), str[:min(len(str), 8)]) && !strings.Contains(str, "\n") {
				t.Fatalf("%s: %s = %s, but its place %v holds %q", f, p, raw, s.Value, at[:min(len(at), 20)])
			}
			if key >= 0 {
				var name string
				_ = json.Unmarshal(x.json[key:stringEnd(x.json, key)], &name)
				if k := data[s.Key.Offset:]; !strings.HasPrefix(string(k), name) && !strings.ContainsAny(string(k[:1]), `"'`) && name != "true" && name != "false" {
					t.Fatalf("%s: the key of %s is at %v, which holds %q", f, p, s.Key, k[:min(len(k), 20)])
				}
			}
			return true
		})
	}
	if fields < 50000 {
		t.Fatalf("only %d fields in %d files", fields, len(files))
	}
	t.Logf("%d fields of %d files have their places", fields, len(files))
}

func TestReadDocument(t *testing.T) {
	data := []byte("---\n# Source: x\n---\nkind: Template\nmetadata:\n  name: a\n")
	x, err := ReadDocument("t.yaml", data, 20)
	if err != nil || string(x.JSON()) != `{"kind":"Template","metadata":{"name":"a"}}` {
		t.Fatalf("%s %v", x.JSON(), err)
	}
	if got := x.Locate("metadata.name"); got != "t.yaml:6:3" {
		t.Errorf("Locate = %q", got)
	}
	tabs := []byte("---\n---\na:\n  b: 1\t# tab\n")
	if x, err = ReadDocument("t.yaml", tabs, 8); err != nil || x.Locate("a.b") != "t.yaml:4:3" {
		t.Errorf("fallback: %v %q", err, x.Locate("a.b"))
	}
	if _, err := ReadDocument("t.yaml", data, 2); err == nil {
		t.Error("a document starts at a line")
	}
}
