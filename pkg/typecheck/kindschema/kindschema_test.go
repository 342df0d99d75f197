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

package kindschema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/typecheck/kindschema"
)

// schemaFile is the Template's schema as the repository ships it.
const schemaFile = "../../../artifacts/schema/template-v1alpha1.json"

// compile compiles a JSON Schema document with a real validator, in its draft (07).
func compile(t *testing.T, doc []byte) *validator.Schema {
	t.Helper()
	parsed, err := validator.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("schema.json", parsed); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

// instance reads a YAML or JSON file as a validator's instance.
func instance(t *testing.T, file string) any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	js, err := positions.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	v, err := validator.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// failures lists the instance locations and keywords a validation error names, leaves first.
func failures(err error) []string {
	var ve *validator.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(e *validator.ValidationError)
	walk = func(e *validator.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, "/"+strings.Join(e.InstanceLocation, "/")+" "+e.ErrorKind.KeywordPath()[len(e.ErrorKind.KeywordPath())-1])
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

// TestShippedSchema: the shipped schema compiles in a real validator; every Template of
// artifacts/examples is valid against it; testdata/wrong-fields.yaml, which an editor with
// the YAML language server would mark, is refused at each wrong field: a misspelt member of
// the Template and of its metadata, a boolean written as a string; the members of an object
// of the template, which can be of any kind, are not judged.
func TestShippedSchema(t *testing.T) {
	doc, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	schema := compile(t, doc)
	examples, _ := filepath.Glob("../../../artifacts/examples/*.yaml")
	valid := 0
	for _, file := range examples {
		data, _ := os.ReadFile(file)
		if !bytes.Contains(data, []byte("kind: Template\n")) {
			continue
		}
		if err := schema.Validate(instance(t, file)); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		valid++
	}
	if valid < 3 {
		t.Errorf("only %d example templates", valid)
	}
	err = schema.Validate(instance(t, "testdata/wrong-fields.yaml"))
	got := strings.Join(failures(err), "\n")
	want := strings.Join([]string{
		"/ additionalProperties",
		"/metadata additionalProperties",
		"/parameters/0/required type",
	}, "\n")
	if got != want {
		t.Errorf("failures:\n%s\nwant:\n%s\n(%v)", got, want, err)
	}
	if !strings.Contains(err.Error(), "'parameter'") || !strings.Contains(err.Error(), "'lables'") {
		t.Errorf("the error does not name the wrong fields: %v", err)
	}
}

// TestWrite: OpenAPI's keywords become JSON Schema's: int-or-string an anyOf, nullable a type
// list, preserve-unknown-fields an open object, a declared object a closed one, references
// under definitions; formats and extensions are dropped; apiVersion and kind are fixed.
func TestWrite(t *testing.T) {
	doc := `{"openapi": "3.0.0", "components": {"schemas": {
  "w": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "W"}],
    "properties": {"apiVersion": {"type": "string", "description": "the version"}, "kind": {"type": "string"},
      "port": {"x-kubernetes-int-or-string": true}, "note": {"type": "string", "nullable": true, "format": "byte"},
      "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "sub": {"allOf": [{"$ref": "#/components/schemas/s"}], "default": {}}}},
  "s": {"type": "object", "properties": {"self": {"$ref": "#/components/schemas/s"}, "n": {"type": "integer", "format": "int32"}}},
  "unused": {"type": "string"}}}}`
	out, err := kindschema.Write([]byte(doc), kindschema.Kind{Group: "example.com", Version: "v1", Kind: "W"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	compact := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	props := got["properties"].(map[string]any)
	for name, want := range map[string]string{
		"apiVersion": `{"description":"the version","enum":["example.com/v1"],"type":"string"}`,
		"kind":       `{"description":"","enum":["W"],"type":"string"}`,
		"port":       `{"anyOf":[{"type":"integer"},{"type":"string"}]}`,
		"note":       `{"type":["string","null"]}`,
		"free":       `{"additionalProperties":true,"type":"object"}`,
		"sub":        `{"allOf":[{"$ref":"#/definitions/s"}],"default":{}}`,
	} {
		if compact(props[name]) != want {
			t.Errorf("%s: %s, want %s", name, compact(props[name]), want)
		}
	}
	defs := compact(got["definitions"])
	if defs != `{"s":{"additionalProperties":false,"properties":{"n":{"type":"integer"},"self":{"$ref":"#/definitions/s"}},"type":"object"}}` ||
		got["additionalProperties"] != false || compact(got["required"]) != `["apiVersion","kind"]` {
		t.Errorf("definitions %s, top %s", defs, out)
	}
	schema := compile(t, out)
	for _, c := range []struct {
		doc string
		ok  bool
	}{
		{`{"apiVersion": "example.com/v1", "kind": "W", "port": 80, "note": null, "free": {"x": 1}, "sub": {"self": {"n": 1}}}`, true},
		{`{"apiVersion": "example.com/v1", "kind": "W", "port": "http"}`, true},
		{`{"apiVersion": "example.com/v2", "kind": "W"}`, false},
		{`{"apiVersion": "example.com/v1", "kind": "W", "sub": {"self": {"m": 1}}}`, false},
		{`{"apiVersion": "example.com/v1", "kind": "W", "port": true}`, false},
	} {
		v, _ := validator.UnmarshalJSON(strings.NewReader(c.doc))
		if err := schema.Validate(v); (err == nil) != c.ok {
			t.Errorf("%s: %v, want valid %t", c.doc, err, c.ok)
		}
	}
	if _, err := kindschema.Write([]byte(doc), kindschema.Kind{Group: "example.com", Version: "v1", Kind: "Nope"}); err == nil {
		t.Error("a kind the document has not: no error")
	}
}
