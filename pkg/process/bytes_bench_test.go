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
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates"
)

// requestTemplates are the templates a request may carry, as bytes: the shared OpenShift
// templates, the engine's own test templates and a generated template of amp.yml's size.
func requestTemplates(tb testing.TB) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{"amp-sized.json": AmpSizedTemplate()}
	for _, file := range []string{"mysql-persistent.json", "django-psql-persistent.json", "cincinnati-deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			tb.Fatal(err)
		}
		out[file] = data
	}
	return out
}

// BenchmarkFromBytes measures what a template given in a request costs, from the request's
// bytes to the bytes of the v1 List, beside its baseline in the same run:
//   - JSON input: encoding/json decoding the same bytes into maps (UseNumber) and encoding
//     them again (target: oneshot <= 0.3x of it);
//   - YAML input: sigs.k8s.io/yaml's YAMLToJSON of the same bytes alone (target: <= 1.3x),
//     and sigs.k8s.io/yaml's YAMLToJSON followed by the same engine (yaml/sigs, the path before
//     pkg/positions: target oneshot >= 1.3x its throughput with >= 40% fewer bytes);
//   - input read with the positions of its fields, as provenance and lint read a file
//     (yaml/positions and json/positions: target <= 1.1x of oneshot, by time and bytes).
func BenchmarkFromBytes(b *testing.B) {
	req := Request{Parameters: map[string]string{"MYSQL_USER": "u", "NAME": "bench"}, IgnoreUnknownParameters: true}
	for name, data := range requestTemplates(b) {
		name = strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".yaml")
		jsonData, yamlData := data, data
		if data[0] != '{' {
			var err error
			if jsonData, err = yaml.YAMLToJSON(data); err != nil {
				b.Fatal(err)
			}
		} else {
			var err error
			if yamlData, err = yaml.JSONToYAML(data); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name+"/json/baseline", func(b *testing.B) {
			b.SetBytes(int64(len(jsonData)))
			b.ReportAllocs()
			for b.Loop() {
				mapRoundTripBytes(b, jsonData)
			}
		})
		b.Run(name+"/json/oneshot", func(b *testing.B) {
			b.SetBytes(int64(len(jsonData)))
			b.ReportAllocs()
			for b.Loop() {
				listFromBytes(b, jsonData, req)
			}
		})
		b.Run(name+"/json/positions", func(b *testing.B) {
			b.SetBytes(int64(len(jsonData)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := ReadTemplateFile("t.json", jsonData, true)
				if err != nil {
					b.Fatal(err)
				}
				listFromTemplate(b, f.Template, f.Dialect, req)
			}
		})
		b.Run(name+"/yaml/baseline", func(b *testing.B) {
			b.SetBytes(int64(len(yamlData)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := yaml.YAMLToJSON(yamlData); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/yaml/oneshot", func(b *testing.B) {
			b.SetBytes(int64(len(yamlData)))
			b.ReportAllocs()
			for b.Loop() {
				listFromBytes(b, yamlData, req)
			}
		})
		b.Run(name+"/yaml/sigs", func(b *testing.B) {
			b.SetBytes(int64(len(yamlData)))
			b.ReportAllocs()
			for b.Loop() {
				converted, err := yaml.YAMLToJSON(yamlData)
				if err != nil {
					b.Fatal(err)
				}
				listFromBytes(b, converted, req)
			}
		})
		b.Run(name+"/yaml/positions", func(b *testing.B) {
			b.SetBytes(int64(len(yamlData)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := ReadTemplateFile("t.yaml", yamlData, true)
				if err != nil {
					b.Fatal(err)
				}
				listFromTemplate(b, f.Template, f.Dialect, req)
			}
		})
	}
}

// listFromBytes is the whole engine path of a template in a request.
func listFromBytes(tb testing.TB, data []byte, req Request) []byte {
	tmpl, dialect, err := DecodeTemplate(data)
	if err != nil {
		tb.Fatal(err)
	}
	return listFromTemplate(tb, tmpl, dialect, req)
}

// listFromTemplate is the engine path of a template once decoded.
func listFromTemplate(tb testing.TB, tmpl *templates.Template, dialect Dialect, req Request) []byte {
	plan, errs := Compile(tmpl, dialect)
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	result, errs := plan.Execute(req)
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	return ListBytes(result.Objects)
}

// mapRoundTripBytes is the JSON baseline: a map-based engine's decode and encode alone.
func mapRoundTripBytes(tb testing.TB, data []byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		tb.Fatal(err)
	}
	if _, err := json.Marshal(m); err != nil {
		tb.Fatal(err)
	}
}
