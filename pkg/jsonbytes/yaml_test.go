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

	"sigs.k8s.io/yaml"
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
