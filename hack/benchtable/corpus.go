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
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// A geomean row is a ratio a benchmark computes itself over many cases and reports as a
// metric: BenchmarkCorpus (test/corpusbench) measures every path on each template of the
// corpus in one loop and reports, per format, the geometric mean over the templates of each
// template's ratio, beside each path's total CPU time (<path>-cpu-ns/op). The row prints both
// paths' totals and the geometric mean, which is what the target is about.
type geomean struct {
	what     string
	metric   string // the ratio's metric, e.g. x-server
	measured string // the paths whose totals are shown
	baseline string
	target   float64
	// atLeast: the ratio must stay at or over target (a speed-up); else at or under it.
	atLeast bool
}

var geomeans = []geomean{
	{"corpus: server's POST processedtemplates handler vs OpenShift decode+Process, speed-up (geomean)", "x-server", "server", "openshift", 10, true},
	{"corpus: the same through the whole handler chain (authn, authz, audit, APF), speed-up", "x-chain", "chain", "openshift", 0, true},
	{"corpus: the engine (stencil process --local) vs OpenShift decode+Process, speed-up", "x-engine", "engine", "openshift", 0, true},
	{"corpus: server path's time / the engine's (server's speed-up >= 0.9 of the engine's)", "server/engine", "server", "engine", 1 / 0.9, false},
	{"corpus: cached plan of a stored template vs OpenShift decode+Process, speed-up", "x-cached", "cached", "openshift", 50, true},
	{"corpus: server path's time / an encoding/json round trip of the template", "server/roundtrip", "server", "roundtrip", 0.5, false},
}

// corpusLine is a result line of BenchmarkCorpus; corpusMetric one of its metrics.
var (
	corpusLine   = regexp.MustCompile(`^BenchmarkCorpus/(json|yaml)(-\d+)?\s`)
	corpusMetric = regexp.MustCompile(`\s(NaN|[\d.e+-]+) ([a-z/-]+)`)
)

// collectCorpus records every metric of a BenchmarkCorpus line as BenchmarkCorpus/<format>#<metric>.
func collectCorpus(text string, runs map[string][]float64) {
	m := corpusLine.FindStringSubmatch(text)
	if m == nil {
		return
	}
	for _, c := range corpusMetric.FindAllStringSubmatch(text, -1) {
		if v, err := strconv.ParseFloat(c[1], 64); err == nil && !math.IsNaN(v) {
			key := "BenchmarkCorpus/" + m[1] + "#" + c[2]
			runs[key] = append(runs[key], v)
		}
	}
}

// printGeomeans prints a row per geomean and format measured and returns how many missed.
func printGeomeans(values map[string]float64) int {
	missed := 0
	for _, g := range geomeans {
		for _, format := range []string{"json", "yaml"} {
			at := "BenchmarkCorpus/" + format + "#"
			ratio, ok := values[at+g.metric]
			if !ok {
				continue
			}
			target, met := "report", true
			switch {
			case g.target == 0:
			case g.atLeast:
				target, met = fmt.Sprintf(">= %.2f", g.target), ratio >= g.target
			default:
				target, met = fmt.Sprintf("<= %.2f", g.target), ratio <= g.target
			}
			mark := ""
			if !met {
				mark, missed = "  MISSED", missed+1
			}
			name := fmt.Sprintf("%s, %.0f templates", format, values[at+"templates"])
			fmt.Printf("%-44.44s %-22.22s %12s %12s %8.3f %8s%s\n", g.what, name,
				duration(values[at+g.measured+"-cpu-ns/op"]), duration(values[at+g.baseline+"-cpu-ns/op"]), ratio, target, mark)
		}
	}
	return missed
}
