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

package render

import (
	"encoding/json"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/provenance"
)

// Output is the result of processing.
type Output struct {
	// Objects are the processed objects, each one JSON object, in template (and destination)
	// order.
	Objects []json.RawMessage
	// Message is the template's message with parameters substituted.
	Message string
	// Parameters are the template's parameters with the values used, generated ones included.
	Parameters []templates.Parameter
	// Warnings are problems that did not stop processing.
	Warnings []string
	// Labels are the template's own labels, substituted, when Input.TemplateLabels asks.
	Labels map[string]string
	// Imported are the Templates that transformersFrom read, imports of imports included, in
	// the order read: whoever acts on the objects must know whose content shaped them.
	Imported []*templates.Template
	// Provenance is where every leaf field of every object came from, when Input.Provenance
	// asked.
	Provenance *provenance.Map

	// written is what processing wrote, whose List is Objects' when no step changed them.
	written *process.Result
}

// List returns the objects as the bytes of a v1 List. When no step after processing changed
// the objects, the List is the buffer processing wrote them in, which their bytes share.
func (o *Output) List() []byte {
	if o.written != nil {
		return o.written.ListOf(o.Objects)
	}
	return process.ListBytes(o.Objects)
}

// ReleaseList gives the List the engine wrote the objects in, and the room of the parameters,
// back for the next processing, when the Input asked for it (Input.ReleasedOutput). The caller
// must be done with o's objects and parameters and with every slice of them: their bytes become
// another request's. o forgets its objects and parameters first. Nothing happens to any other Output, nor the second time.
func (o *Output) ReleaseList() {
	if o == nil || o.written == nil {
		return
	}
	written := o.written
	o.written, o.Objects, o.Parameters = nil, nil, nil
	written.ReleaseList()
}
