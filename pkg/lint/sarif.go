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

package lint

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"stencil.dev/stencil/pkg/typecheck"
)

// SARIFSchema is the schema a SARIF log names: OASIS' SARIF 2.1.0 (errata 01), which the
// tests validate the output against.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// rules describes every rule a result may name, in the order of the log's rules array.
var rules = []struct {
	id          typecheck.Rule
	level       typecheck.Severity
	description string
}{
	{Unreadable, typecheck.Error, "The file is not a Template the server can read."},
	{Refused, typecheck.Error, "The server refuses to store the template: a 422 from create or update."},
	{Tolerated, typecheck.Warning, "A template of OpenShift's dialect is processed as OpenShift does, but with a warning."},
	{typecheck.UnknownField, typecheck.Error, "A field the kind's OpenAPI schema does not have."},
	{typecheck.WrongType, typecheck.Error, "A value of another JSON type than the field's, as written or as parameter substitution makes it."},
	{typecheck.RequiredField, typecheck.Error, "A field the kind's schema requires is left out."},
	{typecheck.EnumValue, typecheck.Error, "A value the field's enum does not list."},
	{typecheck.UnknownKind, typecheck.Warning, "A kind its group does not serve, in that version or any."},
	{typecheck.Unchecked, typecheck.Note, "A kind no schema describes, left unchecked."},
	{Skipped, typecheck.Note, "A document of the file that is not a Template, left unchecked."},
}

// sarifLog is the part of SARIF 2.1.0 that lint writes.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region *sarifRegion `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// WriteSARIF writes the diagnostics as a SARIF 2.1.0 log of one run of stencil lint, each
// result with the file, its region (line and column) when known, and the template's field
// path as a logical location.
func WriteSARIF(w io.Writer, version string, ds []Diagnostic) error {
	driver := sarifDriver{Name: "stencil lint", Version: version, InformationURI: "https://stencil.dev/docs/lint"}
	index := map[typecheck.Rule]int{}
	for i, r := range rules {
		rule := sarifRule{ID: string(r.id), ShortDescription: sarifMessage{r.description}}
		rule.DefaultConfiguration.Level = string(r.level)
		driver.Rules = append(driver.Rules, rule)
		index[r.id] = i
	}
	results := make([]sarifResult, 0, len(ds))
	for _, d := range ds {
		loc := sarifLocation{}
		loc.PhysicalLocation.ArtifactLocation.URI = fileURI(d.File)
		if d.Known() {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: d.Line, StartColumn: d.Column}
		}
		if d.Path != "" {
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: d.Path, Kind: "member"}}
		}
		results = append(results, sarifResult{RuleID: string(d.Rule), RuleIndex: index[d.Rule], Level: string(d.Severity),
			Message: sarifMessage{d.Message}, Locations: []sarifLocation{loc}})
	}
	log := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// fileURI writes a file name as a SARIF artifact URI: a relative reference as given (code
// scanning resolves it from the checkout), file:// for an absolute path.
func fileURI(name string) string {
	if name == "-" {
		return "stdin"
	}
	slashed := filepath.ToSlash(name)
	parts := strings.Split(slashed, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	escaped := strings.Join(parts, "/")
	if filepath.IsAbs(name) {
		return "file://" + escaped
	}
	return escaped
}
