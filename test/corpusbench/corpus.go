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

// Package corpusbench measures Stencil beside OpenShift's own template processor (library-go's
// templateprocessing, decoding and processing as `oc process --local` does) on the shared
// corpus of real OpenShift templates, in one process and one run. It is a module of its own so
// that library-go stays out of the product's go.mod; hack/bench.sh runs it.
package corpusbench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CorpusDir is the shared corpus, beside the repository (../shared/testdata/openshift-corpus
// from its root), as CI lays it out.
const CorpusDir = "../../../shared/testdata/openshift-corpus"

// Case is one template file of the corpus and what OpenShift was asked to process it with.
type Case struct {
	// Name is the file's path under templates/.
	Name string
	// File is the file as it is.
	File []byte
	// YAML says the file is read as YAML (by its extension), not JSON.
	YAML bool
	// Values are the parameter values of oc process -p, in the order given.
	Values []Value
	// Items are the objects OpenShift processed the file into.
	Items []json.RawMessage
}

// Value is one parameter value, as -p NAME=VALUE gives it.
type Value struct{ Name, Value string }

// Map returns the values by name, as a request's parameters.
func (c *Case) Map() map[string]string {
	out := make(map[string]string, len(c.Values))
	for _, v := range c.Values {
		out[v.Name] = v.Value
	}
	return out
}

// ReadCorpus reads every template of the corpus under dir with its expected output.
func ReadCorpus(dir string) ([]Case, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	templates := filepath.Join(root, "templates")
	if _, err := os.Stat(templates); err != nil {
		return nil, fmt.Errorf("the OpenShift corpus is not at %s (../shared/testdata/openshift-corpus from the repository root): %w", root, err)
	}
	var cases []Case
	err = filepath.WalkDir(templates, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(templates, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(filepath.Join(root, "expected", rel+".json"))
		if err != nil {
			return err
		}
		var expected struct {
			Args []string `json:"args"`
			List struct {
				Items []json.RawMessage `json:"items"`
			} `json:"list"`
		}
		if err := json.Unmarshal(raw, &expected); err != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
		ext := strings.ToLower(filepath.Ext(rel))
		c := Case{Name: rel, File: data, YAML: ext == ".yaml" || ext == ".yml", Items: expected.List.Items}
		for i := 0; i+1 < len(expected.Args); i += 2 {
			if expected.Args[i] != "-p" {
				return fmt.Errorf("%s: only -p arguments are expected, got %q", rel, expected.Args[i])
			}
			name, value, _ := strings.Cut(expected.Args[i+1], "=")
			c.Values = append(c.Values, Value{name, value})
		}
		cases = append(cases, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}
