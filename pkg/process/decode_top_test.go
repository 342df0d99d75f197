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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
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
	// splitTop says the converter's numbers all fit: the check it spares finds none that does
	// not. (The scan, more careful, may say it does not know: a scalar among the objects.)
	for i, o := range got.objects {
		if errs := templates.NumberErrors(o.Raw, field.NewPath("objects").Index(i)); got.objectNumbersFit && len(errs) > 0 {
			t.Fatalf("%s: splitTop says the objects' numbers fit, NumberErrors finds %v", name, errs)
		}
	}
	want.objectNumbersFit = got.objectNumbersFit
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
		// Numbers beyond what the converter resolves them to are strings; the rest fit.
		"objects:\n- {a: 1e400, b: -1e999, c: 1.5e300, d: 12345678901234567890123, e: 0x1F, f: 1_000}\n",
		"objects: [{n: " + strings.Repeat("9", 400) + "}, {m: 1e21}, {o: .5e-7}]\n",
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
