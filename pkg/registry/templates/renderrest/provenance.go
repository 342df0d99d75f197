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
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"stencil.dev/stencil/pkg/render"
)

// ProvenanceParameter is the query parameter that asks processedtemplates and
// templates/{name}/processed for the provenance of every field of the List's items, answered
// in the List's provenance beside them (docs/provenance.md).
const ProvenanceParameter = "provenance"

type provenanceKey struct{}

// provenanceAsked is what the request's query said: asked, or an error for a value that is
// not a bool.
type provenanceAsked struct {
	asked bool
	err   error
}

// ReadProvenanceParameter reads ?provenance= of each POST into its context for the
// processing endpoints. Create's options are the generic handler's own (metav1.CreateOptions,
// which drop any other parameter), so the parameter is read here, beside them.
func ReadProvenanceParameter(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !mayName(r.URL.RawQuery, ProvenanceParameter) {
			// Not asked: most requests are served without parsing their query here.
			handler.ServeHTTP(w, r)
			return
		}
		values, ok := r.URL.Query()[ProvenanceParameter]
		if !ok {
			handler.ServeHTTP(w, r)
			return
		}
		var asked provenanceAsked
		if len(values) != 1 {
			asked.err = fmt.Errorf("give %s once", ProvenanceParameter)
		} else if values[0] == "" {
			asked.asked = true
		} else if asked.asked, asked.err = strconv.ParseBool(values[0]); asked.err != nil {
			asked.err = fmt.Errorf("%s must be true or false, not %q", ProvenanceParameter, values[0])
		}
		handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), provenanceKey{}, asked)))
	})
}

// ProvenanceAsked reports whether the request asked for provenance; a malformed value is a
// 400.
func ProvenanceAsked(ctx context.Context) (bool, error) {
	asked, _ := ctx.Value(provenanceKey{}).(provenanceAsked)
	if asked.err != nil {
		return false, apierrors.NewBadRequest(asked.err.Error())
	}
	return asked.asked, nil
}

// withProvenance sets in.Provenance when the request asked for it. A template of the request's
// body or of storage has no file: its fields are named by path, without lines.
func withProvenance(ctx context.Context, in *render.Input) error {
	asked, err := ProvenanceAsked(ctx)
	if err != nil || !asked {
		return err
	}
	in.Provenance = &render.ProvenanceOptions{}
	return nil
}

// provenanceAnswerBytes is what one field's provenance takes in the answer while it is
// encoded and sent: its JSON (about 150 bytes) and the encoder's buffer.
const provenanceAnswerBytes = 512

// mayName reports whether the raw query may hold a parameter named name (a plain word):
// url.ParseQuery unescapes a key's %XX and its plus signs, so a key that reads as name holds
// it as written, or a percent sign.
func mayName(rawQuery, name string) bool {
	return strings.Contains(rawQuery, name) || strings.IndexByte(rawQuery, '%') >= 0
}
