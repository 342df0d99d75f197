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
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// sharedTestdata is the shared testdata beside the repository (../shared/testdata from its
// root), where the OpenShift corpus is, as CI lays it out.
const sharedTestdata = "../../../shared/testdata"

// readerFiles lists every JSON and YAML file of the shared testdata (the OpenShift corpus,
// its templates and their expected output) and of the repository (its testdata and its
// examples). A missing corpus fails the test, as the corpus test of pkg/cmd/cli does.
func readerFiles(t *testing.T) []string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(sharedTestdata, "openshift-corpus", "templates")); err != nil {
		t.Fatal("the OpenShift corpus is not in " + sharedTestdata + " (../shared/testdata from the repository root, where the " +
			"repository's checkout keeps it): " + err.Error())
	}
	var files []string
	for _, root := range []string{sharedTestdata, "../.."} {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				switch d.Name() {
				case "_output", "node_modules", ".git", "fuzz":
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(p) {
			case ".yaml", ".yml", ".json":
				files = append(files, p)
			}
			return nil
		})
	}
	return files
}

// TestReaderCorpus is the differential corpus test: every JSON and YAML file of the OpenShift
// corpus and of the repository, read by the reader, gives what sigs.k8s.io/yaml's YAMLToJSON
// gives. YAML: the same bytes (YAMLToJSON, and Read with its Index), by the fast reader, not
// left to sigs.k8s.io/yaml. JSON: Read keeps the bytes as they are, which must hold the same
// JSON value as sigs.k8s.io/yaml's rewriting of them (same members, same numbers as written),
// and YAMLToJSON gives sigs.k8s.io/yaml's very bytes. YAMLToJSONStrict gives what
// YAMLToJSONStrict gives, refusals word for word. Every field read has a place.
// It runs in make corpus (beside the corpus test of pkg/cmd/cli), not under make unit's race
// detector.
func TestReaderCorpus(t *testing.T) {
	files := readerFiles(t)
	if len(files) < 800 {
		t.Fatalf("found %d JSON and YAML files: is ../shared/testdata there?", len(files))
	}
	differences, slow, fields := 0, 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := yaml.YAMLToJSON(data)
		got, err := YAMLToJSON(data)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			differences++
			t.Errorf("%s: YAMLToJSON gives %.200s (%v), sigs.k8s.io/yaml %.200s (%v)", f, got, err, want, wantErr)
			continue
		}
		// The strict conversion: the same bytes, or the same refusal of the keys a mapping
		// repeats (5 templates of the corpus), word for word.
		wantStrict, wantStrictErr := yaml.YAMLToJSONStrict(data)
		if got, err := YAMLToJSONStrict(data); !bytes.Equal(got, wantStrict) || fmt.Sprint(err) != fmt.Sprint(wantStrictErr) {
			differences++
			t.Errorf("%s: YAMLToJSONStrict gives %.200s (%v), sigs.k8s.io/yaml %.200s (%v)", f, got, err, wantStrict, wantStrictErr)
		}
		if wantErr != nil {
			continue // a file that is not YAML (a test's broken input): the same error
		}
		// A JSON file is read as it is; sigs.k8s.io/yaml may convert one the fast reader
		// does not (tabs between tokens, which YAML forbids in its own syntax).
		if _, fastPath := fast(data); !fastPath && filepath.Ext(f) != ".json" {
			slow++
			t.Errorf("%s: a valid file the fast reader leaves to sigs.k8s.io/yaml", f)
		}
		x, err := Read(f, data)
		if err != nil {
			differences++
			t.Errorf("%s: Read: %v", f, err)
			continue
		}
		if !sameJSON(x.JSON(), want) {
			differences++
			t.Errorf("%s: Read gives %.200s, sigs.k8s.io/yaml %.200s", f, x.JSON(), want)
		}
		x.Walk(nil, func(p Path, s Span) bool {
			if fields++; !s.Value.IsValid() {
				t.Errorf("%s: %s has no place", f, p)
				return false
			}
			return true
		})
	}
	t.Logf("%d files (%d fields): %d differences from sigs.k8s.io/yaml, %d valid files left to it", len(files), fields, differences, slow)
}

// sameJSON reports whether a and b hold the same JSON value: the same members and elements,
// numbers equal as numbers (sigs.k8s.io/yaml writes 1.0 as 1).
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// TestSameJSON keeps sameJSON from saying yes to everything.
func TestSameJSON(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"b":1, "a":[2]}`, `{"a":[2],"b":1}`, true},
		{`{"a":1.0}`, `{"a":1}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":"1"}`, `{"a":1}`, false},
		{`[1,2]`, `[2,1]`, false},
	} {
		if sameJSON([]byte(c.a), []byte(c.b)) != c.same {
			t.Errorf("sameJSON(%s, %s) != %v", c.a, c.b, c.same)
		}
	}
}
