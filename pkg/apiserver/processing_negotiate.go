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
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
)

// negotiations are the answer's media types negotiated for the Accept headers processing
// requests send, kept by header: negotiating parses the header and the server's media types
// (a few allocations and thousands of instructions a request), and a client sends the same
// header every time. At most maxNegotiations headers of at most maxNegotiatedAccept bytes
// are kept, the first ones seen (what a client could make the server hold is bounded by
// both: 8 KiB); any other is negotiated for each request, as the create handler does.
type negotiations struct {
	mu       sync.RWMutex
	byAccept map[string]negotiated
}

type negotiated struct {
	mediaType negotiation.MediaTypeOptions
	info      runtime.SerializerInfo
}

const (
	maxNegotiations     = 32
	maxNegotiatedAccept = 256
)

// negotiate is negotiation.NegotiateOutputMediaType for req, from what was negotiated for its
// Accept header before when the answer cannot be pretty (pretty is mayBePretty(req): the answer
// also depends on the query and the User-Agent then, and the request is negotiated as it comes).
func (h *processingHandler) negotiate(req *http.Request, pretty bool) (negotiation.MediaTypeOptions, runtime.SerializerInfo, error) {
	if pretty {
		return negotiation.NegotiateOutputMediaType(req, h.scope.Serializer, h.scope)
	}
	accept := headerValue(req.Header, "Accept")
	h.negotiations.mu.RLock()
	n, ok := h.negotiations.byAccept[accept]
	h.negotiations.mu.RUnlock()
	if ok {
		return n.mediaType, n.info, nil
	}
	mediaType, info, err := negotiation.NegotiateOutputMediaType(req, h.scope.Serializer, h.scope)
	if err != nil {
		return mediaType, info, err
	}
	h.negotiations.mu.Lock()
	if h.negotiations.byAccept == nil {
		h.negotiations.byAccept = map[string]negotiated{}
	}
	if len(h.negotiations.byAccept) < maxNegotiations && len(accept) <= maxNegotiatedAccept {
		h.negotiations.byAccept[accept] = negotiated{mediaType: mediaType, info: info}
	}
	h.negotiations.mu.Unlock()
	return mediaType, info, nil
}

// mayBePretty reports whether the answer to req may be indented for a person: asked in the
// query, or by the User-Agent of a browser, curl or wget (negotiation's and the response
// writers' rules; an Accept header's pretty parameter is the negotiated media type's).
func mayBePretty(req *http.Request) bool {
	agent := headerValue(req.Header, "User-Agent")
	return strings.Contains(req.URL.RawQuery, "pretty") || strings.HasPrefix(agent, "curl") ||
		strings.HasPrefix(agent, "Wget") || strings.HasPrefix(agent, "Mozilla/5.0")
}

// headerValue is h.Get(key) for a key written as net/http keeps it (canonical: "Content-Type"),
// without canonicalizing the key again as Get does: a request's headers are stored under
// canonical keys, and on a small request Get's canonicalization of each key it is asked for
// costs more than the lookup.
func headerValue(h http.Header, canonicalKey string) string {
	if v := h[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}
