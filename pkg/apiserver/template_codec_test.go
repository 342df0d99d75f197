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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
	"stencil.dev/stencil/pkg/process"
)

// codecSeeds are Template bodies of every shape the codec meets: ours, OpenShift's and the
// legacy v1, with and without apiVersion and kind, with what a strict decoder warns of, and
// broken ones.
var codecSeeds = []string{
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},"parameters":[{"name":"A","value":"1"}],"objects":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"${A}"}}]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"t","annotations":{"a":"b"}},"labels":{"app":"x"},"message":"m","parameters":[{"name":"A","generate":"expression","from":"[a-z]{4}"}],"objects":[{"kind":"Service"}]}`,
	`{"apiVersion":"v1","kind":"Template","metadata":{"name":"t"},"objects":[]}`,
	`{"kind":"ProcessedTemplate","apiVersion":"templates.stencil.dev/v1alpha1","objects":null,"parameters":null}`,
	`{"metadata":{"name":"no-kind"},"objects":[{}]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","unknown":1,"objects":[]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","objects":[],"objects":[{"a":1}]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","name":"B"}],"objects":[]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","extra":true}]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"labels":{"a":"1","a":"2"}}}`,
	// What a strict decoder warns of, in the parameters, in the rest, in both, around the objects.
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","requred":true},{"name":"B"},{"name":"C","example":"x","displayname":"c"}],"objects":[{"kind":"Service"}]}`,
	`{"apiVersion":"v1","kind":"Template","metadata":{"name":"t","template":"x"},"template":"y","objects":[{"kind":"Service"}],"parameters":[{"name":"A"}]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","extra":1,"parameters":[{"name":"A","extra":true}],"objects":[]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","extra":true}],"extra":1,"objects":[]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","parameters":[{"name":"N","type":"int","default":1},{"name":"M","name":"O"}],"objects":[]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","parameters":[{"name":"N","type":"int","minimum":"x","typo":1}],"objects":[]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","type":"int"}],"parameters":[{"name":"B","typo":1}],"objects":[]}`,
	// Members only our parameters have are members OpenShift's do not: a strict decoder of
	// OpenShift's template words them, and one not strict skips them, whatever their values.
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","type":"int","enum":["1"],"secret":true}],"objects":[]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","type":5,"minimum":"x","items":[]}],"objects":[]}`,
	// Members a parameter does not have, which the strict lean reader words itself: escaped,
	// spelled as a member in other cases, with a value of any shape, inside the parameter's
	// items, in several parameters and after a null one.
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[null,{"Name":"A","typ\u006f":[1,{"a":null}],"value":"v"},{"name":"B","items":{"type":"string","x":1}}],"objects":[]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","parameters":[{"name":"A","a.b":1,"c[0]":{}},{"name":"B","requred":tru}],"objects":[]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","transformers":[{"apiVersion":"builtin","kind":"LabelTransformer","labels":{"a":"b"}}],"objects":[{"a":"<&>\u2028"}]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"TemplateInstance"}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},"objects":[{"a":}]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":1}}`,
	`{"apiVersion":1,"kind":"Template"}`, `[]`, `{`, `{} {}`, `null`, ``,
	// An apiVersion the serializer cannot parse (FuzzTemplateCodec's find).
	`{"apiVersion":"//","":"","":[{"":"","":true}]}`, `{"apiVersion":"a/b/c","kind":"Template","objects":[]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","parameters":[{"name":"N","type":"int","minimum":1,"enum":["1"]}],"objects":[{"spec":{"replicas":"${{N}}"}}]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"annotations":{"templates.stencil.dev/stencil-fields":"{\"dialect\":\"Stencil\"}"}},"objects":[]}`,
	// OpenShift's parameters, which the lean reader reads into the internal type: escapes of
	// every kind, invalid ones and invalid UTF-8 (the serializer's to read or refuse), and
	// Stencil's fields in the annotation, which rewrite them by position and by name, or which
	// the conversion refuses.
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","description":"a \"q\" \\ \/ \n\t\u00e9\ud83d\ude00 \ud800","value":"\u0024{B}"},{"name":"\u00e9"}],"objects":[]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[{"name":"A","description":"\x"}],"objects":[]}`,
	"{\"apiVersion\":\"template.openshift.io/v1\",\"kind\":\"Template\",\"parameters\":[{\"name\":\"A\",\"value\":\"\\n\xff\"}],\"objects\":[]}",
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"annotations":{"templates.stencil.dev/stencil-fields":"{\"dialect\":\"OpenShift\",\"parameters\":[{\"name\":\"A\",\"type\":\"int\",\"minimum\":\"1\"},{\"name\":\"B\",\"enum\":[\"x\"],\"secret\":true}]}"}},"parameters":[{"name":"B","value":"x"},{"name":"A","description":"d\n"},{"name":"C"}],"objects":[]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"annotations":{"templates.stencil.dev/stencil-fields":"{\"parameters\":[{\"name\":\"A\",\"type\":7}]}"}},"parameters":[{"name":"A"}],"objects":[]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":null,"objects":[]}`, `{"apiVersion":"v1","kind":"Template","parameters":[],"objects":[]}`,
	// Numbers in the objects, which the split scan reads for the conversion: some Kubernetes
	// cannot read, some that only look like them, in both dialects.
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","objects":[{"a":1,"b":[2.5,-3]},{"n":1e400,"m":-1e999}]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","objects":[{"s":"1e400","t":"platform.events","n":2.5e3}]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","objects":[{"n":[[1e400]]}],"transformers":[{"n":1e400}]}`,
	`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","objects":[{"n":1}],"generators":[{"n":-1e400}]}`,
	`{"apiVersion":"v1","kind":"Template","objects":[{"n":` + strings.Repeat("9", 309) + `},{"n":` + strings.Repeat("9", 308) + `}]}`,
	`{"apiVersion":"template.openshift.io/v1","kind":"Template","objects":[1e400,{"n":1e400}],"objects":[{"n":1}]}`,
}

// codecDefaults are the kinds a Template body is decoded with by default: processedtemplates
// of both groups, and templates.
var codecDefaults = []schema.GroupVersionKind{
	v1alpha1.SchemeGroupVersion.WithKind("ProcessedTemplate"),
	v1alpha1.SchemeGroupVersion.WithKind("Template"),
	openshift.SchemeGroupVersion.WithKind("Template"),
}

// TestTemplateCodecDecodesAsTheSerializer checks templateCodec against the JSON serializer on
// the seeds, the shared test templates and every layout of them.
func TestTemplateCodecDecodesAsTheSerializer(t *testing.T) {
	for _, in := range codecSeeds {
		checkCodecAgrees(t, []byte(in))
	}
	// More unknown members than the strict decoder keeps words for (100).
	var many bytes.Buffer
	many.WriteString(`{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[`)
	for i := range 60 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"name":"P%d","requred":true,"example":"x"}`, i)
	}
	many.WriteString(`],"objects":[]}`)
	checkCodecOnce(t, many.Bytes())
	// More parameters than a Template may have, which the conversion counts.
	tooMany := `{"apiVersion":"template.openshift.io/v1","kind":"Template","parameters":[` +
		strings.TrimSuffix(strings.Repeat(`{"name":"P"},`, templates.MaxEntries+1), ",") + `],"objects":[]}`
	checkCodecOnce(t, []byte(tooMany))
	files, _ := filepath.Glob(filepath.Join("..", "process", "testdata", "*.json"))
	if len(files) == 0 {
		t.Fatal("no templates in pkg/process/testdata")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		checkCodecAgrees(t, data)
	}
}

// FuzzTemplateCodec checks templateCodec against the JSON serializer, strict and not, with each
// default kind, on arbitrary bodies and on every layout of a JSON body.
//
// Run it with: go test ./pkg/apiserver -run '^$' -fuzz '^FuzzTemplateCodec$' -fuzztime 30s
func FuzzTemplateCodec(f *testing.F) {
	for _, in := range codecSeeds {
		f.Add([]byte(in))
	}
	f.Fuzz(checkCodecAgrees)
}

func checkCodecAgrees(t *testing.T, in []byte) {
	checkCodecOnce(t, in)
	if json.Valid(in) {
		for _, l := range layouttest.Layouts(in) {
			checkCodecOnce(t, l)
		}
	}
}

// checkCodecOnce decodes in into the internal Template as the generic handler does (through
// a codec to the internal version) with the JSON serializer and with templateCodec over it:
// the same object, kind and error (strict decoding errors included, word for word), but where
// the serializer refuses what only the objects' syntax is wrong about, which templateCodec
// leaves to the engine's compiler.
func checkCodecOnce(t *testing.T, in []byte) {
	t.Helper()
	for _, strict := range []bool{false, true} {
		info, _ := runtime.SerializerInfoForMediaType(Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
		plain := info.Serializer
		if strict {
			plain = info.StrictSerializer
		}
		fast := templateCodec{Serializer: plain, scheme: Scheme, strict: strict}
		for _, defaults := range codecDefaults {
			want, wantGVK, wantErr := Codecs.DecoderToVersion(plain, templates.SchemeGroupVersion).Decode(in, &defaults, &templates.Template{})
			got, gotGVK, gotErr := Codecs.DecoderToVersion(fast, templates.SchemeGroupVersion).Decode(in, &defaults, &templates.Template{})
			if wantErr != nil && (gotErr == nil || runtime.IsStrictDecodingError(gotErr)) && objectsInvalid(got) {
				// The objects' syntax is the compiler's to refuse, after what a strict decoder
				// says of the rest.
				continue
			}
			if wantErr != nil && gotErr != nil && !json.Valid(in) && strings.Contains(gotErr.Error(), templates.NumberRangeDetail) {
				// Both refuse a body that is not JSON: the serializer for its syntax, the codec
				// for a number of an object it read, the objects' syntax being the compiler's.
				continue
			}
			if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
				t.Fatalf("%q (strict %v, default %v): serializer error %v, templateCodec error %v", in, strict, defaults, wantErr, gotErr)
			}
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%q (strict %v, default %v):\nserializer   %#v\ntemplateCodec %#v", in, strict, defaults, want, got)
			}
			if !reflect.DeepEqual(wantGVK, gotGVK) {
				t.Fatalf("%q (strict %v, default %v): serializer kind %v, templateCodec kind %v", in, strict, defaults, wantGVK, gotGVK)
			}
		}
	}
}

// objectsInvalid reports whether obj is a Template one of whose objects is not JSON.
func objectsInvalid(obj runtime.Object) bool {
	t, ok := obj.(*templates.Template)
	if !ok {
		return false
	}
	for _, o := range t.Objects {
		if !json.Valid(o.Raw) {
			return true
		}
	}
	return false
}

// TestEncodeListWritesWhatEncodingJSONWrites checks encodeList against the JSON serializer's
// encoding of the same List: items with what encoding/json escapes, empty and nil items, the
// members after them.
func TestEncodeListWritesWhatEncodingJSONWrites(t *testing.T) {
	items := func(raws ...string) []runtime.RawExtension {
		out := make([]runtime.RawExtension, len(raws))
		for i, r := range raws {
			out[i].Raw = []byte(r)
		}
		return out
	}
	lists := []*v1alpha1.List{
		{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: items(`{"a":"b"}`, `{"html":"<a href=\"x\">&amp;</a>","sep":"\u2028\u2029","raw":"`+"\u2028\u2029 \xe2\x80\xa7"+`"}`)},
		{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: items()},
		{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}},
		{Items: items(`{}`, `[]`, `1`)},
		{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, ListMeta: metav1.ListMeta{ResourceVersion: "7"}, Items: items(`{"x":1}`),
			Message: "made <b>", Parameters: []v1alpha1.Parameter{{Name: "A", Value: "&"}}},
		// Plain parameters (written by hand) with every member, escapes and invalid UTF-8;
		// constrained ones and provenance (left to encoding/json).
		{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Items: items(`{}`), Message: "m\n\t\"q\" \x01 <>&\u2028 \xff",
			Parameters: []v1alpha1.Parameter{
				{Name: "A", DisplayName: "d", Description: "<desc>\u2029", Value: "v\\", Required: true, Type: "string",
					Generate: "expression", From: "[a-z]{3}", Multiline: true, Secret: true},
				{Name: ""}, {Name: "\xe2\x80", Value: "\u00e9\U0001F600"},
			}},
		{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}, Parameters: []v1alpha1.Parameter{{Name: "N", Enum: []string{"1"}}}},
		{TypeMeta: metav1.TypeMeta{Kind: "List"}, Provenance: &v1alpha1.Provenance{}},
		{TypeMeta: metav1.TypeMeta{Kind: "List"}, ListMeta: metav1.ListMeta{Continue: "c"}, Parameters: []v1alpha1.Parameter{}},
	}
	checkEncodeList(t, lists)
	if !strings.Contains(string(appendHTMLEscaped(nil, []byte(`"<"`))), `\u003c`) {
		t.Error("< is not escaped")
	}
}

// FuzzEncodeList checks encodeList's hand-written members against the serializer on
// arbitrary text in a plain parameter and in the message.
func FuzzEncodeList(f *testing.F) {
	f.Add("m", "A", "d", "<v>&", "\u2028\xff", true)
	f.Fuzz(func(t *testing.T, message, name, description, value, from string, flag bool) {
		checkEncodeList(t, []*v1alpha1.List{{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: name}, Message: message,
			Parameters: []v1alpha1.Parameter{{Name: name, Description: description, Value: value, From: from, Required: flag, Secret: !flag}}}})
	})
}

func checkEncodeList(t *testing.T, lists []*v1alpha1.List) {
	t.Helper()
	info, _ := runtime.SerializerInfoForMediaType(Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	for _, list := range lists {
		var want, got bytes.Buffer
		if err := info.Serializer.Encode(list, &want); err != nil {
			t.Fatal(err)
		}
		if err := (templateCodec{Serializer: info.Serializer, scheme: Scheme}).Encode(list, &got); err != nil {
			t.Fatal(err)
		}
		if want.String() != got.String() {
			t.Errorf("encodeList wrote\n%s\nthe serializer\n%s", got.String(), want.String())
		}
	}
}

// TestTemplateCodecDecodesShareNothing decodes two users' OpenShift Templates at once, many
// times (run with -race), with templateCodec, whose lean reader reads the parameters into
// memory of the decode's own (the list, the strings' blocks), which the annotation's fields
// then change in place: each decode gives what the serializer gives, and changing one decoded
// Template changes no other.
func TestTemplateCodecDecodesShareNothing(t *testing.T) {
	info, _ := runtime.SerializerInfoForMediaType(Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	codec := Codecs.DecoderToVersion(templateCodec{Serializer: info.StrictSerializer, scheme: Scheme, strict: true}, templates.SchemeGroupVersion)
	serializer := Codecs.DecoderToVersion(info.StrictSerializer, templates.SchemeGroupVersion)
	bodies := make([][]byte, 2)
	want := make([]runtime.Object, len(bodies))
	for u := range bodies {
		bodies[u] = []byte(fmt.Sprintf(`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"u%d","annotations":`+
			`{"templates.stencil.dev/stencil-fields":"{\"parameters\":[{\"name\":\"A\",\"enum\":[\"%d\"]}]}"}},`+
			`"parameters":[{"name":"A","value":"user %d\n","description":"%s"},{"name":"B","value":"\u00e9%d"}],"objects":[{"kind":"ConfigMap"}]}`,
			u, u, u, strings.Repeat(fmt.Sprintf(`\"user %d\" `, u), 40), u))
		obj, _, err := serializer.Decode(bodies[u], nil, &templates.Template{})
		if err != nil {
			t.Fatal(err)
		}
		want[u] = obj
		if split, err := process.SplitTemplateJSON(bodies[u]); err != nil {
			t.Fatal(err)
		} else if _, _, _, ok := split.ReadOpenShiftStrict(); !ok {
			t.Fatal("the lean readers left the body to the serializer")
		}
	}
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			u := g % len(bodies)
			for range 200 {
				obj, _, err := codec.Decode(bodies[u], nil, &templates.Template{})
				if err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(obj, want[u]) {
					t.Errorf("user %d's Template decoded alongside another's: %+v, alone %+v", u, obj, want[u])
					return
				}
				// The decode's own: writing it races with no other decode.
				tpl := obj.(*templates.Template)
				tpl.Parameters[0].Value, tpl.Parameters[0].Enum[0] = "changed", "changed"
			}
		}()
	}
	for range 8 {
		<-done
	}
}
