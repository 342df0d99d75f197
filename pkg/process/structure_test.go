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
	"bytes"
	"fmt"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
)

// checkCompact compares structure.compact with jsontext's strict compaction: both accept the
// same inputs and write the same bytes, and the index points where a reader would find the
// ends of containers and strings, and the dollars. Every other layout of an accepted input
// (whitespace between every two tokens: spaces, tabs, CR, LF, mixed) compacts to the same.
func checkCompact(t *testing.T, in []byte) {
	t.Helper()
	got := checkCompactOnce(t, in)
	if got == nil {
		return
	}
	got = bytes.Clone(got)
	for _, l := range layouttest.Layouts(in) {
		if again := checkCompactOnce(t, l); !bytes.Equal(again, got) {
			t.Fatalf("%q compacts to %q, but its layout %q to %q", in, got, l, again)
		}
	}
}

// checkCompactOnce checks one input and returns its compaction, nil when it is refused.
func checkCompactOnce(t *testing.T, in []byte) []byte {
	t.Helper()
	var s structure
	var buf []byte
	got, err := s.compact(&buf, in)
	want, wantErr := jsonbytes.Compact(in)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%q: compact error %v, jsontext error %v", in, err, wantErr)
	}
	if err != nil {
		return nil
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q: compact wrote %q, jsontext %q", in, got, want)
	}
	var dollars []int32
	for i := 0; i < len(got); i++ {
		switch got[i] {
		case '"':
			end := jsonbytes.SkipString(got, i)
			if int(s.ends[i]) != end {
				t.Fatalf("%q: string at %d ends at %d, index says %d", got, i, end, s.ends[i])
			}
			for k := i; k < end; k++ {
				if got[k] == '$' {
					dollars = append(dollars, int32(k))
				}
				if got[k] == '\\' {
					if bytes.HasPrefix(got[k:], []byte(`\u0024`)) {
						dollars = append(dollars, int32(k))
					}
					k++
				}
			}
			i = end - 1
		case '{', '[':
			if end := jsonbytes.SkipValue(got, i); int(s.ends[i]) != end {
				t.Fatalf("%q: container at %d ends at %d, index says %d", got, i, end, s.ends[i])
			}
		}
	}
	if fmt.Sprint(dollars) != fmt.Sprint(s.dollars) {
		t.Fatalf("%q: dollars at %v, index says %v", got, dollars, s.dollars)
	}
	return got
}

func TestCompactAgreesWithJSONText(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { "a" : [ 1 , 2.5e-3 , -0 , true , false , null , "x" ] } `, `[]`, `"s"`, `1`, `-1.0E+2`,
		`{"a":{"b":{"c":[[],{}]}}}`, `{"$":"${A}","b":"\u0024{B}","c":"\\u0024"}`,
		`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"x":1},"b":{"x":1}}`,
		`{"a":"\ud83d\ude00"}`, `{"a":"\ud83d"}`, `{"a":"\ude00"}`, `{"a":"\ud83dx"}`, `{"a":"\x"}`,
		"{\"a\":\"\xff\"}", "{\"a\":\"\x01\"}", `{"a":"é日本"}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`,
		`{"a":-}`, `{"a":tru}`, `{"a":nul}`, `{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1}}`,
		`{"a":1} x`, `[1 2]`, `{"a":1 "b":2}`, ``, ` `, `"unterminated`, `{"a":"\u00"}`, `{"a":"\/\b\f\n\r\t"}`,
		`{"a":[1,{"b":[true]}],"c":"$$(X)"}`, `[[[[[[[[[[]]]]]]]]]]`, `{"a":1e400}`, `{"a":123456789012345678901234567890}`,
	} {
		checkCompact(t, []byte(in))
	}
	for _, in := range layoutSeeds {
		checkCompact(t, []byte(in))
	}
	many := make([]string, 100)
	for i := range many {
		many[i] = fmt.Sprintf(`"k%d":%d`, i, i)
	}
	checkCompact(t, []byte("{"+strings.Join(many, ",")+"}"))
	checkCompact(t, []byte("{"+strings.Join(many, ",")+`,"k7":0}`))
	checkCompact(t, []byte(strings.Repeat("[", maxNesting)+strings.Repeat("]", maxNesting)))
	checkCompact(t, []byte(strings.Repeat("[", maxNesting+1)+strings.Repeat("]", maxNesting+1)))
}

// layoutSeeds are documents laid out as people and tools write them: pretty-printed by
// oc get -o json (an empty object before a newline was issue 24's refusal), with tabs, CRLF,
// space inside empty containers and around every token.
var layoutSeeds = []string{
	"{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Service\",\n    \"status\": {}\n}\n",
	"{\"a\":{}\n}", "{\"a\":[]\n}", "[{}\n,[]\t]", "{}\r\n", "[ ]", "{ \"a\" : { } , \"b\" : [ ] }",
	"{\r\n\t\"spec\": {\r\n\t\t\"ports\": [\r\n\t\t\t{ \"port\": 8080 }\r\n\t\t],\r\n\t\t\"selector\": {}\r\n\t}\r\n}",
	"\t[\n\r1 ,\"${X}\" ,\r{}\r]\n ",
}

// FuzzCompact looks for an input where the one-pass compaction and jsontext disagree, or
// where two layouts of one document compact differently.
func FuzzCompact(f *testing.F) {
	for _, seed := range append([]string{`{"a":[1,"${B}",{"c":null}]}`, `{"a":"\u0024\ud83d\ude00"}`, `[1,2.5e3,-0,true]`}, layoutSeeds...) {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkCompact(t, in)
	})
}

// TestCompactKeepsNoNames compacts objects of many names, then small ones, then ones it
// refuses halfway (a repeated name, a bad string, input that ends early): after each, the
// structure's whole room of names must be nil, so that a pooled compiler keeps no slice of a
// request's template alive. Only the names a call held are cleared, so a call that left one
// (an early return, a name set aside for a set) fails here.
func TestCompactKeepsNoNames(t *testing.T) {
	var many strings.Builder
	many.WriteString(`{"spec":{`)
	for i := range 40 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `"n%d":{"a":1,"b":{"c":2,"d":[{"e":3,"f":4}]}}`, i)
	}
	many.WriteString(`}}`)
	// More names than namesBeforeSet, none of them an object: they go into a set.
	var flat strings.Builder
	flat.WriteString(`{"data":{`)
	for i := range namesBeforeSet + 8 {
		if i > 0 {
			flat.WriteByte(',')
		}
		fmt.Fprintf(&flat, `"k%d":"v"`, i)
	}
	flat.WriteString(`}}`)
	inputs := []string{
		many.String(),
		flat.String(),
		`{"kind":"ConfigMap","data":{"a":"b"}}`,
		`{"metadata":{"labels":{"x":"1","y":"2","x":"3"}}}`,
		`{"metadata":{"labels":{"x":"1","y":"\x01"}}}`,
		`{"metadata":{"labels":{"x":"1","y":`,
		`{"a":{"b":{"c":{"d":1}}}}`,
	}
	var s structure
	var buf []byte
	for round := range 3 {
		for i, in := range inputs {
			_, _ = s.compact(&buf, []byte(in))
			for k, name := range s.names[:cap(s.names)] {
				if name != nil {
					t.Fatalf("round %d, after input %d: name %d (%q) kept", round, i, k, name)
				}
			}
		}
	}
}
