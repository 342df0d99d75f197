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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// TestListEncoderWritesAsTheCodec: the processing handler's JSON encoder writes a List itself
// (listEncoder), and what it writes, for the processed List and for Lists it leaves to the
// versioning codec (another kind, items not raw, list metadata), is the codec's, byte for byte;
// the List's kind is what it was.
func TestListEncoderWritesAsTheCodec(t *testing.T) {
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{})))
	encoder, ok := pair.fastHandler.encoders[runtime.ContentTypeJSON].(listEncoder)
	if !ok {
		t.Fatalf("the JSON encoder is %T, not a listEncoder", pair.fastHandler.encoders[runtime.ContentTypeJSON])
	}
	if want := (metav1.TypeMeta{APIVersion: "v1", Kind: "List"}); encoder.listType != want {
		t.Fatalf("listType %v, want %v", encoder.listType, want)
	}
	raw := func(s string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(s)} }
	lists := []*v1alpha1.List{
		{TypeMeta: encoder.listType, Items: []runtime.RawExtension{raw(`{"a":"<b>"}`)}, Message: "m",
			Parameters: []v1alpha1.Parameter{{Name: "A", Value: "&", Description: "d\u2028"}}},
		{TypeMeta: encoder.listType},
		{Items: []runtime.RawExtension{raw(`{}`)}},
		{TypeMeta: metav1.TypeMeta{APIVersion: "v2", Kind: "List"}, Items: []runtime.RawExtension{raw(`{}`)}},
		{TypeMeta: encoder.listType, Items: []runtime.RawExtension{{Object: &v1alpha1.Template{}}}},
		{TypeMeta: encoder.listType, ListMeta: metav1.ListMeta{ResourceVersion: "7"}, Items: []runtime.RawExtension{raw(`[1]`)}},
	}
	for _, list := range lists {
		before := list.TypeMeta
		var fast, codec bytes.Buffer
		errFast := encoder.Encode(list, &fast)
		if list.TypeMeta != before {
			t.Errorf("%v: the encoder changed the kind to %v", before, list.TypeMeta)
		}
		errCodec := encoder.Encoder.Encode(list, &codec)
		if (errFast == nil) != (errCodec == nil) || fast.String() != codec.String() {
			t.Errorf("%v: the List encoder wrote %q (%v), the codec %q (%v)", before, fast.String(), errFast, codec.String(), errCodec)
		}
	}
}
