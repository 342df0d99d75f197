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
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
)

// FuzzProcess feeds arbitrary templates (JSON or YAML) and parameter values ("KEY=VALUE"
// lines) through decoding, validation, compilation and execution. Nothing may panic, every
// output must be valid JSON, the fast and slow paths must agree, and a JSON template gives
// the same in every layout.
//
// Run it with: go test ./pkg/process -run '^$' -fuzz '^FuzzProcess$' -fuzztime 30s
func FuzzProcess(f *testing.F) {
	for _, tc := range goldenCases {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			f.Fatal(err)
		}
		var params []string
		for k, v := range tc.req.Parameters {
			params = append(params, k+"="+v)
		}
		f.Add(data, strings.Join(params, "\n"))
	}
	f.Add([]byte(stencilTemplate(`[{"name":"A","value":"null"},{"name":"B","type":"int"}]`,
		`[{"apiVersion":"v1","kind":"${K}","metadata":"${{A}}","x":["$((A))","$$(A)"],"${B}":1}]`)), "B=1\nK=Pod")
	f.Add([]byte(openShiftTemplateJSON(`[{"name":"A","value":"[1,{}]"}]`,
		`[{"apiVersion":"v1","kind":"Route","metadata":{"namespace":"x","labels":null},"a":"${{A}}","b":"a${{A}}${X}"}]`)), "A=null")

	// The same templates as oc get -o json writes them, and with other whitespace.
	mysql, err := os.ReadFile(filepath.Join("testdata", "mysql-persistent.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(layouttest.Uniform(mysql, "\r\n"), "MYSQL_USER=u")
	f.Add([]byte(openShiftTemplateJSON("[\n{\"name\":\"A\"}\n]", "[\n{\"kind\":\"Service\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"${A}\"},\n\"status\": {}\n}\t]")), "A=a")

	f.Fuzz(func(t *testing.T, template []byte, params string) {
		checkLayoutsProcessAlike(t, template, params)
		tmpl, dialect, err := DecodeTemplate(template)
		if err != nil {
			return
		}
		plan, errs := Compile(tmpl, dialect)
		if len(errs) > 0 {
			return
		}
		req := fuzzRequest(params)
		result, errs := plan.Execute(req)
		if len(errs) > 0 {
			return
		}
		checkValidOutput(t, result)
		checkDisposableAlike(t, tmpl, dialect, params, ListBytes(result.Objects))

		c := newCompiler(tmpl, dialect, nil)
		c.forceSlow = true
		c.compileText()
		c.plan.objects = c.compileObjects(nil, tmpl.Objects, "objects", true)
		if len(c.errs) > 0 {
			t.Fatalf("the slow path failed to compile: %v", c.errs)
		}
		slow, errs := c.plan.Execute(fuzzRequest(params))
		if len(errs) > 0 {
			t.Fatalf("the slow path failed where the fast one did not: %v", errs)
		}
		if string(ListBytes(slow.Objects)) != string(ListBytes(result.Objects)) {
			t.Fatalf("fast and slow paths differ:\nfast %s\nslow %s", ListBytes(result.Objects), ListBytes(slow.Objects))
		}
	})
}

// checkDisposableAlike requires of a disposable plan of tmpl the output of a plan of its own
// (want), which stays so once the plan is disposed of and its memory reused.
func checkDisposableAlike(t *testing.T, tmpl *templates.Template, dialect Dialect, params string, want []byte) {
	t.Helper()
	plan, errs := CompileDisposable(tmpl, dialect)
	if len(errs) > 0 {
		t.Fatalf("a disposable plan did not compile: %v", errs)
	}
	result, errs := plan.Execute(fuzzRequest(params))
	plan.Dispose()
	if len(errs) > 0 {
		t.Fatalf("a disposable plan failed: %v", errs)
	}
	got := ListBytes(result.Objects)
	again, errs := CompileDisposable(tmpl, dialect)
	if len(errs) == 0 {
		again.Execute(fuzzRequest(params))
		again.Dispose()
	}
	if !bytes.Equal(got, want) || !bytes.Equal(ListBytes(result.Objects), want) {
		t.Fatalf("a disposable plan gives\n%s\nthen, its memory reused,\n%s\nwant\n%s", got, ListBytes(result.Objects), want)
	}
}

// checkLayoutsProcessAlike processes a JSON template in other layouts (whitespace between
// every two tokens) and requires what its compact form gives: the same objects, or errors
// at the same fields.
func checkLayoutsProcessAlike(t *testing.T, template []byte, params string) {
	t.Helper()
	if !json.Valid(template) {
		return
	}
	want := processOutcome(layouttest.Uniform(template, ""), params)
	seed := layouttest.Seed(template)
	for _, l := range [][]byte{template, layouttest.Mixed(template, seed),
		layouttest.Uniform(template, layouttest.Separators[seed%uint64(len(layouttest.Separators))])} {
		if got := processOutcome(l, params); got != want {
			t.Fatalf("the template laid out as\n%q\ngives\n%s\nits compact form gives\n%s", l, got, want)
		}
	}
}

// processOutcome sums up what processing a template gives: its objects, message and
// configs compacted, or the fields of its errors (their wording may quote offsets).
func processOutcome(template []byte, params string) string {
	tmpl, dialect, err := DecodeTemplate(template)
	if err != nil {
		return "refused by the decoder"
	}
	// Disposable, as a template given in a request is: the layouts reuse each other's memory.
	plan, errs := CompileDisposable(tmpl, dialect)
	if len(errs) > 0 {
		return "compile errors: " + errorFields(errs)
	}
	defer plan.Dispose()
	result, errs := plan.Execute(fuzzRequest(params))
	if len(errs) > 0 {
		return "execute errors: " + errorFields(errs)
	}
	var b strings.Builder
	b.Write(ListBytes(result.Objects))
	b.WriteString("\nmessage: " + result.Message)
	for _, raw := range slices.Concat(result.Generators, result.Transformers, result.TransformerOverrides) {
		b.WriteString("\nconfig: ")
		b.Write(layouttest.Uniform(raw, ""))
	}
	return b.String()
}

func errorFields(errs field.ErrorList) string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+" "+string(e.Type))
	}
	return strings.Join(out, ", ")
}

// fuzzRequest reads KEY=VALUE lines into a request; an odd length adds labels.
func fuzzRequest(params string) Request {
	req := Request{Parameters: map[string]string{}, Generator: NewSeededGenerator(1), IgnoreUnknownParameters: true}
	for _, line := range strings.Split(params, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			req.Parameters[k] = v
		}
	}
	if len(params)%2 == 1 {
		req.Labels = map[string]string{"fuzz": "yes"}
	}
	return req
}

func checkValidOutput(t *testing.T, r *Result) {
	t.Helper()
	for i, o := range r.Objects {
		if !jsontext.Value(o).IsValid() || jsontext.Value(o).Kind() != '{' {
			t.Fatalf("object %d is not a valid JSON object: %s", i, o)
		}
		// What the CLI writes unchecked (jsonbytes.Compacted) and the transformers decode
		// without validating (jsonbytes.DecodeObjects) must be compact too.
		if compact, err := jsonbytes.Compact(o); err != nil || !bytes.Equal(compact, o) {
			t.Fatalf("object %d is not compact JSON (%v): %s", i, err, o)
		}
	}
	for _, o := range append(append([]json.RawMessage(nil), r.Transformers...), r.TransformerOverrides...) {
		if !jsontext.Value(o).IsValid() {
			t.Fatalf("transformer config is not valid JSON: %s", o)
		}
	}
	if !jsontext.Value(ListBytes(r.Objects)).IsValid() {
		t.Fatalf("the list is not valid JSON: %s", ListBytes(r.Objects))
	}
}
