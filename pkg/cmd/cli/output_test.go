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

package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// TestLocalListIsCompacted checks the claim writeList relies on: what --local processing
// returns, by the engine alone, with transformers and with a JSON parameter written with
// spaces, is valid, compact JSON, so that writing it unchecked writes what printList would.
func TestLocalListIsCompacted(t *testing.T) {
	files, err := filepath.Glob("../../process/testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	withTransformers := filepath.Join(dir, "transformers.yaml")
	if err := os.WriteFile(withTransformers, []byte(`apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: t}
parameters:
- {name: CONFIG, type: json, value: '{ "a" : [ 1, "x y" ] }'}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {k: "<&> \u00e9"}, extra: "${{CONFIG}}"}
transformers:
- {apiVersion: builtin, kind: LabelTransformer, labels: {team: a}, fieldSpecs: [{path: metadata/labels, create: true}]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, withTransformers) {
		o := &ProcessOptions{Filenames: []string{f}, Local: true, Params: []string{"MYSQL_USER=u", "MONGODB_PASSWORD=p"},
			IgnoreUnknownParameters: true, Output: "yaml", streams: IOStreams{ErrOut: io.Discard}}
		req, err := o.request()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		list, _, err := o.processLocal(req, false)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		compact, err := jsonbytes.Compact(list)
		if err != nil || !bytes.Equal(compact, list) {
			t.Errorf("%s: the List is not valid, compact JSON (%v):\n%s", f, err, list)
			continue
		}
		for _, format := range []string{"yaml", "json"} {
			var checked, unchecked bytes.Buffer
			if err := printList(&checked, list, format); err != nil {
				t.Fatal(err)
			}
			if err := writeList(&unchecked, list, format); err != nil {
				t.Fatal(err)
			}
			if checked.String() != unchecked.String() {
				t.Errorf("%s, %s: writeList differs from printList:\n%s\nwant\n%s", f, format, &unchecked, &checked)
			}
		}
	}
}
