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
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/positions"
)

// wordedDecodeErrors is the serializers of our groups with type errors worded about the
// template. The JSON decoder says "json: cannot unmarshal number into Go struct field
// Parameter.parameters.maximum of type string", which names Go types and no index; a body
// whose JSON types do not fit is answered instead with each misfit at its field path
// (templates.JSONTypeErrors): "parameters[0].maximum: Invalid value: true: must be a number or
// a string holding one". The API machinery still answers a decode error with a 400.
type wordedDecodeErrors struct {
	runtime.NegotiatedSerializer
	scheme *runtime.Scheme
	// wrapped holds the list SupportedMediaTypes makes, made once (newWordedDecodeErrors):
	// every request asks for it, and the factory's own list never changes.
	wrapped *wrappedInfos
}

type wrappedInfos struct {
	once  sync.Once
	infos []runtime.SerializerInfo
}

// newWordedDecodeErrors wraps codecs' serializers (see wordedDecodeErrors), once.
func newWordedDecodeErrors(codecs runtime.NegotiatedSerializer, scheme *runtime.Scheme) wordedDecodeErrors {
	return wordedDecodeErrors{NegotiatedSerializer: codecs, scheme: scheme, wrapped: &wrappedInfos{}}
}

// SupportedMediaTypes wraps the JSON and YAML decoders, strict and not, and offers no protobuf;
// the YAML ones also
// decode the one object of a stream of documents (oneYAMLDocument). The JSON serializers read
// Templates and write Lists in one pass (templateCodec), and the YAML ones read the JSON they
// convert a body to through them.
func (n wordedDecodeErrors) SupportedMediaTypes() []runtime.SerializerInfo {
	if n.wrapped == nil {
		return n.wrap()
	}
	n.wrapped.once.Do(func() { n.wrapped.infos = n.wrap() })
	return n.wrapped.infos
}

// wrap makes the list SupportedMediaTypes returns.
func (n wordedDecodeErrors) wrap() []runtime.SerializerInfo {
	// A copy: the factory's own list is shared.
	infos := append([]runtime.SerializerInfo(nil), n.NegotiatedSerializer.SupportedMediaTypes()...)
	var asJSON runtime.SerializerInfo
	for i, info := range infos {
		if info.MediaType != runtime.ContentTypeJSON {
			continue
		}
		if info.Serializer != nil {
			info.Serializer = templateCodec{Serializer: info.Serializer, scheme: n.scheme}
		}
		if info.StrictSerializer != nil {
			info.StrictSerializer = templateCodec{Serializer: info.StrictSerializer, scheme: n.scheme, strict: true}
		}
		infos[i], asJSON = info, info
	}
	out := make([]runtime.SerializerInfo, 0, len(infos))
	for _, info := range infos {
		if info.MediaType == runtime.ContentTypeProtobuf {
			// No type of ours has a protobuf encoding: offered, it made every answer a client
			// asked in protobuf first a 500. Left out, as the API server leaves it out for
			// custom resources, such a client gets the JSON it also accepts, or a 406; a
			// protobuf body, a 415.
			continue
		}
		if yamlBody := info.MediaType == runtime.ContentTypeYAML; yamlBody || info.MediaType == runtime.ContentTypeJSON {
			if info.Serializer != nil {
				info.Serializer = wordedDecoder{Serializer: oneDocument(info.Serializer, asJSON.Serializer, false, yamlBody), scheme: n.scheme, yaml: yamlBody}
			}
			if info.StrictSerializer != nil {
				info.StrictSerializer = wordedDecoder{Serializer: oneDocument(info.StrictSerializer, asJSON.StrictSerializer, true, yamlBody), scheme: n.scheme, yaml: yamlBody}
			}
		}
		out = append(out, info)
	}
	return out
}

// oneDocument makes a YAML serializer decode the one object of a stream (oneYAMLDocument),
// read by pkg/positions and decoded by the JSON serializer asJSON (strict or not, as s is).
func oneDocument(s, asJSON runtime.Serializer, strict, yamlBody bool) runtime.Serializer {
	if !yamlBody {
		return s
	}
	if asJSON == nil {
		return oneYAMLDocument{Serializer: s, strict: strict}
	}
	return oneYAMLDocument{Serializer: s, json: asJSON, strict: strict}
}

// wordedDecoder decodes as its Serializer does, and words its type errors.
type wordedDecoder struct {
	runtime.Serializer
	scheme *runtime.Scheme
	yaml   bool
}

// Decode decodes data; a failure to decode (not a strict decoding error, which comes with the
// object) is replaced by the type errors of the body, when it has any.
func (d wordedDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, gvk, err := d.Serializer.Decode(data, defaults, into)
	if err == nil || obj != nil || gvk == nil || gvk.Kind == "" {
		return obj, gvk, err
	}
	example, newErr := d.scheme.New(*gvk)
	if newErr != nil {
		return obj, gvk, err
	}
	body := data
	if d.yaml {
		if body, newErr = onlyDocument(data); newErr != nil {
			return obj, gvk, err
		}
		if body, newErr = positions.YAMLToJSON(body); newErr != nil {
			return obj, gvk, err
		}
	}
	if errs := templates.JSONTypeErrors(body, reflect.TypeOf(example), nil); len(errs) > 0 {
		return nil, gvk, errs.ToAggregate()
	}
	return obj, gvk, err
}
