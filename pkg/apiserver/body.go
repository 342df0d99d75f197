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
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"os"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// Every request's body is read here, before the API machinery reads it, so that:
//   - it is charged to the request's Hold (renderrest) while it is read, and what decoding it
//     will hold is charged before the handler decodes it (bodyCost): the memory of requests in
//     flight is bounded whatever their bodies, and a body that does not fit waits its turn or
//     is told to come back (429), as processing is;
//   - reading it ends at the request's deadline (a client that sends a byte a second holds
//     nothing past it), and so does writing the answer, a little after it (writeGrace, which
//     leaves the timeout filter its 504), so that a client that never reads its answer does
//     not hold what the answer holds past its request: the write fails, the handler returns
//     and the Hold is released;
//   - a YAML body is converted to JSON here, by pkg/positions, whose aliases are bounded in
//     bytes: an expansion past positions.MaxJSONBytes is a 413, and no YAML reader of the API
//     machinery (sigs.k8s.io/yaml in its decoders and in server-side apply) ever sees the
//     YAML. A YAML body that is not one document without repeated keys is left as it is for
//     the decoder, which says what is wrong with it (oneYAMLDocument), through pkg/positions
//     as well.

// writeGrace is how long after the request's deadline its body may still be read and its
// answer written: the timeout filter's own 504 is written at the deadline, and must get out.
const writeGrace = 5 * time.Second

// What a body holds, per byte and per token, measured on the shapes that cost most
// (TestBodyCostCoversDecoding measures them again).
const (
	// readFactor covers the body as it is read: the buffer, the one it grew from, and the
	// copy the API handler reads it into.
	readFactor = 3
	// yamlFactor covers converting a YAML body to JSON: the reader's nodes and the JSON it
	// writes, up to positions.MaxJSONBytes of the body, with the buffers it grows from; or
	// sigs.k8s.io/yaml's nodes and values, for the YAML the fast reader leaves to it.
	// Measured: 34 per byte for one-byte scalars, in flow or block style, on either path.
	yamlFactor = 40
	// yamlLevelBytes covers what sigs.k8s.io/yaml holds per level of nesting, which costs
	// about 1,150 bytes a level however small the levels are (5.7 MB for 5,000 levels in a
	// body of 10 KB), up to the 10,000 it reads (the fast reader leaves documents nested
	// deeper than 1,000 to it). A level needs a [, {, - or colon: their count bounds the
	// levels.
	yamlLevelBytes = 1300
	// jsonByteFactor and jsonTokenFactor cover decoding a JSON body into the API's types,
	// checking it and answering it, per byte and per structural byte ({, [, comma, colon: a
	// bound on its values and members): a RawExtension per object, a map entry per member,
	// the Template's checks, the stored and answered copies. Measured: 11 to 14 per byte for
	// long strings (the most when a YAML body's aliases repeat one, its samples spread by when
	// the collector runs); 15 per byte (20 per token) for objects of short members.
	jsonByteFactor  = 15
	jsonTokenFactor = 32
	// jsonLevelBytes covers what decoding and checking hold per level of nesting (about 200
	// bytes: 1 MB for 5,000 levels in 10 KB), up to the 10,000 levels the decoders read; a
	// level needs a [ or a {.
	jsonLevelBytes = 256
	// maxLevels is the deepest nesting the decoders read (encoding/json's and libyaml's).
	maxLevels = 10000
	// objectBytes covers what a Template's checks hold per object, however small (750 bytes
	// for an empty one: compiling it, and the problems found in it), for as many objects as a
	// Template may have (templates.MaxObjects); a JSON object needs a {.
	objectBytes = 1024
)

// yamlCost is what converting a YAML body holds, besides the body.
func yamlCost(body []byte) int64 {
	return yamlFactor*int64(len(body)) + yamlLevelBytes*min(count(body, "[{-:"), maxLevels)
}

// bodyCost is what a body held as read (its bytes) holds once its JSON is decoded.
func bodyCost(read, asJSON []byte) int64 {
	// Each byte is counted once: the counts are passes over the whole body.
	braces, brackets, separators := count(asJSON, "{"), count(asJSON, "["), count(asJSON, ",:")
	return readFactor*int64(len(read)) + jsonByteFactor*int64(len(asJSON)) + jsonTokenFactor*(braces+brackets+separators) +
		jsonLevelBytes*min(braces+brackets, maxLevels) + objectBytes*min(braces, templates.MaxObjects)
}

// count counts the bytes of data that are any of set.
func count(data []byte, set string) int64 {
	n := 0
	for i := range len(set) {
		n += bytes.Count(data, []byte{set[i]})
	}
	return int64(n)
}

// errBodyDeadline is the end of reading a body at its request's deadline, which the timeout
// filter answers (504), maybe a moment after: the read deadline and the request's context end
// at the same time, on timers of their own.
var errBodyDeadline = errors.New("the request's deadline passed while its body was read")

// bodyReader reads, charges and converts request bodies before handler does.
type bodyReader struct {
	handler http.Handler
	// maxBytes is the server's MaxRequestBodyBytes: the most a body may be.
	maxBytes int64
	codecs   runtime.NegotiatedSerializer
	// grace is writeGrace (tests shorten it).
	grace time.Duration
	// mayFinish says whether handler may finish the body of a request (finishBody), for its
	// JSON to be read into a buffer used again; nil: no handler does.
	mayFinish func(*http.Request) bool
	// finishedGivenBack, when set (by tests), hears of each finished body given back.
	finishedGivenBack func()
}

// withBodies wraps handler with the bodyReader of maxBytes, whose refusals are encoded by
// codecs. mayFinish says which requests' bodies handler may finish (nil: none).
func withBodies(handler http.Handler, maxBytes int64, codecs runtime.NegotiatedSerializer, mayFinish func(*http.Request) bool) http.Handler {
	if maxBytes <= 0 {
		// No limit of the server's own: the memory's bounds the body (Charge's 413).
		maxBytes = math.MaxInt64 / 4
	}
	return &bodyReader{handler: handler, maxBytes: maxBytes, codecs: codecs, grace: writeGrace, mayFinish: mayFinish}
}

func (b *bodyReader) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	control := http.NewResponseController(w)
	if deadline, ok := ctx.Deadline(); ok {
		// Errors mean the writer cannot (a test's recorder): nothing to bound then. Both end
		// a little after the deadline: the timeout filter answers 504 at the deadline, which
		// it could not if this handler ended first (net/http would answer an empty 200).
		_ = control.SetReadDeadline(deadline.Add(b.grace))
		_ = control.SetWriteDeadline(deadline.Add(b.grace))
		// An HTTP/1 connection keeps its write deadline for its next request, which may have
		// none (a watch): a short one is left for flushing what is buffered, and a request
		// without a deadline clears it (below).
		defer func() { _ = control.SetWriteDeadline(time.Now().Add(b.grace)) }()
	} else {
		_ = control.SetWriteDeadline(time.Time{})
	}
	hold := renderrest.HoldFrom(ctx)
	if hold == nil || r.Body == nil || r.Body == http.NoBody {
		b.handler.ServeHTTP(w, r)
		return
	}
	mediaType := bodyMediaType(r)
	// A YAML body is read into a buffer used again once its conversion is all the handler
	// reads, and so is the JSON body of a processing POST once the processing handler has
	// finished it (body_pool.go).
	yamlBody, jsonBody := mediaType == runtime.ContentTypeYAML, mediaType == runtime.ContentTypeJSON
	mayFinish := (yamlBody || jsonBody) && b.mayFinish != nil && b.mayFinish(r)
	read, recycled, err := b.read(r, hold, yamlBody || jsonBody && mayFinish)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, errBodyDeadline) {
			// When the request ended, the timeout filter answers it.
			b.refuse(w, r, err)
		}
		return
	}
	// The JSON a YAML body converts to is written into a buffer of the pools too when the
	// handler may finish it: the processing handler decodes it as it decodes a JSON body.
	// (Its buffer is held by the body filtered, allocated for each request anyway.)
	filtered := &filteredBody{}
	body, conversion, err := b.decodable(r, hold, mediaType, read, filtered, mayFinish)
	if err != nil {
		filtered.converted.give()
		b.refuse(w, r, err)
		return
	}
	if yamlBody && conversion.top != nil && !conversion.kept {
		// Converted: nothing reads the YAML again.
		giveBody(recycled)
		recycled = nil
	}
	filtered.set(body, conversion)
	r.Body = filtered
	r.ContentLength = int64(len(body))
	// Set, without canonicalizing its key, in the request's own filteredBody (no allocation).
	filtered.contentLength[0] = strconv.Itoa(len(body))
	r.Header["Content-Length"] = filtered.contentLength[:]
	b.handler.ServeHTTP(w, r)
	// Only once the handler has returned, and only when the processing handler said it
	// finished the body: nothing holds its bytes then (body_finish.go). A handler that
	// panicked or was cut by its deadline never gets here with its body finished.
	if (recycled != nil || filtered.converted.buf != nil) && filtered.finished {
		giveBody(recycled)
		filtered.converted.give()
		filtered.forget()
		if b.finishedGivenBack != nil {
			b.finishedGivenBack()
		}
	}
}

// read reads r's body up to one byte past maxBytes (the handler then answers 413 as it
// always does), charging hold for each buffer before it is allocated. With recycle, the
// buffer it starts with comes from the pools (body_pool.go), and recycled is it when the body
// is read into it (nil otherwise), for the caller to give back once nothing reads the body.
func (b *bodyReader) read(r *http.Request, hold *renderrest.Hold, recycle bool) (_ []byte, recycled *[]byte, _ error) {
	if r.ContentLength > b.maxBytes {
		return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", b.maxBytes))
	}
	limit := b.maxBytes + 1
	size := int64(64 << 10)
	if r.ContentLength > 0 {
		// What the client says it sends; a client that sends less holds it only until its
		// deadline.
		size = r.ContentLength + 1
	}
	size = min(size, limit)
	if err := hold.Charge(r.Context(), readFactor*size); err != nil {
		return nil, nil, err
	}
	var buf []byte
	if recycle {
		recycled = takeBody(size)
	}
	if recycled != nil {
		// Its capacity is size, as the buffer made below: the reads are the same.
		buf = (*recycled)[:0:size]
	} else {
		buf = make([]byte, 0, size)
	}
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= limit {
				return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", b.maxBytes))
			}
			size = min(2*int64(cap(buf)), limit)
			if err := hold.Charge(r.Context(), readFactor*size); err != nil {
				return nil, nil, err
			}
			buf = append(make([]byte, 0, size), buf...)
			// The body is in a buffer of its own now.
			giveBody(recycled)
			recycled = nil
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if int64(len(buf)) > b.maxBytes {
				return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", b.maxBytes))
			}
			return buf, recycled, nil
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, nil, errBodyDeadline
		}
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the request's body could not be read: %v", err))
		}
	}
}

// bodyMediaType is the media type of r's body, without its parameters.
func bodyMediaType(r *http.Request) string {
	switch contentType := headerValue(r.Header, "Content-Type"); contentType {
	case runtime.ContentTypeJSON, runtime.ContentTypeYAML:
		// What clients send, as parsing it would give it (without a map for parameters).
		return contentType
	default:
		mediaType, _, _ := mime.ParseMediaType(contentType)
		return mediaType
	}
}

// decodable returns the body the handler decodes, having charged hold with what decoding it
// holds: a YAML body as JSON when it converts to one without loss, anything else as it is.
//
// A YAML body converted comes with its conversion (where the converter wrote its top-level
// members), for the processing handler's decoding not to scan the JSON again; so does a YAML
// body left as it is for one document that repeats a key, with the YAML decoder's words on
// them when the converter has them (nil otherwise).
//
// With pooled, the JSON a YAML body converts to is copied into a buffer of the pools, which
// filtered.converted holds while the JSON does (and gives back at once otherwise).
func (b *bodyReader) decodable(r *http.Request, hold *renderrest.Hold, mediaType string, body []byte, filtered *filteredBody, pooled bool) (_ []byte, _ convertedYAML, _ error) {
	converted := &filtered.converted
	switch mediaType {
	case runtime.ContentTypeYAML, "application/apply-patch+yaml":
	default:
		return body, convertedYAML{}, hold.Charge(r.Context(), bodyCost(body, body))
	}
	if err := hold.Charge(r.Context(), readFactor*int64(len(body))+yamlCost(body)); err != nil {
		return nil, convertedYAML{}, err
	}
	var into positions.JSONMemory
	if pooled && mediaType == runtime.ContentTypeYAML {
		into = converted
	}
	asJSON, conversion, ok, err := yamlBodyAsJSON(body, into)
	converted.keepFor(asJSON, conversion, ok)
	if err != nil {
		return nil, convertedYAML{}, apierrors.NewRequestEntityTooLargeError(err.Error())
	}
	if mediaType != runtime.ContentTypeYAML {
		// An apply patch stays one (JSON is YAML), which server-side apply reads with
		// sigs.k8s.io/yaml, now without aliases; only the processing handler decodes from a
		// conversion, and it takes no patch.
		conversion = convertedYAML{}
	}
	if !ok {
		// Left to the decoder, which converts it again (bounded as here): what it holds then
		// is that of the JSON it makes, besides the YAML. The conversion kept beside it is that
		// JSON.
		return body, conversion, hold.Charge(r.Context(), readFactor*int64(len(body))+yamlCost(body)+bodyCost(body, asJSON))
	}
	if mediaType == runtime.ContentTypeYAML {
		// JSON for the JSON decoder (set as Content-Length is).
		filtered.contentType[0] = runtime.ContentTypeJSON
		r.Header["Content-Type"] = filtered.contentType[:]
	}
	return asJSON, conversion, hold.Charge(r.Context(), bodyCost(asJSON, asJSON))
}

// refuse answers err as the API does.
func (b *bodyReader) refuse(w http.ResponseWriter, r *http.Request, err error) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		err = apierrors.NewBadRequest(err.Error())
	}
	responsewriters.ErrorNegotiated(err, b.codecs, schema.GroupVersion{}, w, r)
}

// yamlBodyAsJSON converts a YAML body to JSON as the YAML decoder would read it, when nothing
// is lost: one document that is not empty, no key repeated (which a strict decoder refuses
// or warns of, and the JSON would not show). ok false leaves the body to the decoder; err is
// an expansion positions refuses. conversion is the JSON with where its members lie, when the
// fast reader read the body: for ok, or for a document that repeats a key whose strict words
// it has.
func yamlBodyAsJSON(data []byte, into positions.JSONMemory) (out []byte, conversion convertedYAML, ok bool, err error) {
	// The stream read once: its documents found and the one that is not empty converted in
	// the same pass (a body of several documents is the decoder's to refuse).
	if s, read := positions.OnlyDocumentStrictInto(data, into); read {
		ok = s.Documents <= 1 && !s.Repeats
		switch {
		case s.Top == nil:
		case ok:
			conversion = convertedYAML{json: s.JSON, top: s.Top}
		case s.Documents == 1 && s.StrictKnown:
			conversion = convertedYAML{json: s.JSON, top: s.Top, kept: true, strict: s.Strict}
		}
		return s.JSON, conversion, ok, nil
	}
	doc, err := onlyDocument(data)
	if err != nil {
		var expansion *positions.ExpansionError
		if errors.As(err, &expansion) {
			return nil, convertedYAML{}, false, err
		}
		return nil, convertedYAML{}, false, nil
	}
	out, repeats, err := positions.YAMLToJSONRepeats(doc)
	var expansion *positions.ExpansionError
	switch {
	case errors.As(err, &expansion):
		return nil, convertedYAML{}, false, err
	case err != nil || repeats:
		return out, convertedYAML{}, false, nil
	}
	return out, convertedYAML{}, true, nil
}
