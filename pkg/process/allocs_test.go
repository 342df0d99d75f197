//go:build !race

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

// The race detector changes what escapes to the heap, so the budgets hold without it only.

package process

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAllocationBudgets guards the allocations of the hot paths. Allocation counts do not
// depend on the machine, so a change that makes the engine allocate per object or per
// reference fails here, in CI, without any timer. Budgets are the counts measured when they
// were set plus about a fifth; lower them when the engine gets better.
func TestAllocationBudgets(t *testing.T) {
	mysql, err := os.ReadFile(filepath.Join("testdata", "mysql-persistent.json"))
	if err != nil {
		t.Fatal(err)
	}
	amp := AmpSizedTemplate()
	req := Request{Parameters: map[string]string{"MYSQL_USER": "u"}, IgnoreUnknownParameters: true, Generator: NewSeededGenerator(1)}
	cached := func(data []byte) func() {
		tmpl, d, err := DecodeTemplate(data)
		if err != nil {
			t.Fatal(err)
		}
		plan, errs := Compile(tmpl, d)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return func() {
			if _, errs := plan.Execute(req); len(errs) > 0 {
				t.Fatal(errs)
			}
		}
	}
	oneshot := func(data []byte) func() {
		return func() { listFromBytes(t, data, req) }
	}
	syntheticPlan := func(n int) func() {
		plan, errs := Compile(syntheticTemplate(n), Stencil)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return func() {
			if _, errs := plan.Execute(req); len(errs) > 0 {
				t.Fatal(errs)
			}
		}
	}
	for _, c := range []struct {
		name   string
		run    func()
		budget float64
	}{
		{"stored mysql-persistent, cached plan", cached(mysql), 90},
		{"stored amp-sized, cached plan", cached(amp), 220},
		// The cached path allocates per request, not per object: 1,000 objects cost what 100 do.
		{"stored synthetic-100, cached plan", syntheticPlan(100), 70},
		{"stored synthetic-1000, cached plan", syntheticPlan(1000), 70},
		{"mysql-persistent from the request's bytes", oneshot(mysql), 290},
		{"amp-sized from the request's bytes", oneshot(amp), 615},
	} {
		if got := testing.AllocsPerRun(20, c.run); got > c.budget {
			t.Errorf("%s: %.0f allocations per request, budget %.0f", c.name, got, c.budget)
		} else {
			t.Logf("%s: %.0f allocations per request (budget %.0f)", c.name, got, c.budget)
		}
	}
}
