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
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/heaptest"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/registry/templates/templatecheck"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// costlyBodies are Template bodies of about size bytes in the shapes that cost most to
// decode and check per byte, within the API's bounds (templates.MaxEntries), as JSON.
func costlyBodies(size int) map[string]string {
	head := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},`
	object := func(field string) string {
		return head + `"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},` + field + `}]}`
	}
	repeat := func(format string) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, format, i)
		}
		return strings.TrimSuffix(b.String(), ",")
	}
	objects := make([]string, templates.MaxEntries)
	for i := range objects {
		objects[i] = fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"},"data":{"k":"%s"}}`, i, strings.Repeat("v", size/templates.MaxEntries))
	}
	params := make([]string, templates.MaxEntries)
	for i := range params {
		params[i] = fmt.Sprintf(`{"name":"P%d","value":"%s"}`, i, strings.Repeat("v", size/templates.MaxEntries))
	}
	small := make([]string, templates.MaxObjects)
	empty := make([]string, templates.MaxObjects)
	for i := range small {
		small[i] = fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"}}`, i)
		empty[i] = "{}"
	}
	return map[string]string{
		"as many small objects as allowed": head + `"objects":[` + strings.Join(small, ",") + `]}`,
		"as many empty objects as allowed": head + `"objects":[` + strings.Join(empty, ",") + `]}`,
		"empty objects in an object":       object(`"x":[` + strings.TrimSuffix(strings.Repeat(`{},`, size/3), ",") + `]`),
		"short members":                    object(`"data":{` + repeat(`"%x":"",`) + `}`),
		"one-digit numbers":                object(`"x":[` + strings.TrimSuffix(strings.Repeat(`1,`, size/2), ",") + `]`),
		"one long string":                  object(`"data":{"a":"` + strings.Repeat("x", size) + `"}`),
		"nested arrays":                    object(`"x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000)),
		"as many objects as allowed":       head + `"objects":[` + strings.Join(objects, ",") + `]}`,
		"as many parameters as allowed": head + `"parameters":[` + strings.Join(params, ",") + `],"objects":[` +
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]}`,
		// Braces in a parameter's description, which the lean reader must not make room for as
		// parameters (224 bytes each: 29 MB here, when it counted every brace).
		"braces in a parameter": head + `"parameters":[{"name":"A","description":"` + strings.Repeat("[{", size/2) + `"}],"objects":[]}`,
		// Parameters of nothing, far more than allowed: each is a whole parameter to the
		// reader (224 bytes) before validation counts them. In both dialects.
		"empty parameters": head + `"parameters":[` + strings.TrimSuffix(strings.Repeat(`{},`, size/3), ",") + `],"objects":[]}`,
		"empty parameters, OpenShift's": `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"t"},"parameters":[` +
			strings.TrimSuffix(strings.Repeat(`{},`, size/3), ",") + `],"objects":[]}`,
		// The last one names itself twice: the lean reader leaves such parameters to the API's
		// decoder, which grows its list as it reads.
		"empty parameters, one named twice": head + `"parameters":[` + strings.Repeat(`{},`, size/3) + `{"name":"a","name":"b"}],"objects":[]}`,
	}
}

// costlyYAML are Template bodies of about size bytes in the YAML shapes that cost the YAML
// reader most per byte: one-byte scalars in flow and block style, repeated keys (which the
// decoder converts again, strictly), aliases up to the bound, and YAML the fast reader leaves
// to sigs.k8s.io/yaml.
func costlyYAML(size int) map[string]string {
	head := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: t}\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n"
	alias := head + "  data:\n    a: &a " + strings.Repeat("x", size/8) + "\n  x: [" + strings.TrimSuffix(strings.Repeat("*a, ", 7), ", ") + "]\n"
	return map[string]string{
		"one-byte scalars, flow":   head + "  x: [" + strings.TrimSuffix(strings.Repeat("a,", size/2), ",") + "]\n",
		"one-byte scalars, block":  head + "  x:\n" + strings.Repeat("  - a\n", size/6),
		"repeated keys":            head + "  data:\n" + strings.Repeat("    k: v\n", size/9),
		"aliases near the bound":   alias,
		"left to sigs.k8s.io/yaml": head + "  x:\n" + strings.Repeat("  - a\n", size/6) + "#\ttab\n",
	}
}

// TestBodyCostCoversDecoding measures what the server holds at its peak while the body reader
// converts a body (YAML) and the API's decoder reads it into the API's types and it is checked
// as a Template write checks it, on the shapes that cost most, and checks that the most the
// body reader charges for it covers it.
func TestBodyCostCoversDecoding(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: templates.GroupName, Version: "v1alpha1", Kind: "Template"}
	codecs := wordedDecodeErrors{NegotiatedSerializer: Codecs, scheme: Scheme}
	decoderFor := func(contentType string) kruntime.Decoder {
		for _, info := range codecs.SupportedMediaTypes() {
			if info.MediaType == contentType {
				return Codecs.DecoderToVersion(info.StrictSerializer, templates.SchemeGroupVersion)
			}
		}
		t.Fatalf("no decoder of %s", contentType)
		return nil
	}
	type body struct{ data, contentType string }
	bodies := map[string]body{}
	for name, data := range costlyBodies(256 << 10) {
		bodies[name] = body{data, "application/json"}
		if strings.HasSuffix(name, "named twice") {
			continue // YAML has no member named twice to convert
		}
		asYAML, err := jsonbytes.ToYAML([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		bodies[name+", YAML"] = body{string(asYAML), "application/yaml"}
	}
	for name, data := range costlyYAML(256 << 10) {
		bodies[name] = body{data, "application/yaml"}
	}
	reader := withBodies(nil, 3<<20, Codecs, nil).(*bodyReader)
	for name, b := range bodies {
		t.Run(name, func(t *testing.T) {
			var charged atomic.Int64
			budget := renderrest.NewBudget(1<<40, 1<<39, func(held, _ int64) {
				charged.Store(max(charged.Load(), held))
			})
			hold := budget.NewHold()
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Header.Set("Content-Type", b.contentType)
			data := []byte(b.data)
			// A sample every 100 µs may miss the short peak of a small body: the most of three
			// runs, then.
			runs := 1
			if len(data) < 64<<10 {
				runs = 3
			}
			var peak uint64
			for range runs {
				peak = max(peak, heaptest.Peak(func() {
					r.Header.Set("Content-Type", b.contentType)
					decodable, _, err := reader.decodable(r, hold, bodyMediaType(r), data, &filteredBody{}, false)
					if err != nil {
						t.Fatal(err)
					}
					if strings.HasPrefix(name, "empty parameters") {
						// Refused once read (more parameters than allowed), by the codec the
						// processing handler decodes either dialect with: what it held until then.
						info, _ := kruntime.SerializerInfoForMediaType(Codecs.SupportedMediaTypes(), kruntime.ContentTypeJSON)
						codec := templateCodec{Serializer: info.StrictSerializer, scheme: Scheme, strict: true}
						if _, _, err := codec.Decode(decodable, &gvk, &templates.Template{}); err == nil {
							t.Fatal("decoding: more parameters than allowed were taken")
						}
						runtime.KeepAlive(decodable)
						return
					}
					obj, _, err := decoderFor(r.Header.Get("Content-Type")).Decode(decodable, &gvk, nil)
					if err != nil && !kruntime.IsStrictDecodingError(err) {
						t.Fatalf("decoding: %v", err)
					}
					tpl := obj.(*templates.Template)
					_, _ = templatecheck.Check(tpl, plugin.Policy{}, validation.ValidateTemplate(tpl))
					runtime.KeepAlive(decodable)
				}))
			}
			// The body itself was read before, and charged readFactor times while it was.
			peak += uint64(len(data))
			t.Logf("%s: %d bytes as %s: peak %d KiB (%.1f per byte), charged %d KiB (%.1f per byte)", name, len(data), r.Header.Get("Content-Type"),
				peak>>10, float64(peak)/float64(len(data)), charged.Load()>>10, float64(charged.Load())/float64(len(data)))
			if int64(peak) > charged.Load() {
				t.Errorf("decoding and checking held %d bytes at its peak, more than the %d the body is charged", peak, charged.Load())
			}
		})
	}
}
