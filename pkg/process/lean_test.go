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
	"reflect"
	"strconv"
	"testing"

	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
)

// leanSeeds are parts of templates: the lean path must read some of them and leave the others
// to the complete decoders.
var leanSeeds = []string{
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"a","creationTimestamp":null,"annotations":{"description":"x\ny","tags":"a,b"}},"message":"${A} é\u00e9","labels":{"app":"a"}}`,
	`{"metadata":{"labels":{"a":"1"},"labels":{"b":"2"},"annotations":{}},"labels":null,"message":null}`,
	`{"metadata":null,"labels":{"a":"1","a":"2"}}`, `{"metadata":{"name":"a","name":"b"}}`,
	`{"metadata":{"creationTimestamp":"2024-01-01T00:00:00Z"}}`, `{"metadata":{"uid":"x"}}`, `{"message":1}`,
	`{"labels":{"a":null}}`, `{"labels":{"a":1}}`, "{\"message\":\"bad\xffutf8\"}", `{"message":"\ud800"}`, `{"Message":"case"}`,
	`{"message":"a",}`, `{"message":"a"} x`, `{"message":"a\u0000b\/c"}`, `{"labels":[]}`, "{\"message\":\"tab\tinside\"}",
	` { "kind" : "Template" , "metadata" : { "namespace" : "n" } } `,
	`[]`, `null`, ` [ ] `, `[{"name":"A","value":"1","required":true,"type":"int","generate":"expression","from":"[a-z]{3}"}]`,
	`[{"name":"A","name":"B","required":null,"secret":false,"multiline":true,"pattern":"^a$","displayName":"d","description":"x\ny"}]`,
	`[{"name":null}]`, `[null]`, `[{"n\u0061me":"escaped"}]`, `[{"name":"A","enum":["a"]}]`, `[{"minimum":"1"}]`,
	`[{"name":1}]`, `[{"required":"true"}]`, `[{"name":"A"},]`, `[{"Name":"case"}]`, `[{}]`, `[{},{}]`, `[1]`, `{}`,
}

// leanLayoutSeeds are template parts as oc get -o json and people lay them out.
var leanLayoutSeeds = []string{
	"{\n    \"metadata\": {\n        \"name\": \"a\",\n        \"annotations\": {}\n    },\n    \"labels\": {}\n}\n",
	"[\r\n\t{\r\n\t\t\"name\": \"A\",\r\n\t\t\"required\": true\r\n\t}\r\n]\r\n",
	"{ \"message\" : \"m\" , \"labels\" : { \"a\" : \"1\" } }", "[ ]\n", "[{}\n]", "{\"metadata\":{}\t,\"message\":null\r}",
}

// TestLeanReadsWhatTheCompleteDecodersRead checks that whatever the lean path reads, it reads
// as the typed decoders do, and that it does read the usual shapes: the parts of the shared
// templates and of the first seeds.
func TestLeanReadsWhatTheCompleteDecodersRead(t *testing.T) {
	for _, in := range append(leanSeeds, leanLayoutSeeds...) {
		checkLeanAgrees(t, []byte(in))
	}
	for _, in := range []string{leanSeeds[0], leanSeeds[1], leanSeeds[2], `[{"name":"A","required":true,"generate":"expression","from":"[a-z]{3}"}]`, `[]`,
		`[null,{"name":"A","enum":["a",null],"minimum":1,"maximum":"2","maxLength":3,"unknown":[{"x":1}]}]`,
		`[{"items":{"type":"int"},"maxItems":"2"},{"properties":{"a":{"type":"string"}}},{"enum":["a"],"enum":[null]}]`,
		string(constrainedParameters(20))} {
		_, paramsOK := leanParameters([]byte(in), false)
		restOK := leanOpenShift([]byte(in), &openshift.Template{}, false)
		if !paramsOK && !restOK {
			t.Errorf("%s: the lean path should read this", in)
		}
	}
	for name, data := range requestTemplates(t) {
		if name == "cincinnati-deployment.yaml" {
			continue // YAML, read the same way once converted
		}
		top, err := splitTemplate(data)
		if err != nil {
			t.Fatal(err)
		}
		if !leanOpenShift(top.rest, &openshift.Template{}, true) {
			t.Errorf("%s: the lean path should read the template's metadata, labels and message", name)
		}
	}
	if _, ok := leanParameters(mysqlParameters(t), true); !ok {
		t.Errorf("the lean path should read mysql-persistent's parameters")
	}
}

// FuzzLean checks the lean path against the typed decoders on arbitrary bytes: the lean
// reader of a Parameter, generated from the API's type, reads what the API's decoder reads.
//
// Run it with: go test ./pkg/process -run '^$' -fuzz '^FuzzLean$' -fuzztime 30s
func FuzzLean(f *testing.F) {
	for _, seeds := range [][]string{leanSeeds, leanLayoutSeeds, parameterSeeds, numericSeeds} {
		for _, in := range seeds {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(checkLeanAgrees)
}

// checkLeanAgrees checks the lean path on in against the typed decoders and, when in is
// JSON, on every other layout of it against in: what it reads of one layout, it reads of
// every layout, the same.
func checkLeanAgrees(t *testing.T, in []byte) {
	checkDecodersAgree(t, in)
	checkLeanOnce(t, in)
	checkOpenShiftDecodeAgrees(t, in)
	if !json.Valid(in) {
		return
	}
	layouts := layouttest.Layouts(in)
	checkParameterLayouts(t, in, layouts, stencilParameter)
	checkParameterLayouts(t, in, layouts, openShiftParameter)
	for _, strict := range []bool{false, true} {
		var tpl openshift.Template
		tplOK := leanOpenShift(in, &tpl, strict)
		for _, l := range layouts {
			checkLeanOnce(t, l)
			var tplAgain openshift.Template
			if ok := leanOpenShift(l, &tplAgain, strict); ok != tplOK || !reflect.DeepEqual(tplAgain, tpl) {
				t.Fatalf("%q (strict %v): lean template %v %+v, of its layout %q: %v %+v", in, strict, tplOK, tpl, l, ok, tplAgain)
			}
		}
	}
}

// checkLeanOnce checks the lean readers on in against the API's decoders: what the lean path
// reads, the typed decoder reads the same; and what a strict lean reader reads, a strict
// decoder (the API server's) reads the same with nothing to say about it.
func checkLeanOnce(t *testing.T, in []byte) {
	checkLeanParametersOnce(t, in, stencilDialect)
	checkLeanParametersOnce(t, in, openShiftDialect)
	var strictGot openshift.Template
	if leanOpenShift(in, &strictGot, true) {
		var want openshift.Template
		if strictErrs, err := kjson.UnmarshalStrict(in, &want); err != nil || len(strictErrs) > 0 {
			t.Fatalf("%s: the strict lean path read a template a strict decoder refuses or warns of: %v %v", in, err, strictErrs)
		}
		if !reflect.DeepEqual(strictGot, want) {
			t.Fatalf("%s: strict lean template %+v, strict typed decoder %+v", in, strictGot, want)
		}
	}
	var got openshift.Template
	if leanOpenShift(in, &got, false) {
		var want openshift.Template
		if err := kjson.UnmarshalCaseSensitivePreserveInts(in, &want); err != nil {
			t.Fatalf("%s: the lean path read a template the typed decoder refuses: %v", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: lean template %+v, typed decoder %+v", in, got, want)
		}
	}
}

// checkParameterLayouts checks that the lean reader of member's dialect, strict and not, reads
// every layout of in (layouts) as it reads in.
func checkParameterLayouts[P any](t *testing.T, in []byte, layouts [][]byte, member parameterReader[P]) {
	for _, strict := range []bool{false, true} {
		params, paramsOK := readParameters(&leanReader{b: in, strict: strict}, member)
		for _, l := range layouts {
			again, ok := readParameters(&leanReader{b: l, strict: strict}, member)
			if ok != paramsOK || !reflect.DeepEqual(again, params) {
				t.Fatalf("%q (strict %v): lean parameters %v %+v, of its layout %q: %v %+v", in, strict, paramsOK, params, l, ok, again)
			}
		}
	}
}

// leanDialect is the lean reader of a dialect's parameters and how the API reads what it
// reads: the API's decoder reads the dialect's type W, which the API's conversion makes the
// P the reader reads into (ours: W itself; OpenShift's: the internal Parameter, by
// openshift.ToInternal).
type leanDialect[W, P any] struct {
	member  parameterReader[P]
	convert func([]W) []P
}

var (
	stencilDialect = leanDialect[v1alpha1.Parameter, v1alpha1.Parameter]{stencilParameter,
		func(params []v1alpha1.Parameter) []v1alpha1.Parameter { return params }}
	openShiftDialect = leanDialect[openshift.Parameter, templates.Parameter]{openShiftParameter, openShiftToInternal}
)

// openShiftToInternal is what openshift.ToInternal makes of OpenShift's parameters.
func openShiftToInternal(params []openshift.Parameter) []templates.Parameter {
	var out templates.Template
	if err := openshift.ToInternal(&openshift.Template{Parameters: params}, &out); err != nil {
		panic(err) // only the annotation, absent here, can be refused
	}
	return out.Parameters
}

// checkLeanParametersOnce checks the lean reader of d's dialect on in against that dialect's
// typed decoder and conversion: what the lean reader reads, the decoder reads and the
// conversion makes the same; what a strict lean reader reads, a strict decoder reads the same
// with nothing to say about it.
func checkLeanParametersOnce[W, P any](t *testing.T, in []byte, d leanDialect[W, P]) {
	if got, ok := readParameters(&leanReader{b: in, strict: true}, d.member); ok {
		var want []W
		if strictErrs, err := kjson.UnmarshalStrict(in, &want); err != nil || len(strictErrs) > 0 {
			t.Fatalf("%s: the strict lean path read %T a strict decoder refuses or warns of: %v %v", in, want, err, strictErrs)
		}
		if converted := d.convert(want); !reflect.DeepEqual(got, converted) {
			t.Fatalf("%s: strict lean parameters %+v, strict typed decoder %+v", in, got, converted)
		}
	}
	if got, ok := readParameters(&leanReader{b: in}, d.member); ok {
		var want []W
		if err := kjson.UnmarshalCaseSensitivePreserveInts(in, &want); err != nil {
			t.Fatalf("%s: the lean path read %T the typed decoder refuses: %v", in, want, err)
		}
		if converted := d.convert(want); !reflect.DeepEqual(got, converted) {
			t.Fatalf("%s: lean parameters %+v, typed decoder %+v", in, got, converted)
		}
	}
}

// leanParameters reads a parameters array into the API's type with the lean reader (strict or
// not), as the tests ask it.
func leanParameters(data []byte, strict bool) (params []v1alpha1.Parameter, ok bool) {
	return readParameters(&leanReader{b: data, strict: strict}, stencilParameter)
}

// checkOpenShiftDecodeAgrees checks the engine's decoding of OpenShift templates, whose lean
// path reads the parameters straight into the internal type, against the API's typed
// decoders and openshift.ToInternal (decodeOpenShiftTyped), on in as a template and as its
// parameters, with and without Stencil's fields in the annotation that rewrites them (by
// position and by name): the same template, or the same error.
func checkOpenShiftDecodeAgrees(t *testing.T, in []byte) {
	const head = `{"apiVersion":"template.openshift.io/v1","kind":"Template","objects":[{"kind":"A"}],`
	for _, doc := range [][]byte{
		in,
		[]byte(head + `"parameters":` + string(in) + `}`),
		[]byte(head + `"metadata":{"annotations":{"` + openshift.StencilFieldsAnnotation + `":` + stencilFieldsOfParameters + `}},"parameters":` + string(in) + `}`),
	} {
		top, err := splitTemplate(doc)
		if err != nil {
			continue
		}
		got, gotErr := decodeOpenShift(top)
		want, wantErr := decodeOpenShiftTyped(top)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, the typed decoders' %v", doc, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decoded %+v, the typed decoders %+v", doc, got, want)
		}
	}
}

// stencilFieldsOfParameters is the JSON string of an annotation of Stencil's fields that gives
// parameters types and constraints: the first by position, the others by name.
var stencilFieldsOfParameters = strconv.Quote(`{"dialect":"OpenShift","parameters":[{"name":"A","type":"int","minimum":"1"},` +
	`{"name":"B","enum":["x","y"],"secret":true},{"name":"é","type":"json","items":{"type":"string"}}]}`)
