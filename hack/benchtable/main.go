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

// Command benchtable reads the output of `go test -bench` (make bench) and prints one table:
// each measured path beside its baseline of the same run, the ratio, and the target.
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
)

// comparison pairs a benchmark with its baseline. Its pattern names two groups: side, which is
// measured or baseline, and case, what the row is about (the whole name when it has none).
type comparison struct {
	what     string
	pattern  *regexp.Regexp
	measured string
	baseline string
	// target is the ratio measured/baseline to stay under; inverted compares throughput
	// (baseline/measured must stay over target).
	target   float64
	inverted bool
	// bytes compares the bytes allocated per operation (B/op), not the time.
	bytes bool
}

var comparisons = []comparison{
	{"template in the request, JSON -> List, vs encoding/json map decode+encode",
		regexp.MustCompile(`^BenchmarkFromBytes/(?P<case>.+)/json/(?P<side>oneshot|baseline)$`), "oneshot", "baseline", 0.3, false, false},
	{"template in the request, YAML -> List, vs sigs.k8s.io/yaml YAMLToJSON alone",
		regexp.MustCompile(`^BenchmarkFromBytes/(?P<case>.+)/yaml/(?P<side>oneshot|baseline)$`), "oneshot", "baseline", 1.3, false, false},
	{"YAML request->List, rate vs sigs+engine",
		regexp.MustCompile(`^BenchmarkFromBytes/(?P<case>.+)/yaml/(?P<side>oneshot|sigs)$`), "oneshot", "sigs", 1.3, true, false},
	{"YAML request->List, B/op vs sigs+engine",
		regexp.MustCompile(`^BenchmarkFromBytes/(?P<case>.+)/yaml/(?P<side>oneshot|sigs)` + bytesSuffix + `$`), "oneshot", "sigs", 0.6, false, true},
	{"YAML file->List, time: positions vs none",
		regexp.MustCompile(`^BenchmarkFromBytes/(?P<case>.+)/yaml/(?P<side>positions|oneshot)$`), "positions", "oneshot", 1.1, false, false},
	{"YAML file->List, B/op: positions vs none",
		regexp.MustCompile(`^BenchmarkFromBytes/(?P<case>.+)/yaml/(?P<side>positions|oneshot)` + bytesSuffix + `$`), "positions", "oneshot", 1.1, false, true},
	{"JSON file->List, time: positions vs none",
		regexp.MustCompile(`^BenchmarkFromBytes/(?P<case>.+)/json/(?P<side>positions|oneshot)$`), "positions", "oneshot", 1.1, false, false},
	{"JSON file->List, B/op: positions vs none",
		regexp.MustCompile(`^BenchmarkFromBytes/(?P<case>.+)/json/(?P<side>positions|oneshot)` + bytesSuffix + `$`), "positions", "oneshot", 1.1, false, true},
	{"stored template, cached plan, vs encoding/json map decode+encode of its objects",
		regexp.MustCompile(`^BenchmarkProcess/(?P<case>.+)/(?P<side>cached|baseline)$`), "cached", "baseline", 0.3, false, false},
	{"built-in transformers vs krusty (kustomize), same kustomization",
		regexp.MustCompile(`^Benchmark(?P<side>Pipeline|Krusty)/(?P<case>pairs=\d+)$`), "Pipeline", "Krusty", 0.02, false, false},
	{"200 objects, one annotation: Starlark transformer vs built-in AnnotationsTransformer",
		regexp.MustCompile(`^BenchmarkPluginAnnotate/(?P<side>starlark|builtin)$`), "starlark", "builtin", 5, false, false},
	{"200 objects, one annotation: exec plugin (KRM function, confined) vs built-in",
		regexp.MustCompile(`^BenchmarkPluginAnnotate/(?P<side>exec|builtin)$`), "exec", "builtin", 30, false, false},
	{"Starlark guards: guarded vs plain go.starlark.net, same script, 200 objects",
		regexp.MustCompile(`^BenchmarkStarlarkRoutes/(?P<case>annotate|compute)/(?P<side>guarded|plain)$`), "guarded", "plain", 1.5, false, false},
	{"Starlark guards, worst case (a loop of arithmetic and comparisons) vs plain",
		regexp.MustCompile(`^BenchmarkStarlarkRoutes/(?P<case>loop)/(?P<side>guarded|plain)$`), "guarded", "plain", 4, false, false},
	{"Starlark guarded in-process vs in a child process (prototype of kernel limits)",
		regexp.MustCompile(`^BenchmarkStarlarkRoutes/(?P<case>annotate|compute)/(?P<side>guarded|child)$`), "guarded", "child", 1, false, false},
	{"stored template, processing charged to the memory budget vs the renderer alone",
		regexp.MustCompile(`^BenchmarkMemoryBudget/(?P<case>.+)/(?P<side>charged|uncharged)$`), "charged", "uncharged", 1.1, false, false},
	{"preview of a change across 1,000 instances (4 objects) vs rendering each once",
		regexp.MustCompile(`^BenchmarkPreview/(?P<case>instances=\d+)/(?P<side>preview|render-once)$`), "preview", "render-once", 8, false, false},
	{"provenance, 10x the objects (100 -> 1,000)",
		regexp.MustCompile(`^BenchmarkProvenanceScaling/(?P<case>[a-z.]+)/(?P<side>objects=100|objects=1000)/provenance$`), "objects=1000", "objects=100", 12, false, false},
	{"provenance, 10x the objects (1,000 -> 10,000)",
		regexp.MustCompile(`^BenchmarkProvenanceScaling/(?P<case>[a-z.]+)/(?P<side>objects=1000|objects=10000)/provenance$`), "objects=10000", "objects=1000", 12, false, false},
	{"file -> List, provenance vs none, 10,000 objects",
		regexp.MustCompile(`^BenchmarkProvenanceScaling/(?P<case>[a-z.]+)/objects=10000/(?P<side>provenance|render)$`), "provenance", "render", 3, false, false},
	{"stencil lint, 10x the objects (100 -> 1,000)",
		regexp.MustCompile(`^BenchmarkLintScaling/(?P<side>objects=100|objects=1000)/(?P<case>lint|lint\+types)$`), "objects=1000", "objects=100", 12, false, false},
	{"stencil lint, 10x the objects (1,000 -> 10,000)",
		regexp.MustCompile(`^BenchmarkLintScaling/(?P<side>objects=1000|objects=10000)/(?P<case>lint|lint\+types)$`), "objects=10000", "objects=1000", 12, false, false},
	{"stencil lint vs the server's checks, 10,000 objects",
		regexp.MustCompile(`^BenchmarkLintScaling/objects=10000/(?P<side>lint|server)$`), "lint", "server", 3, false, false},
	{"stencil lint + type check vs the server's checks, 10,000 objects",
		regexp.MustCompile(`^BenchmarkLintScaling/objects=10000/(?P<side>lint\+types|server)$`), "lint+types", "server", 3, false, false},
	{"whole process, 800 pairs: stencil CLI (YAML out) vs kubectl kustomize",
		regexp.MustCompile(`^BenchmarkWholeProcess/(?P<side>stencil-yaml|kubectl-kustomize)$`), "stencil-yaml", "kubectl-kustomize", 0.01, false, false},
	{"whole process, 800 pairs: stencil CLI (JSON out) vs kubectl kustomize",
		regexp.MustCompile(`^BenchmarkWholeProcess/(?P<side>stencil-json|kubectl-kustomize)$`), "stencil-json", "kubectl-kustomize", 0.01, false, false},
	{"whole process, CPU time (user+sys): stencil CLI (YAML out) vs kubectl kustomize",
		regexp.MustCompile(`^BenchmarkWholeProcess/(?P<side>stencil-yaml|kubectl-kustomize)` + cpuSuffix + `$`), "stencil-yaml", "kubectl-kustomize", 0.01, false, false},
	{"whole process, CPU time (user+sys): stencil CLI (JSON out) vs kubectl kustomize",
		regexp.MustCompile(`^BenchmarkWholeProcess/(?P<side>stencil-json|kubectl-kustomize)` + cpuSuffix + `$`), "stencil-json", "kubectl-kustomize", 0.01, false, false},
	{"Template create, 1,000 Templates in the namespace vs none",
		regexp.MustCompile(`^BenchmarkTemplateCreate/(?P<side>templates=1000|templates=0)$`), "templates=1000", "templates=0", 1.2, false, false},
	{"Template create, 10,000 Templates in the namespace vs none",
		regexp.MustCompile(`^BenchmarkTemplateCreate/(?P<side>templates=10000|templates=0)$`), "templates=10000", "templates=0", 1.2, false, false},
	{"Template create, CPU time: 1,000 Templates in the namespace vs none",
		regexp.MustCompile(`^BenchmarkTemplateCreate/(?P<side>templates=1000|templates=0)` + cpuSuffix + `$`), "templates=1000", "templates=0", 1.2, false, false},
	{"Template create, CPU time: 10,000 Templates in the namespace vs none",
		regexp.MustCompile(`^BenchmarkTemplateCreate/(?P<side>templates=10000|templates=0)` + cpuSuffix + `$`), "templates=10000", "templates=0", 1.2, false, false},
	{"Template create, B/op: 1,000 Templates in the namespace vs none",
		regexp.MustCompile(`^BenchmarkTemplateCreate/(?P<side>templates=1000|templates=0)` + bytesSuffix + `$`), "templates=1000", "templates=0", 1.2, false, true},
	{"Template create, B/op: 10,000 Templates in the namespace vs none",
		regexp.MustCompile(`^BenchmarkTemplateCreate/(?P<side>templates=10000|templates=0)` + bytesSuffix + `$`), "templates=10000", "templates=0", 1.2, false, true},
	{"render file of 200 objects in-process vs the engine alone (stencil process --local's path)",
		regexp.MustCompile(`^BenchmarkRender/(?P<side>render-file|engine)$`), "render-file", "engine", 1.2, false, false},
	{"server: POST templates/{name}/processed, requests/s vs GET of the same template",
		regexp.MustCompile(`^BenchmarkProcessedVsGet/(?P<side>POST-processed|GET)$`), "POST-processed", "GET", 0.8, true, false},
	{"server: POST processedtemplates (template in the request), requests/s vs GET",
		regexp.MustCompile(`^BenchmarkProcessedVsGet/(?P<side>POST-processedtemplates|GET)$`), "POST-processedtemplates", "GET", 0.8, true, false},
}

// line reads one result; a sub-benchmark run again under the same name in one invocation
// (name#01, name#02: rounds over several sizes) counts as another run of it.
var line = regexp.MustCompile(`^(Benchmark\S+?)(#\d+)?(-\d+)?\s+\d+\s+([\d.]+) ns/op`)

// cpuSuffix names, in the table's map, the CPU time a benchmark reports as its cpu-ns/op
// metric (the user+system time of the processes it starts), beside its wall time.
const cpuSuffix = "#cpu"

var cpuMetric = regexp.MustCompile(`\s([\d.]+) cpu-ns/op`)

// bytesSuffix names, in the table's map, the bytes a benchmark allocates per operation
// (-benchmem's B/op), beside its time.
const bytesSuffix = "#bytes"

var bytesMetric = regexp.MustCompile(`\s(\d+) B/op`)

func main() {
	// A benchmark run several times (-count) counts by its median: on a shared machine one run
	// of a sub-benchmark may fall in a burst of load its baseline missed.
	runs := map[string][]float64{}
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		if m := line.FindStringSubmatch(scanner.Text()); m != nil {
			v, err := strconv.ParseFloat(m[4], 64)
			if err == nil {
				runs[m[1]] = append(runs[m[1]], v)
			}
			if c := cpuMetric.FindStringSubmatch(scanner.Text()); c != nil {
				if v, err := strconv.ParseFloat(c[1], 64); err == nil {
					runs[m[1]+cpuSuffix] = append(runs[m[1]+cpuSuffix], v)
				}
			}
			collectLatency(scanner.Text(), m[1], runs)
			collectCorpus(scanner.Text(), runs)
			collectPeak(scanner.Text(), m[1], runs)
			if c := bytesMetric.FindStringSubmatch(scanner.Text()); c != nil {
				if v, err := strconv.ParseFloat(c[1], 64); err == nil {
					runs[m[1]+bytesSuffix] = append(runs[m[1]+bytesSuffix], v)
				}
			}
		}
	}
	nsPerOp := map[string]float64{}
	for name, values := range runs {
		nsPerOp[name] = median(values)
	}
	fmt.Printf("%-44s %-22s %12s %12s %8s %8s\n", "comparison", "case", "measured", "baseline", "ratio", "target")
	missed := 0
	for _, c := range comparisons {
		rows := pairs(c, nsPerOp)
		for _, r := range rows {
			ratio := r.measured / r.baseline
			target := fmt.Sprintf("<= %.2f", c.target)
			ok := ratio <= c.target
			if c.inverted {
				ratio = r.baseline / r.measured
				target = fmt.Sprintf(">= %.2f", c.target)
				ok = ratio >= c.target
			}
			mark := ""
			if !ok {
				mark, missed = "  MISSED", missed+1
			}
			measured, baseline := duration(r.measured), duration(r.baseline)
			if c.bytes {
				measured, baseline = byteSize(r.measured), byteSize(r.baseline)
			}
			fmt.Printf("%-44.44s %-22.22s %12s %12s %8.3f %8s%s\n", c.what, r.name, measured, baseline, ratio, target, mark)
		}
	}
	missed += printDifferences(nsPerOp)
	missed += printGeomeans(nsPerOp)
	missed += printPeaks(nsPerOp)
	fmt.Printf("\n%d comparisons missed their target\n", missed)
}

type row struct {
	name               string
	measured, baseline float64
}

// pairs finds, for one comparison, every case that has both numbers.
func pairs(c comparison, nsPerOp map[string]float64) []row {
	byCase := map[string]*row{}
	for name, v := range nsPerOp {
		m := c.pattern.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		which, key := m[c.pattern.SubexpIndex("side")], c.measured
		if i := c.pattern.SubexpIndex("case"); i >= 0 {
			key = m[i]
		}
		r := byCase[key]
		if r == nil {
			r = &row{name: key}
			byCase[key] = r
		}
		switch which {
		case c.measured:
			r.measured = v
		case c.baseline:
			r.baseline = v
		}
	}
	var out []row
	for _, r := range byCase {
		if r.measured > 0 && r.baseline > 0 {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// median returns the middle of values (the mean of the two middle ones for an even count).
func median(values []float64) float64 {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func byteSize(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func duration(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}
