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
	"regexp"
	"strconv"
)

// A difference is a comparison whose target is a time, not a ratio: the measured path may
// cost at most target more than its baseline (a latency over a transport floor), or, without
// a baseline, at most target (a budget).
type difference struct {
	what     string
	pattern  *regexp.Regexp
	measured string
	baseline string // "" for a budget
	target   float64
}

// ms is a millisecond in ns.
const ms = 1e6

var differences = []difference{
	{"Argo CD GenerateManifest, 200 objects, p95: stencil sidecar minus the trivial sh plugin",
		regexp.MustCompile(`^BenchmarkArgoCDGenerateManifest/(?P<side>stencil|sh)` + p95Suffix + `$`), "stencil", "sh", 300 * ms},
	{"Argo CD plugin's whole render of 200 objects (a new process), CPU (user+sys) within a budget",
		regexp.MustCompile(`^BenchmarkArgoCD(?P<side>RenderCPU)` + cpuSuffix + `$`), "RenderCPU", "", 100 * ms},
	{"start-up: stencil version, CPU (user+sys) of the whole process",
		regexp.MustCompile(`^BenchmarkStartup/(?P<side>version)` + cpuSuffix + `$`), "version", "", 20 * ms},
	{"start-up: stencil process --local, one object, CPU (user+sys)",
		regexp.MustCompile(`^BenchmarkStartup/(?P<side>process-local)` + cpuSuffix + `$`), "process-local", "", 20 * ms},
}

// peakBudgets are budgets of the peak resident memory a benchmark reports (peak-rss-bytes).
var peakBudgets = []struct {
	what, name string
	budget     float64
}{
	{"start-up: stencil version, peak resident memory", "BenchmarkStartup/version", 30 << 20},
	{"start-up: stencil process --local, one object, peak resident memory", "BenchmarkStartup/process-local", 30 << 20},
}

// peakSuffix names, in the table's map, the peak-rss-bytes metric of a benchmark.
const peakSuffix = "#peak"

var peakMetric = regexp.MustCompile(`\s([\d.]+) peak-rss-bytes`)

// collectPeak records the peak-rss-bytes metric of the result line text of benchmark name.
func collectPeak(text, name string, runs map[string][]float64) {
	if c := peakMetric.FindStringSubmatch(text); c != nil {
		if v, err := strconv.ParseFloat(c[1], 64); err == nil {
			runs[name+peakSuffix] = append(runs[name+peakSuffix], v)
		}
	}
}

// printPeaks prints a row per peak budget measured and returns how many missed.
func printPeaks(values map[string]float64) int {
	missed := 0
	for _, p := range peakBudgets {
		v, ok := values[p.name+peakSuffix]
		if !ok {
			continue
		}
		mark := ""
		if v > p.budget {
			mark, missed = "  MISSED", missed+1
		}
		fmt.Printf("%-44.44s %-22.22s %12s %12s %8.3f %8s%s\n", p.what, "peak RSS", byteSize(v), "budget", v/p.budget, "<= "+byteSize(p.budget), mark)
	}
	return missed
}

// p95Suffix names, in the table's map, the 95th percentile latency a benchmark reports as its
// p95-ns/op metric.
const p95Suffix = "#p95"

var p95Metric = regexp.MustCompile(`\s([\d.]+) p95-ns/op`)

// collectLatency records the p95-ns/op metric of the result line text of benchmark name.
func collectLatency(text, name string, runs map[string][]float64) {
	if c := p95Metric.FindStringSubmatch(text); c != nil {
		if v, err := strconv.ParseFloat(c[1], 64); err == nil {
			runs[name+p95Suffix] = append(runs[name+p95Suffix], v)
		}
	}
}

// printDifferences prints a row per difference measured and returns how many missed.
func printDifferences(nsPerOp map[string]float64) int {
	missed := 0
	for _, d := range differences {
		for _, r := range pairsOrBudget(d, nsPerOp) {
			over, baseline, shown := r.measured-r.baseline, duration(r.baseline), "<= +"+duration(d.target)
			ok := over <= d.target
			if d.baseline == "" {
				baseline, shown, ok = "budget", "<= "+duration(d.target), r.measured <= d.target
				over = r.measured - d.target
			}
			mark := ""
			if !ok {
				mark, missed = "  MISSED", missed+1
			}
			fmt.Printf("%-44.44s %-22.22s %12s %12s %8s %8s%s\n", d.what, r.name, duration(r.measured), baseline, signed(over), shown, mark)
		}
	}
	return missed
}

// pairsOrBudget is pairs for a difference over a baseline; for a budget, every measured case.
func pairsOrBudget(d difference, nsPerOp map[string]float64) []row {
	if d.baseline != "" {
		return pairs(comparison{what: d.what, pattern: d.pattern, measured: d.measured, baseline: d.baseline}, nsPerOp)
	}
	var out []row
	for name, v := range nsPerOp {
		if m := d.pattern.FindStringSubmatch(name); m != nil && m[d.pattern.SubexpIndex("side")] == d.measured {
			out = append(out, row{name: d.measured, measured: v, baseline: d.target})
		}
	}
	return out
}

// signed writes a difference of times with its sign.
func signed(ns float64) string {
	if ns < 0 {
		return "-" + duration(-ns)
	}
	return "+" + duration(ns)
}
