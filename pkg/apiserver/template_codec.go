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
	"io"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
)

// templateCodec is the JSON serializer of our groups with one pass for Templates and Lists.
//
// Decoding a Template (ours, OpenShift's, the legacy v1: every body of processedtemplates, and
// of templates' create and update) into the internal type, the API machinery reads the body
// twice before processing reads its objects a third time: encoding/json parses all of it to
// find its kind (json.Serializer's Interpret), then the typed decoder parses all of it again,
// every object included, into RawExtensions. templateCodec reads it the way the engine reads a
// template (process.SplitTemplateJSON): one scan of the top level finds apiVersion and kind
// where they stand and the end of each object, whose bytes become the RawExtensions as they
// are; only the small rest goes through a decoder (the engine's lean readers, or the API's
// typed decoder). It then defaults and converts the versioned Template through the scheme,
// as the codec would, so the internal Template and its conversion checks are the codec's;
// an OpenShift Template's parameters, which the lean reader reads straight into the internal
// type, go through the same conversion's openshift.DecodeWithParameters instead, which does
// not copy them.
//
// It stands in only for bodies it reads exactly as the serializer does: a body whose top level
// does not scan, whose kind is not a Template, or in which a strict decoder has something to
// say (a member unknown or repeated outside the objects) is decoded by the serializer itself,
// which says what it says. What differs is where the objects' syntax is checked: by the
// engine's compiler, which names the object, rather than by the decoder.
//
// Encoding a v1 List (the answer of processing), it writes what encoding/json's Encoder
// writes without encoding/json's check and compaction of every item's bytes (see encodeList).
type templateCodec struct {
	runtime.Serializer
	scheme *runtime.Scheme
	strict bool
}

// Decode decodes a Template body into into, a *templates.Template, in one scan (see
// templateCodec); anything else is the serializer's.
func (c templateCodec) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	internal, ok := into.(*templates.Template)
	if !ok {
		return c.Serializer.Decode(data, defaults, into)
	}
	split, err := process.SplitTemplateJSON(data)
	if err != nil {
		return c.Serializer.Decode(data, defaults, into)
	}
	if obj, gvk, err, done := c.decodeSplit(split, defaults, internal, new(schema.GroupVersionKind)); done {
		return obj, gvk, err
	}
	return c.Serializer.Decode(data, defaults, into)
}

// decodeSplit decodes the Template whose top level split holds into internal, as Decode
// does, and returns done; done is false when the serializer must decode the body itself
// (having changed nothing it could see). The kind it returns is written into kind, the
// caller's (the processing handler's request keeps it: a kind of its own would be an
// allocation a request).
func (c templateCodec) decodeSplit(split *process.TemplateJSON, defaults *schema.GroupVersionKind, internal *templates.Template, kind *schema.GroupVersionKind) (_ runtime.Object, _ *schema.GroupVersionKind, _ error, done bool) {
	if n := split.ParametersPast(templates.MaxEntries); n > 0 {
		// Refused before any parameter is decoded, here or by the serializer (which would
		// hold about 270 bytes for each byte of a body of empty parameters), in the
		// conversion's words, with the kind the body names.
		err := templates.EntryErrors(templates.EntryCount{Path: "parameters", N: n}).ToAggregate()
		if gv, perr := schema.ParseGroupVersion(split.APIVersion()); perr == nil {
			*kind = gv.WithKind(split.Kind())
			if defaults != nil {
				*kind = withDefaults(*kind, *defaults)
			}
			return nil, kind, err, true
		}
		return nil, nil, err, true
	}
	if split.KindFolded() || split.Repeated() {
		// The serializer also checks the values a repeated member replaces.
		return nil, nil, nil, false
	}
	gv, err := schema.ParseGroupVersion(split.APIVersion())
	if err != nil {
		// The serializer refuses an apiVersion it cannot parse ("a/b/c"), in its words.
		return nil, nil, nil, false
	}
	gvk := gv.WithKind(split.Kind())
	if defaults != nil {
		gvk = withDefaults(gvk, *defaults)
	}
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, nil, nil, false
	}
	var versioned runtime.Object
	// strictErrs is what a strict decoder says of the body besides decoding it (a member the
	// type does not have: a misspelled parameter member), which the versioning codec passes
	// on as the serializer's, for the handler to refuse or warn of.
	var strictErrs []error
	ok := false
	// The parameters of an OpenShift Template, read straight into the internal type (see
	// ReadOpenShift): its conversion takes them without the copy the scheme's would make.
	var openShift *openshift.Template
	var openShiftParams []templates.Parameter
	// The type the scheme would make for gvk (as scheme.New does, without making one).
	switch c.scheme.AllKnownTypes()[gvk] {
	case stencilTemplateType:
		var t *v1alpha1.Template
		if c.strict {
			t, strictErrs, ok = split.ReadStencilStrict()
		} else {
			t, ok = split.ReadStencil(false)
		}
		versioned = t
	case openShiftTemplateType:
		if c.strict {
			openShift, openShiftParams, strictErrs, ok = split.ReadOpenShiftStrict()
		} else {
			openShift, openShiftParams, ok = split.ReadOpenShift(false)
		}
		versioned = openShift
	}
	if !ok {
		return nil, nil, nil, false
	}
	// What the versioning codec does with the serializer's answer.
	c.scheme.Default(versioned)
	var context interface{}
	if split.ObjectNumbersFit() {
		// The split scan read every number of the objects: the conversion need not again.
		context = templates.ObjectNumbersRead
	}
	*kind = gvk
	if openShift != nil {
		// The scheme's conversion of an OpenShift Template, given the parameters read apart.
		err = openshift.DecodeWithParameters(openShift, openShiftParams, internal, context == templates.ObjectNumbersRead)
	} else {
		err = c.scheme.Convert(versioned, internal, context)
	}
	if err != nil {
		return nil, kind, err, true
	}
	if len(strictErrs) > 0 {
		return internal, kind, runtime.NewStrictDecodingError(strictErrs), true
	}
	return internal, kind, nil, true
}

var (
	stencilTemplateType   = reflect.TypeFor[v1alpha1.Template]()
	openShiftTemplateType = reflect.TypeFor[openshift.Template]()
)

// withDefaults fills what actual lacks from defaults, as the JSON serializer does: a kind, and
// a version (with its group) when actual has neither.
func withDefaults(actual, defaults schema.GroupVersionKind) schema.GroupVersionKind {
	if actual.Kind == "" {
		actual.Kind = defaults.Kind
	}
	if actual.Version == "" && actual.Group == "" {
		actual.Group, actual.Version = defaults.Group, defaults.Version
	}
	if actual.Version == "" && actual.Group == defaults.Group {
		actual.Version = defaults.Version
	}
	return actual
}

// Encode writes a v1 List as encodeList does, anything else as the serializer does.
func (c templateCodec) Encode(obj runtime.Object, w io.Writer) error {
	if list, ok := obj.(*v1alpha1.List); ok && listItemsRaw(list) {
		return encodeList(list, w)
	}
	return c.Serializer.Encode(obj, w)
}

// listItemsRaw reports whether every item of list is held as its bytes.
func listItemsRaw(list *v1alpha1.List) bool {
	for _, item := range list.Items {
		if item.Raw == nil || item.Object != nil {
			return false
		}
	}
	return true
}

// listHead and listTail are the members of a v1 List around its items, in its order.
type listHead struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
}

type listTail struct {
	Message    string               `json:"message,omitempty"`
	Parameters []v1alpha1.Parameter `json:"parameters,omitempty"`
	Provenance *v1alpha1.Provenance `json:"provenance,omitempty"`
}

// encodeList writes list as json.NewEncoder(w).Encode(list) writes it (the JSON serializer's
// encoding): its members in order, HTML characters escaped, a newline at the end. Its items
// are processing's output, which the engine and the transformers' encoder write valid and
// compact: encoding/json would check and compact each item's bytes again (what it does with
// whatever a json.Marshaler returns); they are copied as they are instead, escaping only what
// encoding/json escapes in them.
func encodeList(list *v1alpha1.List, w io.Writer) error {
	size := len(list.Kind) + len(list.APIVersion) + 64 + listTailSize(list)
	for _, item := range list.Items {
		size += len(item.Raw) + 1
	}
	buffer := listBuffer(size)
	defer putListBuffer(buffer)
	out, err := appendListHead(*buffer, list)
	if err != nil {
		return err
	}
	if out[len(out)-1] != '{' {
		out = append(out, ',')
	}
	out = append(out, `"items":`...)
	if list.Items == nil {
		out = append(out, "null"...)
	} else {
		out = append(out, '[')
		for i, item := range list.Items {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendHTMLEscaped(out, item.Raw)
		}
		out = append(out, ']')
	}
	if out, err = appendListTail(out, list); err != nil {
		return err
	}
	out = append(out, '}', '\n')
	*buffer = out // grown, perhaps: the larger array is the one kept
	_, err = w.Write(out)
	return err
}

// listBuffers keep the buffers encodeList writes answers into: a Writer does not keep what it
// is given (io.Writer's contract; the response writers copy or compress it), so each is used
// again by the next answer instead of being garbage, up to maxPooledList. What is kept is the
// pointer the pool gave (a pointer made for each Put would be an allocation an answer).
var listBuffers sync.Pool

// maxPooledList is the largest buffer kept: an answer larger than that is rare, and keeping
// its buffer would hold its memory outside the processing budget.
const maxPooledList = 256 << 10

// listBuffer returns an empty buffer of at least size bytes.
func listBuffer(size int) *[]byte {
	if size <= maxPooledList {
		if b, ok := listBuffers.Get().(*[]byte); ok && cap(*b) >= size {
			*b = (*b)[:0]
			return b
		}
	}
	b := make([]byte, 0, size)
	return &b
}

// putListBuffer keeps b for another answer.
func putListBuffer(b *[]byte) {
	if cap(*b) <= maxPooledList {
		listBuffers.Put(b)
	}
}

// appendHTMLEscaped appends compact JSON src to dst, with <, >, & and the line and paragraph
// separators escaped as encoding/json escapes them (they can only be inside strings).
func appendHTMLEscaped(dst, src []byte) []byte {
	if bytes.IndexByte(src, '<') < 0 && bytes.IndexByte(src, '>') < 0 && bytes.IndexByte(src, '&') < 0 && bytes.IndexByte(src, 0xE2) < 0 {
		return append(dst, src...)
	}
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			// U+2028 and U+2029.
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
