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
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/test/localserver"
)

// TestTransformerOutputIsBounded is issue 17's first finding over HTTP: a small request
// whose transformers multiply its objects past the request's output budget gets a 422 naming
// the transformer, where it used to be answered with hundreds of megabytes (and gigabytes of
// memory, the work going on after the client gave up).
func TestTransformerOutputIsBounded(t *testing.T) {
	configMaps := make([]string, 200)
	for i := range configMaps {
		configMaps[i] = fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"},"data":{"a":%q}}`, i, strings.Repeat("x", 100))
	}
	copies := make([]string, 13)
	for i := range copies {
		copies[i] = fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i)
	}
	template := func(objects []string, transformer string) []byte {
		return []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"grow"},` +
			`"objects":[` + strings.Join(objects, ",") + `],"transformers":[` + transformer + `]}`)
	}
	cases := []struct {
		name, transformer string
		body              []byte
	}{
		{"JSON 6902 copies", "grow", template(configMaps,
			`{"apiVersion":"builtin","kind":"PatchTransformer","metadata":{"name":"grow"},"target":{"kind":"ConfigMap"},"patch":[`+strings.Join(copies, ",")+`]}`)},
		{"1 MB annotation on 100 objects", "note", template(configMaps[:100],
			`{"apiVersion":"builtin","kind":"AnnotationsTransformer","metadata":{"name":"note"},"annotations":{"big":"`+strings.Repeat("y", 1<<20)+`"}}`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, raw, _ := rawPost(t, groupPath+"processedtemplates", tc.body)
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("a %d KB request: status %d, want 422: %.300s", len(tc.body)>>10, status, raw)
			}
			var st metav1.Status
			if err := json.Unmarshal(raw, &st); err != nil || st.Details == nil || len(st.Details.Causes) != 1 {
				t.Fatalf("want one cause: %.500s", raw)
			}
			cause := st.Details.Causes[0]
			if cause.Field != "transformers["+tc.transformer+"]" || !strings.Contains(cause.Message, "output too large") {
				t.Fatalf("the cause does not name the transformer and the budget: %+v", cause)
			}
		})
	}
	// The requests were refused at the budget, not after building their output: the server
	// never held anything near the gigabytes they used to take.
	peak := peakRSS(t, shared.Pid())
	if peak > 1<<30 {
		t.Fatalf("the server's peak resident memory is %d MB", peak>>20)
	}
	t.Logf("the server's peak resident memory: %d MB", peak>>20)
}

// peakRSS reads a process's peak resident set size (VmHWM) from /proc, in bytes.
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	peak, err := localserver.PeakRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	return int(peak)
}

// TestHugeKustomizationDoesNotBlockOthers is issue 17's second finding over HTTP: one
// Kustomization of 1,000 objects and 80 patches over all of them held the one build lock for
// two minutes, and every other Kustomization request got a 504. It is refused before it
// builds, and a small one sent beside it is served.
func TestHugeKustomizationDoesNotBlockOthers(t *testing.T) {
	objects := make([]string, 1000)
	for i := range objects {
		objects[i] = fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"},"data":{"a":"b"}}`, i)
	}
	patches := make([]string, 80)
	for i := range patches {
		patches[i] = fmt.Sprintf(`{"target":{"kind":"ConfigMap"},"patch":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"any\"},\"data\":{\"k%d\":\"v\"}}"}`, i)
	}
	kustomize := func(objects []string, patches []string) []byte {
		return []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"kz"},` +
			`"objects":[` + strings.Join(objects, ",") + `],"transformers":[{"apiVersion":"kustomize.config.k8s.io/v1beta1",` +
			`"kind":"Kustomization","metadata":{"name":"kz"},"patches":[` + strings.Join(patches, ",") + `]}]}`)
	}
	type answer struct {
		status int
		raw    []byte
	}
	huge := make(chan answer, 1)
	go func() {
		status, raw, _ := rawPost(t, groupPath+"processedtemplates", kustomize(objects, patches))
		huge <- answer{status, raw}
	}()
	status, raw, _ := rawPost(t, groupPath+"processedtemplates", kustomize(objects[:3], patches[:2]))
	if status != http.StatusCreated || !strings.Contains(string(raw), `"k1":"v"`) {
		t.Fatalf("the small Kustomization beside the huge one: status %d: %.300s", status, raw)
	}
	got := <-huge
	if got.status != http.StatusUnprocessableEntity || !strings.Contains(string(got.raw), "transformers[kz]") || !strings.Contains(string(got.raw), "at most 5000") {
		t.Fatalf("the huge Kustomization: status %d, want a 422 naming it and the limit: %.500s", got.status, got.raw)
	}
}
