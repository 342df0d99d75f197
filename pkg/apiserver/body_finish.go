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
	"bytes"
	"net/http"

	"stencil.dev/stencil/pkg/positions"
)

// Finishing a body. The JSON body of a processing POST is decoded from its own bytes: the
// Template's objects, generators and transformers are RawExtensions whose bytes are slices of
// the body (process.SplitTemplateJSON), so the buffer it was read into could not be used again
// as a YAML body's is. Reading every body into a new buffer cost 2.3 MB per pass of the
// corpus's JSON templates (a quarter of what the server path allocates beside the engine),
// and the collector's work grows with it. The processing handler says when nothing can read
// those bytes any more (finishBody): it has answered the request itself, to the end, and its
// time had not run out. The body filter then gives the buffer back, once the handler has
// returned. On any other path the body is left to the collector as before: the create handler
// that processing hands a request to (which reads the body into a copy of its own anyway),
// every other resource (a stored Template keeps its bytes), a request cut by its deadline
// (the timeout filter answers it while the handler may still run), a handler that panicked
// (the filter's code after it never runs) and a refusal by the body filter itself.
//
// Who could keep the bytes past the answer, looked at for k8s.io/apiserver v0.37.2 and this
// module (a change to any of these must look again):
//   - audit: LogRequestObject and LogResponseObject encode the object into a buffer of their
//     own at once (encodeObject); the event keeps that encoding and the metadata's strings,
//     which the decoders copy (only the objects' RawExtensions are slices of the body).
//   - admission: mutating admission runs in the request's goroutine; webhooks are sent an
//     encoding of the object and their patches decode into new bytes; validating admission is
//     given a deep copy (processedtemplate.REST.Create) and its webhooks are waited for.
//   - warnings and errors: strings, formatted when they are made (a field error quoting the
//     template's text formats it into the Status's message and causes); the answer is written
//     before serve returns.
//   - processing (pkg/render, pkg/process, pkg/transform): the plan copies the objects'
//     literal bytes into its arena and writes the objects, generators and transformers into
//     buffers of its own, so neither the answer's items nor the pipeline cache (keyed and
//     filled with the substituted configs) hold the body; only stored Templates' plans are
//     cached, and a stored Template's bytes are not a request body. What render starts stops
//     before it returns: a Kustomize build's goroutine is waited for even when its worker is
//     killed, a plugin's process and its stdin writer are waited for by cmd.Wait, Starlark's
//     timers are stopped; a deadline that ends them is a request not finished.
//   - provenance names fields by path and line, copied; the memory budget's charges are
//     counts (the Hold is released after the filter returns, as before).
//   - the answer's writer: the answer is encoded into a buffer of its own (encodeList) or by
//     the API's encoders, and written before serve returns.
//
// Once given back, the filteredBody forgets the bytes (forget): should anything read r.Body
// after the handler, it reads nothing rather than another request's body.

// filteredBody is a body the bodyReader read, as the handler reads it: the processing handler
// takes its bytes as they are (bodyBytes), any other handler reads it.
type filteredBody struct {
	bytes.Reader // in the body, not beside it: one allocation a request
	data         []byte
	// conversion is data's, when it is a YAML body converted (decodable).
	conversion convertedYAML
	// converted is the buffer of the pools the YAML body's JSON is in, when it is.
	converted convertedBuffer
	// finished says the processing handler is done with the body (finishBody). Set and read
	// in the request's goroutine: the handlers between the filter and the processing handler
	// call each other in it.
	finished bool
	// contentLength and contentType are the room of the request's Content-Length and
	// Content-Type headers as the filter sets them (the body's length; JSON, for a YAML body
	// converted): a header value is a []string, which would be an allocation a request of its
	// own. Each filteredBody is made for one request and never used again (only its buffers
	// are), so these slices are that request's alone, as a new slice would be.
	contentLength, contentType [1]string
}

func newFilteredBody(data []byte, conversion convertedYAML) *filteredBody {
	b := &filteredBody{}
	b.set(data, conversion)
	return b
}

// set makes the body data, whose conversion is conversion.
func (b *filteredBody) set(data []byte, conversion convertedYAML) {
	b.data, b.conversion = data, conversion
	b.Reset(data)
}

func (*filteredBody) Close() error { return nil }

// forget drops the body's bytes, given back for another request to use.
func (b *filteredBody) forget() {
	b.data, b.conversion = nil, convertedYAML{}
	b.Reset(nil)
}

// bodyBytes returns the bytes of r's body when the bodyReader read it and nothing has read
// from it since.
func bodyBytes(r *http.Request) ([]byte, bool) {
	b, ok := r.Body.(*filteredBody)
	if !ok || b.Len() != len(b.data) {
		return nil, false
	}
	return b.data, true
}

// bodyConversion returns the conversion of the YAML body whose bytes (or whose JSON, when it is
// one) bodyBytes returns, nil when there is none.
func bodyConversion(r *http.Request) *convertedYAML {
	if b, ok := r.Body.(*filteredBody); ok && b.conversion.top != nil {
		return &b.conversion
	}
	return nil
}

// finishBody says nothing of the request reads r's body, or anything decoded from it, any
// more: the body filter may use its buffer again once the handler returns. Only the
// processing handler calls it, as the last thing it does for a request it answered itself
// before its deadline (see above).
func finishBody(r *http.Request) {
	if b, ok := r.Body.(*filteredBody); ok {
		b.finished = true
	}
}

// convertedYAML is a YAML body as the body filter converted it, for the processing handler to
// decode from where the converter wrote the template's members (decodeConverted); top nil is
// none. (A value in filteredBody: a request allocates nothing more for it.)
type convertedYAML struct {
	json []byte
	top  *positions.Top
	// kept says the body was left as YAML for the decoder, its one document repeating a key
	// (which only the YAML decoder words, and the JSON would not show); strict is then what
	// the YAML decoder's strict conversion says of those keys (nil: nothing), which a strict
	// decoder adds to the JSON decoder's words.
	kept   bool
	strict error
}
