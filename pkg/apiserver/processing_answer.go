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
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/endpoints/handlers"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// answer writes result as responsewriters.WriteObjectNegotiated writes it, with the encoder
// of the media type negotiated before processing, built once. An answer that may be pretty
// (asked in the query or the Accept header, or by a browser's or curl's User-Agent), or whose
// media type has no encoder of its own, is WriteObjectNegotiated's. pretty is mayBePretty(req);
// answer is the request's writer of a List, zero until here.
func (h *processingHandler) answer(w http.ResponseWriter, req *http.Request, pretty bool, mediaType negotiation.MediaTypeOptions, output runtime.SerializerInfo, result runtime.Object, answer *listAnswer) {
	gv := h.scope.Kind.GroupVersion()
	encoder, ok := h.encoders[output.MediaType]
	if !ok || mediaType.Pretty || pretty || utilfeature.DefaultFeatureGate.Enabled(features.CBORServingAndStorage) {
		responsewriters.WriteObjectNegotiated(h.scope.Serializer, h.scope, gv, w, req, http.StatusCreated, result, false)
		return
	}
	audit.LogResponseObject(req.Context(), result, gv, h.scope.Serializer)
	request.TrackSerializeResponseObjectLatency(req.Context(), func() {
		if !writeList(w, req, output.MediaType, encoder, result, answer) {
			responsewriters.SerializeObject(output.MediaType, encoder, w, req, http.StatusCreated, result)
		}
	})
}

// writeList writes a processed List whose items are raw JSON, the answer of nearly every
// request, as responsewriters.SerializeObject writes it, byte for byte and header for header,
// without what SerializeObject adds around it: a tracing span with six attributes and its
// events, made for every answer whether or not anything traces (a fifth of a small request's
// allocations). It returns false, having written nothing, for any other result or when the
// encoder fails before writing, for SerializeObject to answer. answer is a zero listAnswer,
// the request's own.
func writeList(w http.ResponseWriter, req *http.Request, mediaType string, encoder runtime.Encoder, result runtime.Object, answer *listAnswer) bool {
	if list, ok := result.(*v1alpha1.List); !ok || !listItemsRaw(list) {
		return false
	}
	*answer = listAnswer{hw: w, req: req, mediaType: mediaType}
	err := encoder.Encode(result, answer)
	if !answer.wrote {
		return false
	}
	if err == nil {
		err = answer.close()
	}
	if err != nil {
		// As SerializeObject does once an answer has begun: the client sees it cut short.
		utilruntime.HandleError(fmt.Errorf("apiserver was unable to write a %s response: %w", mediaType, err))
	}
	return true
}

// gzipThreshold is SerializeObject's: an answer larger than this, written at once to a client
// that takes gzip, is compressed.
const gzipThreshold = 128 * 1024

// gzipWriters are writers at SerializeObject's level (gzip.BestSpeed), reused.
var gzipWriters = sync.Pool{New: func() any {
	gw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return gw
}}

// listAnswer is SerializeObject's writer for an answer written at once (encodeList writes
// the whole List in one Write): the status and the content type with the first write,
// gzip past the threshold when the client takes it (which is only asked then: reading the
// feature gate and the Accept-Encoding header costs more than writing a small answer's header).
type listAnswer struct {
	hw        http.ResponseWriter
	req       *http.Request
	mediaType string
	wrote     bool
	w         io.Writer
	gw        *gzip.Writer
}

func (a *listAnswer) Write(p []byte) (int, error) {
	if a.wrote {
		return a.w.Write(p)
	}
	a.wrote = true
	header := a.hw.Header()
	a.w = a.hw
	if len(p) > gzipThreshold && responsewriters.ContentEncodingSupported(a.req, features.APIResponseCompression) == "gzip" {
		header.Set("Content-Encoding", "gzip")
		header.Add("Vary", "Accept-Encoding")
		a.gw = gzipWriters.Get().(*gzip.Writer)
		a.gw.Reset(a.hw)
		a.w = a.gw
	}
	header["Content-Type"] = []string{a.mediaType} // Set, without canonicalizing its key
	a.hw.WriteHeader(http.StatusCreated)
	return a.w.Write(p)
}

// close ends a gzip stream.
func (a *listAnswer) close() error {
	if a.gw == nil {
		return nil
	}
	err := a.gw.Close()
	gzipWriters.Put(a.gw)
	a.gw = nil
	return err
}

// withListEncoder is versioned, the encoder of serializer for the scope's version, or, when
// serializer is templateCodec's JSON and a processed List is unversioned (its kind the same in
// every version), a listEncoder in front of it.
func withListEncoder(scope *handlers.RequestScope, serializer runtime.Serializer, versioned runtime.Encoder) runtime.Encoder {
	worded, ok := serializer.(wordedDecoder)
	if !ok {
		return versioned
	}
	if _, ok := worded.Serializer.(templateCodec); !ok {
		return versioned
	}
	kinds, unversioned, err := scope.Typer.ObjectKinds(&v1alpha1.List{})
	if err != nil || !unversioned || len(kinds) == 0 {
		return versioned
	}
	apiVersion, kind := kinds[0].ToAPIVersionAndKind()
	return listEncoder{Encoder: versioned, listType: metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}}
}

// listEncoder writes a processed List whose items are raw JSON and whose kind is listType
// with encodeList itself, and anything else with its Encoder. The versioning codec, for a type
// that has no version, sets the object's kind to the scheme's, has templateCodec write it and
// restores the kind; a List that already holds that kind (processing's answer always does) is
// written the same without the codec's lookups (a thousand instructions an answer).
type listEncoder struct {
	runtime.Encoder
	listType metav1.TypeMeta
}

func (e listEncoder) Encode(obj runtime.Object, w io.Writer) error {
	if list, ok := obj.(*v1alpha1.List); ok && list.TypeMeta == e.listType && listItemsRaw(list) {
		return encodeList(list, w)
	}
	return e.Encoder.Encode(obj, w)
}
