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

package process

import (
	"encoding/json"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Dialect names the rules a Template is processed by.
type Dialect int

const (
	// Stencil is the dialect of templates.stencil.dev Templates.
	Stencil Dialect = iota
	// OpenShift is the dialect of template.openshift.io/v1 Templates and of the legacy
	// "apiVersion: v1, kind: Template" spelling.
	OpenShift
)

// String returns the dialect's name.
func (d Dialect) String() string {
	if d == OpenShift {
		return "OpenShift"
	}
	return "Stencil"
}

// Request holds one caller's input to Plan.Execute.
type Request struct {
	// Parameters are the caller's values by parameter name; they win over defaults.
	Parameters map[string]string
	// FromSecret names the parameters whose values were read from a Secret: no error quotes
	// them, whatever the template declares (redact.Secret).
	FromSecret map[string]bool
	// Labels are extra object labels, merged over the template's own.
	Labels map[string]string
	// IgnoreUnknownParameters accepts values for parameters the template does not declare.
	IgnoreUnknownParameters bool
	// Generator is the randomness behind generated values; nil means crypto/rand.
	Generator Generator
	// MaxOutputBytes bounds the size of the processed objects, message and configs; zero
	// means DefaultMaxOutputBytes.
	MaxOutputBytes int
	// Grow, when set, makes MaxOutputBytes where the output's limit starts: once the output
	// (the values included) would pass it, Execute asks Grow for a limit of at least size
	// bytes, and Grow answers the new limit, or one below size to stop there (the problem then
	// names the limit the output had). A server grows what a request holds so, as its output
	// grows, instead of processing it again with a larger limit.
	Grow func(size int) int
	// Provenance makes Execute remember which template object (and for-each element) wrote
	// each output object, for Plan.Trace; without it Execute keeps nothing more.
	Provenance bool
	// PooledList writes the objects into a List taken from a pool, and the parameters into
	// room taken from one, which the caller gives back (Result.ReleaseList) once nothing reads
	// the objects or the parameters any more.
	PooledList bool
}

// Result is the output of processing.
type Result struct {
	// Objects are the processed objects in template order, each one compact JSON object.
	Objects []json.RawMessage
	// Message is the template's message with parameters substituted.
	Message string
	// Parameters are the template's parameters with their final values, generated ones included.
	Parameters []templates.Parameter
	// Warnings are problems that did not stop processing.
	Warnings []string
	// Generators are the template's generator configs with parameters substituted.
	Generators []json.RawMessage
	// Transformers are the template's transformer configs with parameters substituted.
	Transformers []json.RawMessage
	// TransformerOverrides are the template's transformer overrides with parameters substituted.
	TransformerOverrides []json.RawMessage

	// origins say which template object wrote each object, when Request.Provenance asked.
	origins []origin
	// list is the buffer Execute wrote the objects in, a v1 List around them, and bounds the
	// offsets of each object in it, for ListOf.
	list   []byte
	bounds []int
	// pooledList holds list for the pool when Request.PooledList asked (ReleaseList), and
	// pooledParameters the room of Parameters.
	pooledList       *[]byte
	pooledParameters *[]templates.Parameter
}

// ListOf returns the bytes of a v1 List of objects, as ListBytes does. When objects are the
// objects r's Execute wrote (none replaced, dropped or added since; a change made in place is
// in the List too, which shares their memory), the List is the buffer they were written in,
// not a copy: a copy of every object's bytes was most of what writing a List allocated.
func (r *Result) ListOf(objects []json.RawMessage) []byte {
	if r.list == nil || len(objects) != len(r.bounds)/2 {
		return ListBytes(objects)
	}
	at := len(listPrefix)
	for i, o := range objects {
		if i > 0 {
			at++ // the comma
		}
		start, end := r.bounds[2*i], r.bounds[2*i+1]
		if start != at || len(o) != end-start || len(o) == 0 || &o[0] != &r.list[start] {
			return ListBytes(objects)
		}
		at = end
	}
	if at+len(listSuffix) != len(r.list) {
		return ListBytes(objects)
	}
	return r.list
}

// listPrefix and listSuffix wrap the objects of a processed template into a v1 List.
const (
	listPrefix = `{"apiVersion":"v1","kind":"List","items":[`
	listSuffix = `]}`
)

// ListBytes wraps JSON objects, as they are, into the bytes of a v1 List.
func ListBytes(objects []json.RawMessage) []byte {
	size := len(listPrefix) + len(listSuffix) + len(objects)
	for _, o := range objects {
		size += len(o)
	}
	out := make([]byte, 0, size)
	out = append(out, listPrefix...)
	for i, o := range objects {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, o...)
	}
	return append(out, listSuffix...)
}
