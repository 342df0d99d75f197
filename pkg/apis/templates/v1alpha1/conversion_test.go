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

package v1alpha1_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/install"
)

// TestDecodingRefuses checks what the conversion to the internal types refuses, so that the
// API server refuses it while it decodes the body, before its field manager reads it: numbers
// no float64 holds, maps and keyed lists beyond templates.MaxEntries, and a Template's lists of
// objects and configs beyond templates.MaxObjects.
func TestDecodingRefuses(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	decoder := serializer.NewCodecFactory(scheme).UniversalDecoder()
	entries := func(n int, format string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(format, i)
		}
		return strings.Join(parts, ",")
	}
	const template = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"%s}%s}`
	const params = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"TemplateParameters"%s}`
	const ct = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"CustomTransform","metadata":{"name":"c"%s},"spec":{"resource":"services","remove":["$.a"]}}`
	max, maxObjects := templates.MaxEntries, templates.MaxObjects
	cases := []struct {
		name, body, want string
	}{
		{"a template at the limits", fmt.Sprintf(template, `,"labels":{`+entries(max, `"k%d":""`)+`}`, `,"parameters":[`+entries(max, `{"name":"P%d"}`)+`],"objects":[{"n":1e308}]`), ""},
		{"labels", fmt.Sprintf(template, `,"labels":{`+entries(max+1, `"k%d":""`)+`}`, ""), "metadata.labels: Too many: 4097"},
		{"annotations", fmt.Sprintf(template, `,"annotations":{`+entries(max+1, `"k%d":""`)+`}`, ""), "metadata.annotations: Too many"},
		{"parameters", fmt.Sprintf(template, "", `,"parameters":[`+entries(max+1, `{"name":"P%d"}`)+`]`), "parameters: Too many"},
		{"object labels", fmt.Sprintf(template, "", `,"objectLabels":{`+entries(max+1, `"k%d":""`)+`}`), "objectLabels: Too many"},
		{"a number", fmt.Sprintf(template, "", `,"objects":[{"n":1e400}]`), "objects[0].n: Invalid value"},
		{"objects at the limit", fmt.Sprintf(template, "", `,"objects":[`+entries(maxObjects, `{"n":%d}`)+`]`), ""},
		{"objects", fmt.Sprintf(template, "", `,"objects":[`+entries(maxObjects+1, `{"n":%d}`)+`]`), "objects: Too many: 16385"},
		{"transformers", fmt.Sprintf(template, "", `,"transformers":[`+entries(maxObjects+1, `{"n":%d}`)+`]`), "transformers: Too many"},
		{"generators", fmt.Sprintf(template, "", `,"generators":[`+entries(maxObjects+1, `{"n":%d}`)+`]`), "generators: Too many"},
		{"transformer overrides", fmt.Sprintf(template, "", `,"transformerOverrides":[`+entries(maxObjects+1, `{"n":%d}`)+`]`), "transformerOverrides: Too many"},
		{"OpenShift objects", `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"o"},"objects":[` + entries(maxObjects+1, `{"n":%d}`) + `]}`, "objects: Too many"},
		{"values at the limit", fmt.Sprintf(params, `,"parameters":{`+entries(max, `"P%d":""`)+`}`), ""},
		{"values", fmt.Sprintf(params, `,"parameters":{`+entries(max+1, `"P%d":""`)+`}`), "parameters: Too many"},
		{"caller labels", fmt.Sprintf(params, `,"labels":{`+entries(max+1, `"k%d":""`)+`}`), "labels: Too many"},
		{"properties", fmt.Sprintf(params, `,"properties":{`+entries(max+1, `"p%d":""`)+`}`), "properties: Too many"},
		{"properties of destinations together", fmt.Sprintf(params, `,"destinations":[`+entries(2, `{"name":"d%d","properties":{`+strings.ReplaceAll(entries(max/2+1, `"p%d":""`), "%", "%%")+`}}`)+`]`), "destinations[*].properties: Too many"},
		{"CustomTransform labels", fmt.Sprintf(ct, `,"labels":{`+entries(max+1, `"k%d":""`)+`}`), "metadata.labels: Too many"},
		{"OpenShift labels", `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"o"},"labels":{` + entries(max+1, `"k%d":""`) + `}}`, "labels: Too many"},
		{"OpenShift number", `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"o"},"objects":[{"n":-1e400}]}`, "objects[0].n: Invalid value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var into runtime.Object
			if strings.Contains(tc.body, "openshift") {
				// As the processedtemplates endpoint decodes it.
				into = &templates.Template{}
			}
			_, _, err := decoder.Decode([]byte(tc.body), nil, into)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
