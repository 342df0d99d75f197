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

package renderrest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestReadProvenanceParameter checks what a POST's query asks, in every spelling
// url.ParseQuery reads (escaped names, a plus sign, repeated, malformed), against the query
// as ParseQuery reads it: the filter's shortcut past queries without the name never misses one.
func TestReadProvenanceParameter(t *testing.T) {
	for _, query := range []string{"", "provenance", "provenance=true", "provenance=false", "provenance=1", "provenance=x",
		"prov%65nance=true", "%70rovenance", "provenance=true&provenance=false", "a=1&provenance", "provenanc=true",
		"provenance+=true", "x=provenance", "%zz&provenance=true", "provenance%3Dtrue", "fieldManager=kubectl-create&fieldValidation=Strict"} {
		var got string
		h := ReadProvenanceParameter(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			asked, err := ProvenanceAsked(r.Context())
			got = fmt.Sprint(asked, err)
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/x?"+query, nil))
		r := httptest.NewRequest(http.MethodPost, "/x?"+query, nil)
		want := "false <nil>"
		if values, ok := r.URL.Query()[ProvenanceParameter]; ok {
			switch {
			case len(values) != 1:
				want = "false give provenance once"
			case values[0] == "" || values[0] == "true" || values[0] == "1":
				want = "true <nil>"
			case values[0] == "false":
				want = "false <nil>"
			default:
				want = fmt.Sprintf("false provenance must be true or false, not %q", values[0])
			}
		}
		if got != want {
			t.Errorf("?%s: asked %s, want %s", query, got, want)
		}
	}
}
