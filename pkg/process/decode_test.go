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
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

func TestDecodeTemplate(t *testing.T) {
	cases := []struct {
		name    string
		input   string
		dialect Dialect
		wantErr string
	}{
		{"ours in JSON", `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"a"},
			"objectLabels":{"x":"y"},"parameters":[{"name":"P","type":"int","value":"1"}],"objects":[{"kind":"A"}],
			"transformersFrom":[{"name":"base"}]}`, Stencil, ""},
		{"ours in YAML", "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: a\n" +
			"objectLabels:\n  x: \"y\"\nparameters:\n- name: P\n  type: int\n  value: \"1\"\nobjects:\n- kind: A\n" +
			"transformersFrom:\n- name: base\n", Stencil, ""},
		{"OpenShift", `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"a"},
			"labels":{"x":"y"},"parameters":[{"name":"P","value":"1"}],"objects":[{"kind":"A"}]}`, OpenShift, ""},
		{"legacy v1 in YAML after a document marker, with a byte order mark", "\xef\xbb\xbf---\napiVersion: v1\nkind: Template\n" +
			"metadata:\n  name: a\nlabels:\n  x: \"y\"\nparameters:\n- name: P\n  value: \"1\"\nobjects:\n- kind: A\n", OpenShift, ""},
		{"not a template", `{"apiVersion":"v1","kind":"ConfigMap"}`, Stencil, `not a Template`},
		{"unknown version", `{"apiVersion":"templates.stencil.dev/v9","kind":"Template"}`, Stencil, `unsupported Template apiVersion`},
		{"empty", "  \n", Stencil, "empty"},
		{"bad JSON", `{"apiVersion":`, Stencil, "cannot read"},
		{"bad YAML", "a: [", Stencil, "cannot read the template as YAML"},
		{"case matters", `{"APIVERSION":"v1","Kind":"Template"}`, Stencil, "not a Template"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, dialect, err := DecodeTemplate([]byte(tc.input))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if dialect != tc.dialect {
				t.Errorf("dialect %v, want %v", dialect, tc.dialect)
			}
			if tmpl.Name != "a" || tmpl.ObjectLabels["x"] != "y" || len(tmpl.Parameters) != 1 ||
				tmpl.Parameters[0].Value != "1" || len(tmpl.Objects) != 1 {
				t.Errorf("decoded %+v", tmpl)
			}
			if dialect == Stencil && (len(tmpl.TransformersFrom) != 1 || tmpl.TransformersFrom[0].ImportMode != "prepend") {
				t.Errorf("defaults not applied: %+v", tmpl.TransformersFrom)
			}
		})
	}
}

// TestConcurrentExecute runs one plan from many goroutines, as the server's plan cache does;
// run with -race.
func TestConcurrentExecute(t *testing.T) {
	tmpl := syntheticTemplate(40)
	plan, errs := Compile(tmpl, Stencil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want, errs := plan.Execute(Request{Generator: NewSeededGenerator(5), Labels: map[string]string{"a": "b"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got, errs := plan.Execute(Request{Generator: NewSeededGenerator(5), Labels: map[string]string{"a": "b"}})
				if len(errs) > 0 {
					t.Error(errs)
					return
				}
				if string(ListBytes(got.Objects)) != string(ListBytes(want.Objects)) {
					t.Errorf("goroutine %d: output differs", g)
					return
				}
				if _, errs := plan.Execute(Request{}); len(errs) > 0 {
					t.Error(errs)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestListFollowsObjects checks that List reflects objects a caller replaced.
func TestListFollowsObjects(t *testing.T) {
	r, errs := processCase(t, stencilTemplate(`[]`, `[`+cm(`"a":"1"`)+`,`+cm(`"b":"2"`)+`]`), Request{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r.Objects = r.Objects[1:]
	if got, want := string(ListBytes(r.Objects)), `{"apiVersion":"v1","kind":"List","items":[`+cm(`"b":"2"`)+`]}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestListOfWrittenObjects checks that ListOf gives ListBytes' bytes, without a copy while the
// objects are the ones Execute wrote, and a copy of the objects as they are once any was
// dropped, replaced, added or changed in place.
func TestListOfWrittenObjects(t *testing.T) {
	objects := `[` + cm(`"a":"1"`) + `,` + cm(`"b":"${P}"`) + `,` + cm(`"c":"3"`) + `]`
	run := func() *Result {
		r, errs := processCase(t, stencilTemplate(`[{"name":"P","value":"2"}]`, objects), Request{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return r
	}
	r := run()
	list := r.ListOf(r.Objects)
	if want := ListBytes(r.Objects); string(list) != string(want) {
		t.Fatalf("got %s\nwant %s", list, want)
	}
	if &list[len(listPrefix)] != &r.Objects[0][0] {
		t.Error("the List of the written objects is a copy")
	}
	r.Objects[2][len(r.Objects[2])-3] = 'x' // in place: the List shares it
	if list, want := r.ListOf(r.Objects), ListBytes(r.Objects); string(list) != string(want) {
		t.Errorf("changed in place: got %s\nwant %s", list, want)
	}
	for name, change := range map[string]func(o []json.RawMessage) []json.RawMessage{
		"dropped":      func(o []json.RawMessage) []json.RawMessage { return o[1:] },
		"last dropped": func(o []json.RawMessage) []json.RawMessage { return o[:2] },
		"replaced":     func(o []json.RawMessage) []json.RawMessage { o[1] = json.RawMessage(cm(`"d":"4"`)); return o },
		"shortened":    func(o []json.RawMessage) []json.RawMessage { o[1] = o[1][:len(o[1])-1]; return o },
		"added":        func(o []json.RawMessage) []json.RawMessage { return append(o, json.RawMessage(`{}`)) },
		"swapped":      func(o []json.RawMessage) []json.RawMessage { o[0], o[2] = o[2], o[0]; return o },
		"none":         func(o []json.RawMessage) []json.RawMessage { return nil },
	} {
		r := run()
		objects := change(r.Objects)
		if got, want := r.ListOf(objects), ListBytes(objects); string(got) != string(want) {
			t.Errorf("%s: got %s\nwant %s", name, got, want)
		}
	}
}

// TestPlainQuoted checks the split's reading of apiVersion and kind against encoding/json's:
// what plainQuoted reads, encoding/json reads alike; the rest is left to encoding/json.
func TestPlainQuoted(t *testing.T) {
	for _, in := range []string{`"v1"`, `"template.openshift.io/v1"`, `""`, `"Template"`, `"a b~"`, `"\u0041"`, `"a\"b"`,
		`"tab	x"`, `"é"`, "\"\xff\"", `"a\\"`, `"`, `"a`, `a"`, `1`, `null`, `"a" `, `"\u007f"`, "\"\x7f\""} {
		got, plain := plainQuoted([]byte(in))
		if !plain {
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil || got != want {
			t.Errorf("%s: plainQuoted read %q, encoding/json %q (%v)", in, got, want, err)
		}
	}
	if got, plain := plainQuoted([]byte(`"template.openshift.io/v1"`)); !plain || got != "template.openshift.io/v1" {
		t.Errorf("an apiVersion is read as it stands: %q, %v", got, plain)
	}
}
