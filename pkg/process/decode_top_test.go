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
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"stencil.dev/stencil/pkg/positions"
)

// checkSplitTop checks that splitTop, where it answers, splits the JSON of a YAML document
// exactly as splitTemplate does, and reports whether it answered.
func checkSplitTop(t *testing.T, name string, doc []byte) bool {
	t.Helper()
	data, top, err := positions.YAMLToJSONTop(doc)
	if err != nil {
		return false
	}
	want, wantErr := splitTemplate(data)
	got := splitTop(data, top)
	if got == nil {
		return false
	}
	if wantErr != nil {
		t.Fatalf("%s: splitTop split what splitTemplate refuses (%v)", name, wantErr)
	}
	if got.objectNumbersFit {
		t.Fatalf("%s: splitTop says the objects' numbers fit, which it does not read", name)
	}
	want.objectNumbersFit = false // only the scan reads them
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: splitTop gave\n%+v\nsplitTemplate\n%+v", name, got, want)
	}
	return true
}

// TestSplitTop splits every YAML template of the corpus and of this package's testdata both
// ways. (FuzzSplitTop tries other documents.)
func TestSplitTop(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../../shared/testdata/openshift-corpus/templates/*/*.y*ml", "testdata/*.yaml", "testdata/*/*.yaml"} {
		matches, _ := filepath.Glob(pattern)
		files = append(files, matches...)
	}
	split := 0
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if checkSplitTop(t, f, doc) {
			split++
		}
	}
	if split < len(files)*9/10 {
		t.Fatalf("splitTop split %d of %d files", split, len(files))
	}
	t.Logf("splitTop split %d of %d files as splitTemplate does", split, len(files))
	for _, doc := range []string{
		"- a\n", "a: 1\n", "objects: null\nkind: Template\n", "objects: {}\n", "objects: []\n",
		"kind: 1\n", "Kind: Template\nobjects: [1, [2], {a: b}]\n", "\"k\\u0069nd\": Template\n",
		"objects: &o [a]\nparameters: *o\nkind: Template\n", "a: &a [b]\n<<: {c: *a}\nobjects: *a\n",
		"objects: [a]\nobjects: [b]\n", "\"ob\\x6aects\": [x]\n",
	} {
		checkSplitTop(t, doc, []byte(doc))
	}
}

func FuzzSplitTop(f *testing.F) {
	for _, doc := range []string{"kind: Template\nobjects:\n- a: 1\n- [b]\nparameters:\n- name: A\n",
		"objects: &o [{a: b}]\nx: *o\n", "a: 1\na: 2\nobjects: [x]\nobjects: [y]\n"} {
		f.Add([]byte(doc))
	}
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, file := range files {
		if doc, err := os.ReadFile(file); err == nil {
			f.Add(doc)
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkSplitTop(t, "the input", doc)
	})
}
