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
	"strings"
	"testing"
)

// exprTemplate is a template with a TLS switch, a list of zones and the given objects.
func exprTemplate(objects string) string {
	return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
"parameters":[{"name":"TLS","type":"bool","value":"false"},{"name":"ZONES","type":"json","value":"[\"eu-1\",\"eu-2\",\"us-1\"]","items":{"type":"string","maxLength":10},"maxItems":16},
 {"name":"APP","value":"web"},{"name":"PORTS","type":"json","value":"[{\"name\":\"http\",\"port\":80}]"}],
"objectLabels":{"app":"${APP}"},
"objects":` + objects + `}`
}

func TestConditionalAndRepeatedObjects(t *testing.T) {
	given := func(kv ...string) Request {
		r := Request{Parameters: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			r.Parameters[kv[i]] = kv[i+1]
		}
		return r
	}
	secret := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls","annotations":{"templates.stencil.dev/include-when":"params.TLS"}}}`
	cases := []struct {
		name    string
		objects string
		req     Request
		want    string
	}{
		{"include-when false drops the object", `[` + secret + `,{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}]`, Request{},
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","labels":{"app":"web"}}}`},
		{"include-when true keeps it, without the annotation", `[` + secret + `]`, given("TLS", "true"),
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls","labels":{"app":"web"}}}`},
		{"other annotations stay", `[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls","annotations":{"a":"1","templates.stencil.dev/include-when":"params.TLS || params.APP == 'web'","b":"${APP}"}}}]`,
			Request{}, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls","annotations":{"a":"1","b":"web"},"labels":{"app":"web"}}}`},
		{"for-each over three zones", `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${APP}-${ITEM}","annotations":{"templates.stencil.dev/for-each":"params.ZONES"}},"data":{"zone":"${ITEM}","index":"${INDEX}","n":"${{INDEX}}"}}]`,
			Request{}, strings.Join([]string{
				`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-eu-1","labels":{"app":"web"}},"data":{"zone":"eu-1","index":"0","n":0}}`,
				`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-eu-2","labels":{"app":"web"}},"data":{"zone":"eu-2","index":"1","n":1}}`,
				`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-us-1","labels":{"app":"web"}},"data":{"zone":"us-1","index":"2","n":2}}`}, "\n")},
		{"for-each of objects, ${{ITEM}}", `[{"apiVersion":"v1","kind":"Service","metadata":{"name":"p-${INDEX}","annotations":{"templates.stencil.dev/for-each":"params.PORTS"}},"spec":{"ports":["${{ITEM}}"],"name":"${ITEM}"}}]`,
			Request{}, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"p-0","labels":{"app":"web"}},"spec":{"ports":[{"name":"http","port":80}],"name":"{\"name\":\"http\",\"port\":80}"}}`},
		{"for-each of a CEL list, filtered, with include-when", `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${ITEM}","annotations":{"templates.stencil.dev/for-each":"params.ZONES.filter(z, z.startsWith('eu'))","templates.stencil.dev/include-when":"!params.TLS"}}}]`,
			Request{}, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"eu-1","labels":{"app":"web"}}}` + "\n" + `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"eu-2","labels":{"app":"web"}}}`},
		{"for-each of an empty list", `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${ITEM}","annotations":{"templates.stencil.dev/for-each":"params.ZONES"}}}]`,
			given("ZONES", "[]"), ``},
		{"the lifecycle annotation stays on the object", `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep","annotations":{"templates.stencil.dev/lifecycle":"retain"}}},{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","annotations":{"templates.stencil.dev/lifecycle":"${APP}","templates.stencil.dev/include-when":"true"}}}]`,
			Request{}, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep","annotations":{"templates.stencil.dev/lifecycle":"retain"},"labels":{"app":"web"}}}` + "\n" +
				`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","annotations":{"templates.stencil.dev/lifecycle":"web"},"labels":{"app":"web"}}}`},
		{"a string element that looks like a number stays a string", `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c${INDEX}","annotations":{"templates.stencil.dev/for-each":"['1']"}},"data":{"v":"${{ITEM}}"}}]`,
			Request{}, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c0","labels":{"app":"web"}},"data":{"v":"1"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, errs := processCase(t, exprTemplate(tc.objects), tc.req)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if got := objectsOf(r); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestObjectExpressionsRefused checks the errors of conditional and repeated objects, at
// create and when processing.
func TestObjectExpressionsRefused(t *testing.T) {
	cases := []struct {
		name    string
		objects string
		req     Request
		want    []string
	}{
		{"does not compile", `[{"kind":"A","metadata":{"name":"a","annotations":{"templates.stencil.dev/include-when":"params.TLS &&"}}}]`, Request{},
			[]string{"objects[0].metadata.annotations[templates.stencil.dev/include-when]: Invalid value", "compilation failed"}},
		{"not a bool", `[{"kind":"A","metadata":{"name":"a","annotations":{"templates.stencil.dev/include-when":"params.APP"}}}]`, Request{},
			[]string{"must evaluate to a bool, not string"}},
		{"not a list", `[{"kind":"A","metadata":{"name":"${ITEM}","annotations":{"templates.stencil.dev/for-each":"params.APP"}}}]`, Request{},
			[]string{"objects[0].metadata.annotations[templates.stencil.dev/for-each]: Invalid value", "must evaluate to a list, not string"}},
		{"not a string", `[{"kind":"A","metadata":{"name":"a","annotations":{"templates.stencil.dev/include-when":true}}}]`, Request{},
			[]string{"must be a string holding a CEL expression"}},
		{"a name that does not follow the element", `[{"kind":"A","metadata":{"name":"same","annotations":{"templates.stencil.dev/for-each":"params.ZONES"}}}]`, Request{},
			[]string{`objects[0].metadata.name: Invalid value: "same": the name of a for-each object must refer to ${ITEM} or ${INDEX}`}},
		{"ITEM outside a repeated object", `[{"apiVersion":"v1","kind":"A","metadata":{"name":"${ITEM}"}}]`, Request{},
			[]string{"ITEM is not a declared parameter"}},
		{"not evaluable when processing", `[{"apiVersion":"v1","kind":"A","metadata":{"name":"${ITEM}","annotations":{"templates.stencil.dev/for-each":"[params.PORTS[0].name]"}}}]`,
			Request{Parameters: map[string]string{"PORTS": `[{"port":1}]`}},
			[]string{"objects[0].metadata.annotations[templates.stencil.dev/for-each]: Invalid value", "could not be evaluated: no such key: name"}},
		{"a lifecycle that is neither retain nor delete", `[{"kind":"A","metadata":{"name":"a","annotations":{"templates.stencil.dev/lifecycle":"keep"}}},{"kind":"B","metadata":{"name":"b","annotations":{"templates.stencil.dev/lifecycle":1}}}]`, Request{},
			[]string{`objects[0].metadata.annotations[templates.stencil.dev/lifecycle]: Unsupported value: "keep": supported values: "delete", "retain"`,
				`objects[1].metadata.annotations[templates.stencil.dev/lifecycle]: Invalid value: "1": must be a string: delete or retain`}},
		{"every problem at once", `[{"kind":"A","metadata":{"name":"x","annotations":{"templates.stencil.dev/for-each":"params.ZONES"}}},{"kind":"B","metadata":{"name":"b","annotations":{"templates.stencil.dev/include-when":"1"}}}]`,
			Request{}, []string{"objects[0].metadata.name", "objects[1].metadata.annotations[templates.stencil.dev/include-when]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := processCase(t, exprTemplate(tc.objects), tc.req)
			errorsContain(t, errs, tc.want...)
		})
	}

	_, errs := processCase(t, `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
"parameters":[{"name":"ITEM"}],"objects":[{"kind":"A","metadata":{"name":"${ITEM}","annotations":{"templates.stencil.dev/for-each":"[1]"}}}]}`, Request{})
	errorsContain(t, errs, `parameters[0].name: Invalid value: "ITEM": names the element of the template's for-each objects`)
}

// TestOpenShiftKeepsTheAnnotations checks that an OpenShift template's objects are processed
// as OpenShift processes them: the annotations are no expressions there, and stay.
func TestOpenShiftKeepsTheAnnotations(t *testing.T) {
	obj := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls","annotations":{"templates.stencil.dev/include-when":"params.TLS","templates.stencil.dev/for-each":"x"}}}`
	r, errs := processCase(t, openShiftTemplateJSON(`[{"name":"TLS","value":"false"}]`, "["+obj+"]"), Request{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := objectsOf(r); got != obj {
		t.Errorf("got %s, want %s", got, obj)
	}
}
