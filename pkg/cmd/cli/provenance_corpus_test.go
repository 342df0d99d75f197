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
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/provenance"
	"stencil.dev/stencil/pkg/redact"
)

// TestProvenanceCoverage processes every template of the OpenShift corpus and of the
// project's testdata with provenance and requires that every leaf field of every output
// object maps to a source: it is described (the map's fields are exactly the List's leaves),
// and it names the template field that wrote it (a field the file has, at a line and column),
// a label, or the step that made it. A field the template wrote literally (no parameter, no
// step) must hold the template's value, or the map points at the wrong place. It reports the
// figures.
func TestProvenanceCoverage(t *testing.T) {
	type file struct {
		name   string
		data   []byte
		params []string
	}
	var files []file
	for _, c := range readCorpus(t) {
		files = append(files, file{"corpus/" + c.name, c.template, append([]string{}, c.params...)})
	}
	for _, pattern := range []string{"../../process/testdata/*.*", "../../process/testdata/openshift-lenient/*.*",
		"../../../artifacts/examples/*.*", "../../../../shared/testdata/openshift/*.*"} {
		names, _ := filepath.Glob(pattern)
		for _, name := range names {
			if strings.HasSuffix(name, ".golden.json") || !(strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".yaml")) {
				continue
			}
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte("Template")) || bytes.Contains(data, []byte("kind: TemplateInstance")) {
				continue
			}
			files = append(files, file{name: name, data: data, params: requiredValues(t, data)})
		}
	}
	var templatesN, objects, fields, located, literal, engine, byStep, labels, rewrites int
	for _, f := range files {
		dir := t.TempDir()
		path := filepath.Join(dir, filepath.Base(f.name))
		if err := os.WriteFile(path, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		o := &ProcessOptions{Filenames: []string{path}, Local: true, Output: "json", IgnoreUnknownParameters: true,
			Params: f.params, streams: IOStreams{ErrOut: io.Discard}}
		req, err := o.request()
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		list, m, err := o.processLocal(req, true)
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		var out struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(list, &out); err != nil {
			t.Fatal(err)
		}
		read, err := process.ReadTemplateFile(path, f.data, true)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		tmpl := decodeNumbers(t, read.Positions().JSON())
		templatesN++
		if len(m.Objects) != len(out.Items) {
			t.Errorf("%s: %d objects described, %d output", f.name, len(m.Objects), len(out.Items))
			continue
		}
		for i, raw := range out.Items {
			objects++
			item := decodeNumbers(t, raw)
			leaves := leafPaths(item, nil, nil)
			o := m.Objects[i]
			if len(o.Fields) != len(leaves) {
				t.Errorf("%s: objects %d: %d fields described, %d leaves", f.name, i, len(o.Fields), len(leaves))
			}
			for j, fld := range o.Fields {
				fields++
				if j < len(leaves) && !samePath(fld.Path, leaves[j]) {
					t.Errorf("%s: items[%d]: field %d is %s, the leaf is %s", f.name, i, j, fld.Path, leaves[j])
				}
				switch fld.Source.Kind {
				case provenance.Template, provenance.ObjectLabels:
					if fld.Source.Kind == provenance.ObjectLabels {
						labels++
					}
					if fld.Source.Line == 0 || fld.Source.File != path {
						t.Errorf("%s: items[%d].%s: no place in the file for %+v", f.name, i, fld.Path, fld.Source)
						continue
					}
					located++
					if fld.Note != "" {
						rewrites++
					}
					if fld.Source.Kind == provenance.Template && len(fld.Parameters) == 0 && len(fld.Steps) == 0 {
						literal++
						want, ok := at(tmpl, fld.Source.Path)
						var got any
						if j < len(leaves) {
							got, _ = at(item, leaves[j])
						}
						if !ok || !sameJSON(want, got) && fld.Note == "" {
							t.Errorf("%s: items[%d].%s = %v, but %s holds %v", f.name, i, fld.Path, got, fld.Source.Path, want)
						}
					}
				case provenance.Step:
					if len(fld.Steps) == 0 {
						t.Errorf("%s: items[%d].%s: made by a step, but which?", f.name, i, fld.Path)
					}
					byStep++
				case provenance.RequestLabels:
					labels++
				case provenance.Engine:
					engine++
				default:
					t.Errorf("%s: items[%d].%s: no source", f.name, i, fld.Path)
				}
			}
		}
	}
	t.Logf("%d templates, %d objects, %d leaf fields: %d at a template place (%d literal, checked against the template; %d labels), "+
		"%d made by steps, %d by the engine's rules (and %d template values a rule rewrote); unmapped: 0 unless errors above", templatesN, objects, fields, located, literal, labels, byStep, engine, rewrites)
	if fields == 0 {
		t.Fatal("no fields")
	}
}

// requiredValues gives every parameter that is required and has no value one, as the corpus
// gives OpenShift, so that every template of the testdata processes.
func requiredValues(t *testing.T, data []byte) []string {
	tmpl, _, _, err := process.DecodeTemplateFile(data)
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for _, p := range tmpl.Parameters {
		if p.Required && p.Value == "" && p.Generate == "" {
			values = append(values, p.Name+"=v-"+strings.ToLower(p.Name))
		}
	}
	return values
}

func decodeNumbers(t *testing.T, data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// leafPaths lists the paths of the leaves of v in the order the map lists its fields: members
// by name, elements by index.
func leafPaths(v any, p positions.Path, out []string) []string {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out = leafPaths(x[k], p.Child(k), out)
			}
			return out
		}
	case []any:
		if len(x) > 0 {
			for i, e := range x {
				out = leafPaths(e, p.Elem(i), out)
			}
			return out
		}
	}
	return append(out, p.String())
}

// at returns the value at a field path.
func at(v any, path string) (any, bool) {
	p, err := positions.ParsePath(path)
	if err != nil {
		return nil, false
	}
	for _, s := range p {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[s.Key]; !ok {
				return nil, false
			}
		case []any:
			if !s.IsIndex || s.Index >= len(x) {
				return nil, false
			}
			v = x[s.Index]
		default:
			return nil, false
		}
	}
	return v, true
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// samePath says the map's path of a field is the leaf's path, a member name the map masks
// (it holds a secret parameter's value: redact.Hidden) standing for any one member.
func samePath(mapped, leaf string) bool {
	if !strings.Contains(mapped, redact.Masked) {
		return mapped == leaf
	}
	pattern := regexp.QuoteMeta(mapped)
	pattern = strings.ReplaceAll(pattern, `\[`+regexp.QuoteMeta(redact.Masked)+`\]`, `(\.[^.\[]+|\[[^\]]+\])`)
	pattern = strings.ReplaceAll(pattern, regexp.QuoteMeta(redact.Masked), `[^.\[]+`)
	return regexp.MustCompile("^" + pattern + "$").MatchString(leaf)
}
