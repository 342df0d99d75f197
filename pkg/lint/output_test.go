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

package lint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"stencil.dev/stencil/pkg/lint"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// brokenDiagnostics lints every template of testdata/broken.
func brokenDiagnostics(t *testing.T) (int, []lint.Diagnostic) {
	t.Helper()
	files, err := filepath.Glob("testdata/broken/*")
	if err != nil {
		t.Fatal(err)
	}
	c := checker(t)
	var all []lint.Diagnostic
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".want") {
			continue
		}
		n++
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, lint.File(context.Background(), file, data, lint.Options{Checker: c, Plugins: plugin.Policy{Starlark: true}})...)
	}
	return n, all
}

// sarifSchema compiles OASIS' SARIF 2.1.0 schema (testdata/README.md says where it is from).
func sarifSchema(t *testing.T) *validator.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := validator.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource(lint.SARIFSchema, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(lint.SARIFSchema)
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// TestSARIFValidates writes the findings of every broken template as SARIF and validates
// the log against the SARIF 2.1.0 schema; each result keeps its file, line and column as a
// region, and its rule is in the driver's rules at its ruleIndex. A log the schema must refuse
// (a level SARIF has not) is refused, so that the validation is not vacuous.
func TestSARIFValidates(t *testing.T) {
	schema := sarifSchema(t)
	_, ds := brokenDiagnostics(t)
	var out bytes.Buffer
	if err := lint.WriteSARIF(&out, "v0.0.0-test", ds); err != nil {
		t.Fatal(err)
	}
	inst, err := validator.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("the SARIF log does not validate: %v", err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region *struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	results := log.Runs[0].Results
	if len(results) != len(ds) {
		t.Fatalf("%d results for %d diagnostics", len(results), len(ds))
	}
	regions := 0
	for i, r := range results {
		d := ds[i]
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != d.File || r.Level != string(d.Severity) || r.RuleID != string(d.Rule) {
			t.Errorf("result %d: %s %s %s, diagnostic %s %s %s", i, loc.ArtifactLocation.URI, r.Level, r.RuleID, d.File, d.Severity, d.Rule)
		}
		if log.Runs[0].Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleIndex %d is not rule %s", i, r.RuleIndex, r.RuleID)
		}
		if d.Known() {
			regions++
			if loc.Region == nil || loc.Region.StartLine != d.Line || loc.Region.StartColumn != d.Column {
				t.Errorf("result %d: region %+v, diagnostic at %d:%d", i, loc.Region, d.Line, d.Column)
			}
		}
	}
	if regions < 20 {
		t.Errorf("only %d results with a region", regions)
	}

	bad := bytes.Replace(out.Bytes(), []byte(`"level": "error"`), []byte(`"level": "fatal"`), 1)
	badInst, err := validator.UnmarshalJSON(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if schema.Validate(badInst) == nil {
		t.Error("a result with level fatal validates: the schema check proves nothing")
	}
}

// TestJSONOutput reads back the JSON output: every diagnostic and the counts.
func TestJSONOutput(t *testing.T) {
	files, ds := brokenDiagnostics(t)
	var out bytes.Buffer
	if err := lint.WriteJSON(&out, files, ds); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Diagnostics []lint.Diagnostic `json:"diagnostics"`
		Summary     lint.Summary      `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := lint.Summarize(files, ds)
	if got.Summary != want || len(got.Diagnostics) != len(ds) || want.Errors < 20 {
		t.Errorf("summary %+v and %d diagnostics, want %+v and %d", got.Summary, len(got.Diagnostics), want, len(ds))
	}
	for i := range ds {
		if got.Diagnostics[i] != ds[i] {
			t.Errorf("diagnostic %d: %+v, want %+v", i, got.Diagnostics[i], ds[i])
		}
	}
}

// TestTextOutput is the form editors and CI annotators read: path:line:col: severity: message.
func TestTextOutput(t *testing.T) {
	var out bytes.Buffer
	ds := []lint.Diagnostic{
		{File: "t.yaml", Line: 14, Column: 5, Path: "objects[0].spec.replica", Severity: "error", Rule: "unknown-field", Message: "objects[0].spec.replica: unknown field"},
		{File: "t.yaml", Severity: "warning", Rule: "tolerated", Message: "whole file"},
		{File: "t.yaml", Line: 3, Column: 1, Severity: "error", Rule: "refused", Message: "rules[0].rule: bad\n | a(\n | ..^"},
	}
	if err := lint.WriteText(&out, ds); err != nil {
		t.Fatal(err)
	}
	want := "t.yaml:14:5: error: objects[0].spec.replica: unknown field [unknown-field]\nt.yaml: warning: whole file [tolerated]\n" +
		"t.yaml:3:1: error: rules[0].rule: bad [refused]\n     | a(\n     | ..^\n"
	if out.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", out.String(), want)
	}
}
