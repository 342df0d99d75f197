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

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/process"
)

// decodeConverted decodes a YAML body the body filter converted to JSON (body) as the JSON
// decoder would (strict or not), from where the converter wrote the template's members: the
// decoder would scan the JSON again to find them (templateCodec), a tenth of what the server
// adds to the engine on a YAML template. It returns decoded false, having done nothing a
// client could see, for the decoder to decode the body: a body not converted, one the
// converter's positions do not split as the scan would, and one that does not decode (the
// decoder words its errors). A strict decoder's words come back as the decoder returns them,
// with the Template.
//
// A YAML body whose one document repeats a key stays YAML for the YAML decoder (body), which
// would convert it twice more: to read it, and strictly for its words on the keys. The body
// filter kept its conversion and those words: decoded from the conversion, the template has
// them first among its strict words, as the YAML decoder lists them (withRepeatedKeys).
//
// r is the request's: the Template is decoded into r.template, its kind written into
// r.decodedKind, r.kind is the decoder's default kind.
func (h *processingHandler) decodeConverted(req *http.Request, strict bool, r *processingRequest) (_ runtime.Object, _ *schema.GroupVersionKind, _ error, decoded bool) {
	conversion := bodyConversion(req)
	if conversion == nil || h.splitters == nil {
		return nil, nil, nil, false
	}
	split, err := process.SplitTemplateJSONTop(conversion.json, conversion.top)
	if err != nil {
		return nil, nil, nil, false
	}
	splitter := &h.splitters[0]
	if strict {
		splitter = &h.splitters[1]
	}
	obj, gvk, err, done := splitter.decodeSplit(split, &r.kind, &r.template, &r.decodedKind)
	if !done || err != nil && !runtime.IsStrictDecodingError(err) {
		return nil, nil, nil, false
	}
	if conversion.kept && strict {
		err = withYAMLWords(conversion.strict, err)
	}
	// The versioning codec defaults what it decoded into, with the same scheme.
	splitter.scheme.Default(obj)
	return obj, gvk, err, true
}
