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
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// bigTemplate is a Template of about size bytes, all in one ConfigMap's data.
func bigTemplate(name string, size int) []byte {
	var data strings.Builder
	for i := 0; data.Len() < size; i++ {
		fmt.Fprintf(&data, `"k%d":"%s",`, i, strings.Repeat("v", 1000))
	}
	return []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"` + name + `"},` +
		`"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{` + strings.TrimSuffix(data.String(), ",") + `}}]}`)
}

// TestWritesRefusedWithoutServerErrors is finding 5 of issue 17: writes that the server
// answered with a 500 although the request was at fault. Each now gets a 4xx that says what
// is wrong.
func TestWritesRefusedWithoutServerErrors(t *testing.T) {
	const ns = "writes"
	for _, body := range []string{
		`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},"parameters":[{"name":"A"}]}`,
		`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"grow"}}`,
	} {
		if resp := shared.mustDo(t, "POST", apiPath(ns, "templates"), ctJSON, []byte(body)); resp.status != 201 {
			t.Fatalf("creating: %d %s", resp.status, resp.body)
		}
	}
	ct := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"CustomTransform","metadata":{"name":"writes-ct"},"spec":{"resource":"services","remove":["$.spec.clusterIP"]}}`
	if resp := shared.mustDo(t, "POST", "/apis/templates.stencil.dev/v1alpha1/customtransforms", ctJSON, []byte(ct)); resp.status != 201 {
		t.Fatalf("creating the CustomTransform: %d %s", resp.status, resp.body)
	}
	ctPath := "/apis/templates.stencil.dev/v1alpha1/customtransforms/writes-ct"
	grown := string(bigTemplate("grow", 1200<<10))
	cases := []struct {
		name, method, path, contentType, body string
		status                                int
		// message must appear in the answer's message.
		message string
	}{
		// etcd refuses requests above 1.5 MiB; a template is refused before, as kube-apiserver
		// refuses a ConfigMap above 1 MiB.
		{"create 1.6 MB", "POST", apiPath(ns, "templates"), ctJSON, string(bigTemplate("big", 1600<<10)), 422, "objects: Too long: "},
		{"create 2.9 MB", "POST", apiPath(ns, "templates?dryRun=All"), ctJSON, string(bigTemplate("big", 2900<<10)), 422, "at most 1048576 bytes"},
		{"update 1.1 MB", "PUT", apiPath(ns, "templates/grow"), ctJSON, grown, 422, "objects: Too long: "},
		{"merge patch growing it", "PATCH", apiPath(ns, "templates/grow"), ctMergePatch, strings.Replace(grown, `"name":"grow"`, `"name":"grow","labels":{"a":"b"}`, 1), 422, "objects: Too long: "},
		{"apply growing it", "PATCH", apiPath(ns, "templates/grow?fieldManager=test"), ctApply, grown, 422, "objects: Too long: "},
		// A resourceVersion is opaque, but this server only ever hands out integers.
		{"update with resourceVersion abc", "PUT", apiPath(ns, "templates/t"), ctJSON,
			`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t","resourceVersion":"abc"}}`, 422, "metadata.resourceVersion: Invalid value: \"abc\""},
		{"patch to resourceVersion -1", "PATCH", apiPath(ns, "templates/t"), ctMergePatch, `{"metadata":{"resourceVersion":"-1"}}`, 422, "metadata.resourceVersion"},
		{"CustomTransform update with resourceVersion abc", "PUT", ctPath, ctJSON,
			strings.Replace(ct, `"name":"writes-ct"`, `"name":"writes-ct","resourceVersion":"abc"`, 1), 422, "metadata.resourceVersion"},
		// The strategic merge patch library's errors are the patch's fault.
		{"strategic merge $patch bogus", "PATCH", apiPath(ns, "templates/t"), ctStrategic, `{"$patch":"bogus"}`, 400, "unknown patch type: bogus"},
		{"strategic merge on a CustomTransform", "PATCH", ctPath, ctStrategic, `{"$patch":"bogus"}`, 400, "unknown patch type"},
		// Server-side apply checks the patch against the schema before validation runs.
		{"apply parameters: notalist", "PATCH", apiPath(ns, "templates/t?fieldManager=test"), ctApply,
			"apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: t}\nparameters: notalist\n", 400, ".parameters: expected list"},
		{"apply duplicate parameter names", "PATCH", apiPath(ns, "templates/t?fieldManager=test"), ctApply,
			"apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: t}\nparameters: [{name: A}, {name: A}]\n", 400, "duplicate entries"},
		{"apply creating with duplicate names", "PATCH", apiPath(ns, "templates/new?fieldManager=test"), ctApply,
			"apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: new}\nparameters: [{name: A}, {name: A}]\n", 400, "duplicate entries"},
		// A $setElementOrder list of objects the patch does not hold panics the library.
		{"strategic merge panicking the library", "PATCH", apiPath(ns, "templates/t"), ctStrategic,
			`{"$setElementOrder/parameters":[{"name":"Z"}],"parameters":[{"name":"A","value":"q"}]}`, 400, "the patch cannot be applied"},
		// Reads parse the version too: list answered 400, get and watch 500.
		{"get at resourceVersion abc", "GET", apiPath(ns, "templates/t?resourceVersion=abc"), "", "", 400, "invalid resource version"},
		{"watch from resourceVersion abc", "GET", apiPath(ns, "templates?watch=1&resourceVersion=abc"), "", "", 400, "invalid resource version"},
		{"list at resourceVersion abc", "GET", apiPath(ns, "templates?resourceVersion=abc"), "", "", 400, "invalid resource version"},
		{"get a CustomTransform at resourceVersion x", "GET", ctPath + "?resourceVersion=x", "", "", 400, "invalid resource version"},
		// kubectl create of what kubectl get printed carries a resourceVersion.
		{"create with a resourceVersion", "POST", apiPath(ns, "templates"), ctJSON,
			`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"copy","resourceVersion":"5"}}`, 422, "metadata.resourceVersion: Invalid value: \"5\": must be empty"},
		{"apply spec: notamap to a CustomTransform", "PATCH", ctPath + "?fieldManager=test", ctApply,
			"apiVersion: templates.stencil.dev/v1alpha1\nkind: CustomTransform\nmetadata: {name: writes-ct}\nspec: notamap\n", 400, "expected map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := shared.mustDo(t, tc.method, tc.path, tc.contentType, []byte(tc.body))
			st, ok := resp.apiStatus()
			if resp.status != tc.status || !ok || !strings.Contains(st.Message, tc.message) {
				t.Fatalf("status %d, want %d with %q: %.600s", resp.status, tc.status, tc.message, resp.body)
			}
		})
	}
	// Up to the limit a template is stored.
	if resp := shared.mustDo(t, "POST", apiPath(ns, "templates"), ctJSON, bigTemplate("fits", 1000<<10)); resp.status != 201 {
		t.Fatalf("a template just below the limit: %d %.300s", resp.status, resp.body)
	}
}

// TestCustomTransformLimits is finding 6 of issue 17: a CustomTransform's paths apply to every
// object of every processing request, so their number and size are bounded, and its kind
// must be a kind's name.
func TestCustomTransformLimits(t *testing.T) {
	customTransform := func(kind string, paths []string) []byte {
		quoted, _ := json.Marshal(paths)
		return []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"CustomTransform","metadata":{"name":"limits"},"spec":{"kind":"` + kind + `","remove":` + string(quoted) + `}}`)
	}
	many := make([]string, 10000)
	for i := range many {
		many[i] = fmt.Sprintf("$.spec.f%d", i)
	}
	cases := []struct {
		name   string
		body   []byte
		causes string
	}{
		{"10,000 paths", customTransform("Widget", many), "spec.remove: FieldValueTooMany"},
		{"a path of 1 MB", customTransform("Widget", []string{"$.spec." + strings.Repeat("a", 1<<20)}), "spec.remove[0]: FieldValueTooLong"},
		// JSON decoding turns invalid UTF-8 into U+FFFD, which no kind holds.
		{"a kind of invalid UTF-8", customTransform("Wid\xff\xfeget", []string{"$.a"}), "spec.kind: FieldValueInvalid"},
		{"a kind with a slash", customTransform("apps/Deployment", []string{"$.a"}), "spec.kind: FieldValueInvalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := shared.mustDo(t, "POST", "/apis/templates.stencil.dev/v1alpha1/customtransforms", ctJSON, tc.body)
			if causes := strings.Join(resp.causes(), ","); resp.status != 422 || causes != tc.causes {
				t.Fatalf("status %d causes %s, want 422 with %s: %.300s", resp.status, causes, tc.causes, resp.body)
			}
		})
	}
}
