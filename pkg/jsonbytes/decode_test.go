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

package jsonbytes

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
)

func TestCodecRoundTrip(t *testing.T) {
	in := []json.RawMessage{
		json.RawMessage(`{"b":1,"a":{"z":[1,2.5,-3e10,99999999999999999999],"y":null,"x":true,"w":false},"s":"é \"q\" \\ \u0001 <&>"}`),
		json.RawMessage(` { "kind" : "List", "items" : [ ] , "empty": {} } `),
	}
	objs, err := DecodeObjects(in)
	if err != nil {
		t.Fatal(err)
	}
	if n := objs[0]["a"].(map[string]any)["z"].([]any)[3]; n != json.Number("99999999999999999999") {
		t.Errorf("big integer lost precision: %v", n)
	}
	out, err := EncodeObjects(objs)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"w":false,"x":true,"y":null,"z":[1,2.5,-3e10,99999999999999999999]},"b":1,"s":"é \"q\" \\ \u0001 <&>"}`
	if string(out[0]) != want {
		t.Errorf("got  %s\nwant %s", out[0], want)
	}
	if string(out[1]) != `{"empty":{},"items":[],"kind":"List"}` {
		t.Errorf("got %s", out[1])
	}
	// The tree is the one encoding/json builds with UseNumber.
	dec := json.NewDecoder(bytes.NewReader(in[0]))
	dec.UseNumber()
	var std map[string]any
	if err := dec.Decode(&std); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(std, objs[0]) {
		t.Errorf("tree differs from encoding/json's:\n%#v\n%#v", std, objs[0])
	}
}

// layoutSeeds are objects laid out as oc get -o json and people write them.
var layoutSeeds = []string{
	"{\n    \"kind\": \"Service\",\n    \"spec\": {\n        \"ports\": []\n    },\n    \"status\": {}\n}\n",
	"{\"a\":{}\n}", "{\"a\":[]\r\n}", "{\t\"a\"\t:\t[ {}\t, [ ] ]\t}", "\r\n{ }\r\n",
}

// TestDecodeLayouts decodes objects in every layout: the same tree as the compact form.
func TestDecodeLayouts(t *testing.T) {
	for _, in := range layoutSeeds {
		want, err := DecodeObject(layouttest.Uniform([]byte(in), ""))
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for _, l := range append(layouttest.Layouts([]byte(in)), []byte(in)) {
			if got, err := DecodeObject(l); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%q: %v\n%#v\nwant %#v", l, err, got, want)
			}
		}
	}
}

// TestDecodeErrors checks that DecodeObject refuses what is not one JSON object, and that
// DecodeObjects, which trusts the engine's JSON to be valid, still refuses duplicate names.
func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{`[1]`, `"x"`, `{"a":1} {}`, `{"a":1,"a":2}`, `{"a":`, ``, `{}0. 0`, `{"a":1} ]`, `{} x`} {
		if _, err := DecodeObject([]byte(in)); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
	for _, in := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `[1]`} {
		if _, err := DecodeObjects([]json.RawMessage{json.RawMessage(in)}); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

// FuzzDecode checks the hand-written parser against encoding/json: whatever it accepts,
// encoding/json decodes to the same tree, and encoding round-trips. Every other layout of an
// accepted object decodes to the same tree.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"\u00e9\n"}],"c":-1.5e3,"d":null,"e":true}`))
	f.Add([]byte(` {"x" : "y" , "z":[ ]} `))
	for _, in := range layoutSeeds {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		obj, err := DecodeObject(raw)
		if err != nil {
			return
		}
		for _, l := range layouttest.Layouts(raw) {
			again, err := DecodeObject(l)
			if err != nil || !reflect.DeepEqual(again, obj) {
				t.Fatalf("%q decodes, its layout %q: %v\n%#v\n%#v", raw, l, err, obj, again)
			}
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var std map[string]any
		if err := dec.Decode(&std); err != nil {
			t.Fatalf("accepted what encoding/json rejects: %v", err)
		}
		if !reflect.DeepEqual(std, obj) {
			t.Fatalf("trees differ:\n%#v\n%#v", std, obj)
		}
		enc, err := EncodeObjects([]map[string]any{obj})
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeObject(enc[0])
		if err != nil || !reflect.DeepEqual(again, obj) {
			t.Fatalf("round trip: %v\n%s", err, enc[0])
		}
		// DecodedSize's claim: compact JSON without escapes is as long as its tree's encoding.
		if compact, err := Compact(raw); err == nil && bytes.Equal(compact, raw) {
			if n, ok := DecodedSize([]json.RawMessage{raw}); ok && (n != EncodedSize(obj, 0) || n != len(enc[0])) {
				t.Fatalf("DecodedSize %d, EncodedSize %d, encoded %d: %s", n, EncodedSize(obj, 0), len(enc[0]), raw)
			}
		}
	})
}

// TestEncodeStrings checks the encoder's strings against jsontext.AppendQuote, which it
// leaves only the plain ones: the same bytes for each, and an error for invalid UTF-8.
func TestEncodeStrings(t *testing.T) {
	for _, s := range []string{"", "plain", "<&> ~\x7f", "quote \" backslash \\", "\n\t\x00\x1f", "é ✓", "bad \xff"} {
		got, gotErr := appendString(nil, s)
		want, wantErr := jsontext.AppendQuote(nil, s)
		if string(got) != string(want) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%q: %s (%v), want %s (%v)", s, got, gotErr, want, wantErr)
		}
	}
}

// TestDecodedSize checks DecodedSize against the trees' measured size, and that it declines
// objects with escapes, whose encoding may be shorter.
func TestDecodedSize(t *testing.T) {
	raws := []json.RawMessage{
		json.RawMessage(`{"b":[1,-2.50,1E3,true,null,{}],"a":"é <&> ~","c":{"z":[],"y":""}}`),
		json.RawMessage(`{"kind":"List","items":[{"name":"x"}]}`),
	}
	objs, err := DecodeObjects(raws)
	if err != nil {
		t.Fatal(err)
	}
	n, ok := DecodedSize(raws)
	if want := EncodedSize(objs[0], 0) + EncodedSize(objs[1], 0); !ok || n != want {
		t.Errorf("DecodedSize %d %v, measured %d", n, ok, want)
	}
	if _, ok := DecodedSize([]json.RawMessage{json.RawMessage(`{"a":"\u00e9"}`)}); ok {
		t.Error("an escape is not declined")
	}
}
