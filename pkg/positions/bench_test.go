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
	"os"
	"path/filepath"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// BenchmarkReaders reads every YAML template of the shared corpus, per run, with each
// converter: this package without and with positions, sigs.k8s.io/yaml's YAMLToJSON (the
// baseline), and go.yaml.in/yaml/v3's node tree alone (the other route: a converter walking
// it can only be slower than building it).
func BenchmarkReaders(b *testing.B) {
	files, _ := filepath.Glob("../../../shared/testdata/openshift-corpus/templates/*/*.y*ml")
	var docs [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := yaml.YAMLToJSON(data); err == nil {
			docs, size = append(docs, data), size+len(data)
		}
	}
	if len(docs) == 0 {
		b.Skip("no corpus")
	}
	for _, r := range []struct {
		name string
		read func([]byte) error
	}{
		{"positions", func(d []byte) error { _, err := YAMLToJSON(d); return err }},
		{"positions+index", func(d []byte) error { _, err := Read("f.yaml", d); return err }},
		{"sigs", func(d []byte) error { _, err := yaml.YAMLToJSON(d); return err }},
		{"v3-node", func(d []byte) error { var n yamlv3.Node; return yamlv3.Unmarshal(d, &n) }},
	} {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range docs {
					if err := r.read(d); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
