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

package main

import (
	"reflect"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

type (
	named    string
	switchy  bool
	embedded struct{ A string }
	// embeddedName's Name is a promoted field where it is embedded, which a generated
	// p.Name would reach but encoding/json's conversion need not mean.
	embeddedName struct{ Name string }
)

// TestMemberCases checks that each field is read as encoding/json reads its type, and that a
// field whose naming the reader would not follow stops the generator.
func TestMemberCases(t *testing.T) {
	typ := reflect.TypeFor[struct {
		Text    string            `json:"text"`
		Named   named             `json:"named,omitempty"`
		Flag    bool              `json:"flag"`
		MyFlag  switchy           `json:"myFlag"`
		Bound   *v1alpha1.Bound   `json:"bound"`
		Words   []string          `json:"words"`
		Nested  map[string]string `json:"nested"`
		Self    v1alpha1.Length   `json:"self"`
		Skipped string            `json:"-"`
		NoTag   string
		hidden  string // an unexported field is no member
	}]()
	got, err := memberCases(typ, typ)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"case \"text\":\n\t\tr.str(&p.Text)", "case \"named\":\n\t\tr.str((*string)(&p.Named))",
		"case \"flag\":\n\t\tr.boolean(&p.Flag)", "case \"myFlag\":\n\t\tr.boolean((*bool)(&p.MyFlag))",
		"case \"bound\":\n\t\treadsItself(r, &p.Bound)", "case \"words\":\n\t\tr.stringList(&p.Words)",
		"case \"nested\":\n\t\tr.typed(&p.Nested)", "case \"self\":\n\t\tr.typed(&p.Self)", "case \"NoTag\":\n\t\tr.str(&p.NoTag)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "Skipped") || strings.Contains(got, "hidden") {
		t.Errorf("a field that is no member has a case:\n%s", got)
	}

	for name, typ := range map[string]reflect.Type{
		"embedded": reflect.TypeFor[struct{ embedded }](),
		"string option": reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		"odd name": reflect.TypeFor[struct {
			N int `json:"a b"`
		}](),
		"repeated name": reflect.TypeFor[struct {
			A string `json:"B"`
			B string
		}](),
	} {
		if _, err := memberCases(typ, typ); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// TestMemberCasesInto checks that members are read into the fields of the same names of
// another type, and that a field that type lacks, or has with another type, stops the
// generator: the member would be read as neither type's decoder reads it.
func TestMemberCasesInto(t *testing.T) {
	type wire struct {
		Name     string `json:"name"`
		Required bool   `json:"required,omitempty"`
	}
	got, err := memberCases(reflect.TypeFor[wire](), reflect.TypeFor[struct {
		Required bool
		Extra    []string
		Name     string
	}]())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"case \"name\":\n\t\tr.str(&p.Name)", "case \"required\":\n\t\tr.boolean(&p.Required)"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "Extra") {
		t.Errorf("a field of the target only has a case:\n%s", got)
	}
	for name, into := range map[string]reflect.Type{
		"missing": reflect.TypeFor[struct{ Name string }](),
		"other type": reflect.TypeFor[struct {
			Name     named
			Required bool
		}](),
		"promoted": reflect.TypeFor[struct {
			embeddedName
			Required bool
		}](),
	} {
		if _, err := memberCases(reflect.TypeFor[wire](), into); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}
