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

package integration

import (
	"fmt"
	"strings"
)

// The namespace and the fixtures that the hostile requests update and process.
const (
	hostileNS       = "hostile"
	fixtureTemplate = "fixture"
	fixtureCT       = "fixture-ct"
)

// Expected answers that are a class rather than one code.
const (
	any2xx = 2
	any4xx = 4
)

// hostileCase is one request of the hostile table and what it must get.
type hostileCase struct {
	name        string
	method      string
	path        string
	contentType string
	body        []byte
	// want is a status code, or any2xx / any4xx where only the class matters.
	want int
	// libraryPanic marks the cases that make a library panic, which the server must turn into
	// a 4xx; the test counts them against the recovered panics in the log.
	libraryPanic bool
}

// target is one endpoint and content type. Its body holds a payload, a JSON value (or a YAML
// one for YAML targets), at a place where the endpoint reads it.
type target struct {
	name        string
	method      string
	path        string
	contentType string
	yaml        bool
	// body returns the body with payload in it; name is the object's name where it has one.
	body func(name, payload string) string
}

// objectWith is a ConfigMap whose data.x is payload, in JSON (or YAML flow style, which
// accepts the same text).
func objectWith(payload string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":` + payload + `}}`
}

func templateJSON(name, payload string) string {
	return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"` + name + `"},` +
		`"parameters":[{"name":"P","value":"v"}],"objects":[` + objectWith(payload) + `]}`
}

func templateYAML(name, payload string) string {
	return "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: " + name +
		"\nparameters:\n- {name: P, value: v}\nobjects:\n- " + objectWith(payload) + "\n"
}

func customTransformJSON(name, payload string) string {
	return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"CustomTransform","metadata":{"name":"` + name +
		`","annotations":{"a":` + payload + `}},"spec":{"resource":"services","remove":["$.spec.clusterIP"]}}`
}

func customTransformYAML(name, payload string) string {
	return "apiVersion: templates.stencil.dev/v1alpha1\nkind: CustomTransform\nmetadata:\n  name: " + name +
		"\n  annotations:\n    a: " + payload + "\nspec:\n  resource: services\n  remove: [$.spec.clusterIP]\n"
}

// targets are every endpoint of the API with every content type it reads.
func targets() []target {
	group := "/apis/templates.stencil.dev/v1alpha1/"
	fixture := apiPath(hostileNS, "templates/"+fixtureTemplate)
	ct := group + "customtransforms/" + fixtureCT
	return []target{
		{"create template JSON", "POST", apiPath(hostileNS, "templates"), ctJSON, false, templateJSON},
		{"create template YAML", "POST", apiPath(hostileNS, "templates"), ctYAML, true, templateYAML},
		{"replace template JSON", "PUT", fixture, ctJSON, false, func(_, p string) string { return templateJSON(fixtureTemplate, p) }},
		{"replace template YAML", "PUT", fixture, ctYAML, true, func(_, p string) string { return templateYAML(fixtureTemplate, p) }},
		{"merge patch template", "PATCH", fixture, ctMergePatch, false, func(_, p string) string { return `{"objects":[` + objectWith(p) + `]}` }},
		{"strategic merge patch template", "PATCH", fixture, ctStrategic, false, func(_, p string) string { return `{"objects":[` + objectWith(p) + `]}` }},
		{"JSON patch template", "PATCH", fixture, ctJSONPatch, false, func(_, p string) string {
			return `[{"op":"replace","path":"/objects","value":[` + objectWith(p) + `]}]`
		}},
		{"apply template", "PATCH", fixture + "?fieldManager=hostile&force=true", ctApply, true, func(_, p string) string { return templateYAML(fixtureTemplate, p) }},
		{"process stored JSON", "POST", fixture + "/processed", ctJSON, false, func(_, p string) string { return `{"parameters":{"P":` + p + `}}` }},
		{"process stored YAML", "POST", fixture + "/processed", ctYAML, true, func(_, p string) string { return "parameters:\n  P: " + p + "\n" }},
		{"processedtemplates JSON", "POST", apiPath(hostileNS, "processedtemplates"), ctJSON, false, templateJSON},
		{"processedtemplates YAML", "POST", apiPath(hostileNS, "processedtemplates"), ctYAML, true, templateYAML},
		{"create CustomTransform JSON", "POST", group + "customtransforms", ctJSON, false, customTransformJSON},
		{"create CustomTransform YAML", "POST", group + "customtransforms", ctYAML, true, customTransformYAML},
		{"replace CustomTransform JSON", "PUT", ct, ctJSON, false, func(_, p string) string { return customTransformJSON(fixtureCT, p) }},
		{"merge patch CustomTransform", "PATCH", ct, ctMergePatch, false, func(_, p string) string { return `{"metadata":{"annotations":{"a":` + p + `}}}` }},
		{"strategic merge patch CustomTransform", "PATCH", ct, ctStrategic, false, func(_, p string) string { return `{"metadata":{"annotations":{"a":` + p + `}}}` }},
		{"apply CustomTransform", "PATCH", ct + "?fieldManager=hostile&force=true", ctApply, true, func(_, p string) string { return customTransformYAML(fixtureCT, p) }},
	}
}

// yamlAliasBomb is a billion laughs in YAML flow style: nine levels of nine aliases to the
// level below, 387 million strings once expanded, in 700 bytes.
func yamlAliasBomb() string {
	parts := []string{"&a [lol,lol,lol,lol,lol,lol,lol,lol,lol]"}
	prev := "a"
	for _, anchor := range strings.Split("bcdefghi", "") {
		parts = append(parts, "&"+anchor+" ["+strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",")+"]")
		prev = anchor
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// payloadClass is one kind of malformed payload, sent to every target it applies to.
type payloadClass struct {
	name    string
	json    string // the payload for JSON targets; "" skips them
	yaml    string // the payload for YAML targets; "" skips them
	want    int    // what every target must answer, unless wantFor says otherwise
	wantFor map[string]int
	// breakBody cuts the body short instead of using a payload.
	breakBody bool
}

// payloadClasses are the malformed inputs that every endpoint must refuse without harm.
func payloadClasses() []payloadClass {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	huge := `"` + strings.Repeat("x", 3500<<10) + `"`
	number := "1e400"
	return []payloadClass{
		// The API server's body limit is 3 MiB.
		{name: "a 3.5 MB body", json: huge, yaml: huge, want: 413},
		// The JSON and YAML readers stop at 10,000 levels.
		{name: "100,000 levels of nesting", json: deep, yaml: deep, want: 400},
		{name: "a YAML alias bomb", yaml: yamlAliasBomb(), want: 400},
		{name: "a body cut short", json: `"v"`, breakBody: true, want: 400},
		{name: "a YAML syntax error", yaml: "[v, {", want: 400},
		// JSON carries such a number (finding 3); YAML reads it as the string "1e400", as kubectl.
		{name: "a number beyond float64", json: number, yaml: number, want: 400, wantFor: map[string]int{
			"create template YAML": 201, "replace template YAML": 200, "apply template": 200,
			"process stored YAML": 201, "processedtemplates YAML": 201,
			"create CustomTransform YAML": 201, "apply CustomTransform": 200,
			// The JSON patch handler reads numbers as float64 and refuses it as the patch's fault.
			"JSON patch template": 400,
		}},
		// The YAML reader refuses invalid UTF-8; the JSON reader turns it into U+FFFD.
		{name: "invalid UTF-8", yaml: "\"v\xff\xfe\"", want: 400},
	}
}

// generatedCases sends every payload class to every target it applies to.
func generatedCases() []hostileCase {
	var cases []hostileCase
	for c, class := range payloadClasses() {
		for i, tg := range targets() {
			payload := class.json
			if tg.yaml {
				payload = class.yaml
			}
			if payload == "" {
				continue
			}
			body := tg.body(fmt.Sprintf("gen-%d-%d", c, i), payload)
			if class.breakBody {
				body = body[:len(body)*2/3]
			}
			want := class.want
			if w, ok := class.wantFor[tg.name]; ok {
				want = w
			}
			cases = append(cases, hostileCase{
				name: class.name + " to " + tg.name, method: tg.method, path: tg.path,
				contentType: tg.contentType, body: []byte(body), want: want,
			})
		}
	}
	return cases
}
