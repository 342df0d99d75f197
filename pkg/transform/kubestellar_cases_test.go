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

package transform_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestKubeStellarCasesCovered keeps the promise that every case of the KubeStellar acceptance
// table (testdata/kubestellar-cases.md, a copy of shared/testdata/kubestellar-cases.md) has a
// table test: each case number must appear as "caseN" in a test name or comment of this
// package or of the packages below it (builtin, expand, remove, ...), except the cases that only KubeStellar's
// end-to-end setup can run.
func TestKubeStellarCasesCovered(t *testing.T) {
	notApplicable := map[string]string{
		"13": "KubeStellar end-to-end only (a Service reaching a workload cluster)",
		"14": "KubeStellar end-to-end only (a Job with generateName reaching a workload cluster)",
	}
	table, err := os.ReadFile("testdata/kubestellar-cases.md")
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(string(table), -1) {
		cases = append(cases, m[1])
	}
	if len(cases) < 39 {
		t.Fatalf("found %d cases in the table; has its format changed?", len(cases))
	}
	var sources strings.Builder
	for _, pattern := range []string{"*_test.go", "*/*_test.go", "*/*/*_test.go"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sources.Write(b)
		}
	}
	for _, n := range cases {
		if _, ok := notApplicable[n]; ok {
			continue
		}
		if !regexp.MustCompile(`(?i)\bcase ?` + n + `\b`).MatchString(sources.String()) {
			t.Errorf("case %s of the KubeStellar table has no test", n)
		}
	}
}
