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
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/lint"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/typecheck"
)

// manyObjects is a YAML template of n Deployments, every tenth with a misspelt field, and
// how many of those there are.
func manyObjects(n int) ([]byte, int) {
	var b strings.Builder
	b.WriteString("apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: many\nparameters:\n- name: REPLICAS\n  type: int\n  value: \"1\"\nobjects:\n")
	bad := 0
	for i := 0; i < n; i++ {
		field := "replicas"
		if i%10 == 9 {
			field, bad = "replica", bad+1
		}
		fmt.Fprintf(&b, "- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web-%d\n  spec:\n    %s: ${{REPLICAS}}\n"+
			"    selector: {matchLabels: {app: web}}\n    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers: [{name: web, image: nginx}]\n", i, field)
	}
	return []byte(b.String()), bad
}

// TestTenThousandObjects lints a template of 10,000 objects, as large as the server takes
// (its 3 MiB request body): every misspelt field is counted, the first 100 listed with their
// lines, the store's refusal of a template too large to store is there as the server would
// answer it, and the whole run allocates within lint's memory budget, 80 times the file
// (62 times on 2026-11-27: the reader with positions, the decoder, the store's checks and one
// decoded object at a time for the type check).
func TestTenThousandObjects(t *testing.T) {
	data, bad := manyObjects(10000)
	if len(data) > 3<<20 {
		t.Fatalf("the template is %d bytes, over what the server takes", len(data))
	}
	c := checker(t)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ds := lint.File(context.Background(), "many.yaml", data, lint.Options{Checker: c, Plugins: plugin.Policy{}})
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes, %d objects: %d diagnostics, %.1f MiB allocated (%.1fx the file)", len(data), 10000, len(ds),
		float64(allocated)/(1<<20), float64(allocated)/float64(len(data)))
	if allocated > 80*uint64(len(data)) {
		t.Errorf("linting allocated %d MiB for a %d KiB file: over 80x", allocated>>20, len(data)>>10)
	}
	unknown, listed, tooLong := 0, "", false
	for _, d := range ds {
		switch {
		case d.Rule == lint.Refused && d.Path == "objects" && strings.Contains(d.Message, "Too long"):
			tooLong = true
		case d.Rule == typecheck.UnknownField:
			unknown++
			if d.Line <= 0 {
				t.Errorf("no line: %+v", d)
			}
		case d.Rule == typecheck.Unchecked:
			listed = d.Message
		default:
			t.Errorf("unexpected: %+v", d)
		}
	}
	if !tooLong {
		t.Error("the store refuses a template of 2.5 MB; lint does not say so")
	}
	if unknown != typecheck.DefaultMaxFindings || listed != fmt.Sprintf("%d more findings of the type check not listed", bad-unknown) {
		t.Errorf("%d unknown fields listed, then %q; %d in the file", unknown, listed, bad)
	}
}

// BenchmarkLint is stencil lint of one file of 1,000 Deployments: the server's checks and
// the type check; BenchmarkLint/checks is the server's checks alone, the baseline in the
// same run.
func BenchmarkLint(b *testing.B) {
	data, _ := manyObjects(1000)
	c := checker(b)
	for _, bc := range []struct {
		name    string
		checker *typecheck.Checker
	}{{"checks", nil}, {"checks+types", c}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				lint.File(context.Background(), "many.yaml", data, lint.Options{Checker: bc.checker})
			}
		})
	}
}
