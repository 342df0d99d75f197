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
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
)

// TestYAMLKeepsStringsAndNumbers checks that YAML output reads back, with YAML 1.1 readers
// such as kubectl's, to exactly the JSON the engine produced.
func TestYAMLKeepsStringsAndNumbers(t *testing.T) {
	in := `{"strings":["yes","No","on","OFF","y","n","true","null","~","","010","0x1F","1e3","1:20","2001-12-14",` +
		`".inf","-","a: b","#x","multi\nline\n","  padded ","tab\there","say \"hi\"","ünïcode","@at","*star","&amp","!bang","%pct","{}","[]"],` +
		`"numbers":[1,-2,3.5,1e20,99999999999999999999],"bools":[true,false],"null":null,"empty":{},"none":[]}`
	out, err := ToYAML([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	back, err := yaml.YAMLToJSON(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// sigs.k8s.io/yaml reads big integers as floats, as kubectl does; compare them apart.
	want := strings.Replace(in, "99999999999999999999", "1e+20", 1)
	var a, b any
	if err := json.Unmarshal([]byte(want), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(back, &b); err != nil {
		t.Fatal(err)
	}
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	if string(aj) != string(bj) {
		t.Errorf("YAML does not read back the same:\n%s\nwant %s\ngot  %s", out, aj, bj)
	}
	if !strings.Contains(string(out), "99999999999999999999") {
		t.Errorf("big integer not kept exactly:\n%s", out)
	}
}

// readsBack checks that the YAML of the JSON value in reads back, as kubectl reads YAML, to
// the same value.
func readsBack(t *testing.T, in []byte) {
	t.Helper()
	out, err := ToYAML(in)
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	back, err := yaml.YAMLToJSON(out)
	if err != nil {
		t.Fatalf("%s: the YAML does not read back: %v\n%s", in, err, out)
	}
	var a, b any
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(back, &b); err != nil {
		t.Fatal(err)
	}
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	if string(aj) != string(bj) {
		t.Fatalf("YAML does not read back the same:\n%s\nwant %s\ngot  %s", out, aj, bj)
	}
}

func TestYAMLShapes(t *testing.T) {
	for _, in := range []string{
		`{"a":{"b":[1,{"c":"d","e":[[],[1,[2,{"f":null}]]]},{}],"g":{}}}`, `[[["x"]],{"a":1}]`, `"top"`, `1`, `[]`, `{}`,
		`{"script":"#!/bin/sh\necho hi\n\n","trailing":"a\nb","kept":"a\n\n","spaces":"a \nb","lead":" a\nb","tab":"a\tb\nc"}`,
		`{"multi key\nline":1,"a: b":2,"#c":3,"-":4,"":5,"yes":6}`, `{"l":["a\nb",{"k":"x\ny\n"}]}`,
		`{"u":"\u0000\u001f\u007f\u0085\u2028\ufeff\ud83d\ude00é","q":"say \"hi\" \\ back"}`,
		`{"name":"nginx:1.21","url":"https://example.com/a?b=c","desc":"Deployment number 3 of the template","sp":"a  b","hash":"a #b"}`,
	} {
		readsBack(t, []byte(in))
	}
}

// FuzzToYAML looks for a JSON value whose YAML reads back as something else, or whose
// layouts are written differently.
func FuzzToYAML(f *testing.F) {
	f.Add([]byte(`{"a":["x\ny",{"b":"yes"}],"c":"1:20"}`))
	for _, in := range layoutSeeds {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var v any
		if json.Unmarshal(in, &v) != nil || !utf8.Valid(in) {
			return
		}
		if _, err := Compact(in); err != nil {
			return // duplicate names and the like: not JSON the engine writes
		}
		// Big numbers come back as floats from YAML readers, and -0 as the integer 0: the same
		// numbers to Kubernetes, different bytes to encoding/json. Compare the rest.
		if strings.ContainsAny(string(in), "eE.") || strings.Contains(string(in), "-0") || len(in) > 2000 {
			return
		}
		readsBack(t, in)
		want, err := ToYAML(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for _, l := range layouttest.Layouts(in) {
			if got, err := ToYAML(l); err != nil || string(got) != string(want) {
				t.Fatalf("ToYAML of %q, a layout of %q: %v\n%s\nwant\n%s", l, in, err, got, want)
			}
		}
	})
}

// TestLongKeys checks that a key too long to stand before its colon is written as an explicit
// key that reads back, whatever its value and wherever its mapping stands.
func TestLongKeys(t *testing.T) {
	long := strings.Repeat("k", 1500)
	quoted := strings.Repeat("]", 700) + `\\` + strings.Repeat("]", 700)
	for _, in := range []string{
		`{"` + long + `":"v"}`,
		`{"` + quoted + `":{}}`,
		`{"a":1,"` + long + `":{"b":[1,2],"c":"x\ny"},"z":true}`,
		`{"` + long + `":["x",{"y":1}]}`,
		`[{"` + long + `":null,"b":2}]`,
		`{"a":{"` + quoted + `":[]}}`,
	} {
		readsBack(t, []byte(in))
	}
}
