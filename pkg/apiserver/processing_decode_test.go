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

package apiserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// TestDecodeConvertedDecodesAsTheDecoder checks that a YAML body the body filter converted is
// decoded from the converter's member positions (decodeConverted) into what the JSON decoder
// gives for the same JSON, strict and not: the same Template, group version kind and strict
// words; and a body the filter leaves as YAML for a key its document repeats, into what the
// YAML decoder gives for the body, its words on the keys included.
// TestProcessingHandlerAnswersAsTheCreateHandler compares whole answers; this checks the split
// path is the one taken.
func TestDecodeConvertedDecodesAsTheDecoder(t *testing.T) {
	var many strings.Builder
	many.WriteString("apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: many\n  annotations:\n    description: \"<b>&\"\nlabels:\n  app: many\nparameters:\n")
	for i := range 20 {
		fmt.Fprintf(&many, "- name: P%d\n  generate: expression\n  from: \"[a-z]{8}\"\n  requred: true\n", i)
	}
	many.WriteString("objects:\n")
	for i := range 20 {
		fmt.Fprintf(&many, "- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: c%d-${P%d}\n  data:\n    script: |\n      a && b > c\n", i, i)
	}
	bodies := map[string]string{
		"stencil":              stencilYAML,
		"openshift":            openShiftYAML,
		"unknown member":       strings.Replace(stencilYAML, "kind: Template\n", "kind: Template\nunknown: 1\n", 1),
		"no apiVersion, kind":  strings.Replace(stencilYAML, "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\n", "", 1),
		"after empty document": "---\n# nothing\n---\n" + openShiftYAML,
		"many":                 many.String(),
		// Left as YAML by the filter, decoded from its conversion all the same.
		"key twice":                     strings.Replace(stencilYAML, "  name: t\n", "  name: t\n  name: u\n", 1),
		"keys twice, misspelled member": strings.Replace(openShiftYAML, "kind: Template\n", "kind: Template\nkind: Template\n", 1),
		"key twice, unknown member":     strings.Replace(stencilYAML, "kind: Template\n", "kind: Template\nunknown: 1\nunknown: 2\n", 1),
		"key twice in an object":        strings.Replace(stencilYAML, "    name: c-${A}\n", "    name: c-${A}\n    name: d\n", 1),
		// Numbers: those beyond a float64 resolve to strings, the rest fit (the conversion's
		// numbers are not walked again).
		"numbers": strings.Replace(openShiftYAML, "    name: c-${A}\n", "    name: c-${A}\n  data: {a: 1e400, b: 1.5e300, c: -"+strings.Repeat("9", 400)+", d: 0x1F}\n", 1),
	}
	for _, group := range []struct {
		gv      schema.GroupVersion
		storage processingStorage
	}{
		{v1alpha1.SchemeGroupVersion, processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{}))},
		{openshift.SchemeGroupVersion, processedtemplate.NewOpenShiftREST(renderrest.NewAdapter(renderrest.Sources{}))},
	} {
		s := processingScope{serializer: Served, admission: &recordingAdmission{}, maxBodyBytes: 1 << 20}
		scope, err := processingRequestScope(group.gv, "processedtemplates", group.storage, s)
		if err != nil {
			t.Fatal(err)
		}
		h, err := newProcessingHandler(group.storage, scope, s.admission, nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, body := range bodies {
			converted, conversion, ok, err := yamlBodyAsJSON([]byte(body), nil)
			if err != nil || conversion.top == nil || ok == conversion.kept {
				t.Fatalf("%s: the filter keeps no conversion of the body (converted %v, %v, %v)", name, ok, conversion, err)
			}
			// What the handler reads: the JSON, or the YAML body kept for the YAML decoder.
			read, decoders := converted, &h.decoders
			if conversion.kept {
				read, decoders = []byte(body), &h.yamlDecoders
			}
			for i, strict := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/strict=%v", group.gv.Group, name, strict), func(t *testing.T) {
					req := httptest.NewRequest(http.MethodPost, "/", nil)
					req.Body = newFilteredBody(read, conversion)
					r := &processingRequest{kind: scope.Kind}
					obj, gvk, err, decoded := h.decodeConverted(req, strict, r)
					wantKind := scope.Kind
					want, wantGVK, wantErr := decoders[i].Decode(read, &wantKind, h.storage.New())
					if wantErr != nil && want == nil {
						if decoded {
							t.Fatalf("decoded what the decoder refuses (%v)", wantErr)
						}
						return
					}
					if !decoded {
						t.Fatal("left to the decoder")
					}
					if fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Errorf("error %v, the decoder's %v", err, wantErr)
					}
					if *gvk != *wantGVK {
						t.Errorf("kind %v, the decoder's %v", gvk, wantGVK)
					}
					if !apiequality.Semantic.DeepEqual(obj, want) {
						t.Errorf("decoded\n%#v\nthe decoder's\n%#v", obj, want)
					}
				})
			}
		}
	}
}
