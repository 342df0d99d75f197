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
	"runtime"
	"strings"
	"testing"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/heaptest"
)

// TestManyParametersRefusedBeforeDecoding: whoever may post a Template (to processedtemplates,
// or templates) may send a body of a million empty parameters. Each is 224 bytes to a decoder
// (270 bytes for each byte of the body when the API's decoder reads them, as it does when a
// parameter names a member twice), far past what the body is charged, for a Template the
// count refuses anyway. The codec counts them first: every dialect and shape is refused in
// the conversion's words, holding about the body's size; without the count each held 77-280
// times it.
func TestManyParametersRefusedBeforeDecoding(t *testing.T) {
	const size = 1 << 20
	empty := strings.TrimSuffix(strings.Repeat(`{},`, size/3), ",")
	n := strings.Count(empty, "{}")
	stencilHead := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},`
	openShiftHead := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"t"},`
	bodies := map[string]string{
		"Stencil's":                    stencilHead + `"parameters":[` + empty + `],"objects":[]}`,
		"OpenShift's":                  openShiftHead + `"parameters":[` + empty + `],"objects":[]}`,
		"one named twice":              stencilHead + `"parameters":[` + empty + `,{"name":"a","name":"b"}],"objects":[]}`,
		"OpenShift's, one named twice": openShiftHead + `"parameters":[` + empty + `,{"name":"a","name":"b"}],"objects":[]}`,
		"a member repeated at the top": stencilHead + `"message":"a","message":"b","parameters":[` + empty + `],"objects":[]}`,
		"nulls":                        stencilHead + `"parameters":[` + strings.TrimSuffix(strings.Repeat(`null,`, size/5), ",") + `],"objects":[]}`,
		"kind spelled in another case": `{"apiVersion":"templates.stencil.dev/v1alpha1","Kind":"Template","metadata":{"name":"t"},"parameters":[` + empty + `]}`,
	}
	info, _ := kruntime.SerializerInfoForMediaType(Codecs.SupportedMediaTypes(), kruntime.ContentTypeJSON)
	gvk := schema.GroupVersionKind{Group: templates.GroupName, Version: "v1alpha1", Kind: "Template"}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			data := []byte(body)
			for _, strict := range []bool{false, true} {
				codec := templateCodec{Serializer: info.Serializer, scheme: Scheme, strict: strict}
				if strict {
					codec.Serializer = info.StrictSerializer
				}
				var err error
				peak := heaptest.Peak(func() {
					_, _, err = codec.Decode(data, &gvk, &templates.Template{})
					runtime.KeepAlive(data)
				})
				count := n
				if name == "nulls" {
					count = size / 5
				} else if strings.Contains(name, "named twice") {
					count = n + 1
				}
				want := fmt.Sprintf("parameters: Too many: %d: must have at most %d items", count, templates.MaxEntries)
				if err == nil || err.Error() != want {
					t.Errorf("strict %v: %v, want %q", strict, err, want)
				}
				if peak > 4*size {
					t.Errorf("strict %v: decoding held %d KiB at its peak for a body of %d KiB", strict, peak>>10, len(data)>>10)
				}
			}
		})
	}
}
