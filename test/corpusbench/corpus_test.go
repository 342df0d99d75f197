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

package corpusbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/render"
)

// prepared is one case of the corpus made ready for every path.
type prepared struct {
	Case
	// body is the file with the values written in: what a client posts to processedtemplates.
	body []byte
	// asJSON is the template's JSON, for the encoding/json round trip.
	asJSON []byte
	values map[string]string
	stored *templates.Template
	// namespace is the one the request is sent to: the template's own, when it names one (the
	// server refuses a body of another namespace than the request's), else bench.
	namespace string
}

var (
	shared    *Server
	openshift *OpenShift
	// engine is the CLI's renderer; cache the server's adapter, which keeps the plans of stored
	// templates.
	engine *render.Renderer
	cache  *renderrest.Adapter
	corpus []prepared
	// excluded are the cases no path is measured on, with why.
	excluded []string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	cases, err := ReadCorpus(CorpusDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if openshift, err = NewOpenShift(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	engine, cache = render.NewRenderer(render.Options{}), renderrest.NewAdapter(renderrest.Sources{})
	for i, c := range cases {
		p := prepared{Case: c, values: c.Map()}
		if p.body, err = WithValues(&c); err != nil {
			excluded = append(excluded, fmt.Sprintf("%s: the values cannot be written into the file: %v", c.Name, err))
			continue
		}
		start, end := templateDocument(c.File)
		if p.asJSON, err = yaml.YAMLToJSON(c.File[start:end]); err != nil {
			excluded = append(excluded, fmt.Sprintf("%s: %v", c.Name, err))
			continue
		}
		var meta struct {
			Metadata struct {
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		p.namespace = "bench"
		if json.Unmarshal(p.asJSON, &meta) == nil && meta.Metadata.Namespace != "" {
			p.namespace = meta.Metadata.Namespace
		}
		if p.stored, err = Stored(c.File, fmt.Sprintf("uid-%d", i)); err != nil {
			excluded = append(excluded, fmt.Sprintf("%s: %v", c.Name, err))
			continue
		}
		corpus = append(corpus, p)
	}
	code := m.Run()
	if shared != nil {
		shared.Stop()
		os.RemoveAll(serverDir)
	}
	return code
}

var (
	serverOnce sync.Once
	serverDir  string
	serverErr  error
)

// sharedServer starts the shared server on first use: a run that measures no server path does not
// start one.
func sharedServer(tb testing.TB) *Server {
	serverOnce.Do(func() {
		if serverDir, serverErr = os.MkdirTemp("", "corpusbench"); serverErr == nil {
			shared, serverErr = StartServer(context.Background(), serverDir)
		}
	})
	if serverErr != nil {
		tb.Fatalf("starting the server: %v", serverErr)
	}
	return shared
}

// TestPathsGiveOpenShiftsItems checks that every path the benchmark measures does the whole
// work: OpenShift's processor accepts every file, and the engine, the server's handler and
// the cached plan give OpenShift's items, so that no path is measured giving up early.
func TestPathsGiveOpenShiftsItems(t *testing.T) {
	for _, e := range excluded {
		t.Errorf("not measured: %s", e)
	}
	var w ResponseBuffer
	sharedServer(t)
	for _, c := range corpus {
		t.Run(c.Name, func(t *testing.T) {
			if _, err := openshift.Process(c.File, c.Values); err != nil {
				t.Errorf("OpenShift: %v", err)
			}
			check := func(path string, list []byte, err error) {
				t.Helper()
				if err == nil {
					var items []json.RawMessage
					if items, err = ListItems(list); err == nil {
						err = SameItems(items, c.Items)
					}
				}
				if err != nil {
					t.Errorf("%s: %v", path, err)
				}
			}
			list, err := Engine(engine, c.File, c.values)
			check("engine", list, err)
			err = shared.ProcessedTemplates(c.namespace, c.body, c.YAML, false, &w)
			check("server", w.Body.Bytes(), err)
			err = shared.ProcessedTemplates(c.namespace, c.body, c.YAML, true, &w)
			check("server, whole handler chain", w.Body.Bytes(), err)
			// The same body laid out otherwise must give the same items: a YAML body with CRLF
			// line ends (converted by the body filter, decoded from the converter's member
			// positions), a JSON body with other whitespace between its tokens.
			relaid := layouttest.Mixed(c.body, layouttest.Seed(c.body))
			if c.YAML {
				relaid = bytes.ReplaceAll(c.body, []byte("\n"), []byte("\r\n"))
			}
			err = shared.ProcessedTemplates(c.namespace, relaid, c.YAML, false, &w)
			check("server, body laid out again", w.Body.Bytes(), err)
			list, err = Cached(cache, c.stored, c.values)
			check("cached plan", list, err)
		})
	}
}

// The paths measured, in the order of each case's measurement.
const (
	pathOpenShift = iota
	pathEngine
	pathServer
	pathChain
	pathCached
	pathRoundTrip
	paths
)

var pathNames = [paths]string{"openshift", "engine", "server", "chain", "cached", "roundtrip"}

// BenchmarkCorpus measures, for every template of the corpus (JSON and YAML files apart), in
// one loop so that each path meets the same load: OpenShift's decode+Process (the baseline),
// the engine as stencil process --local calls it, the server's handler from the request's
// body to the answer's bytes (POST processedtemplates, provenance off; past the generic
// filters, and through the whole handler chain: x-chain), a cached plan, and an encoding/json
// round trip of the template. Each is timed by the process's CPU time (GC and
// the handler's goroutines included), repeated until a measurement takes about a millisecond.
// It reports, besides the CPU time of the whole set per path, the geometric means over the
// templates of:
//   - x-engine, x-server, x-cached: OpenShift's time / the path's (goals: server >= 10,
//     cached >= 50);
//   - server/engine: the server's time / the engine's (goal: server's x at least 0.9 of the
//     engine's, so this <= 1.11);
//   - server/roundtrip: the server's time / the encoding/json round trip's (goal <= 0.5).
func BenchmarkCorpus(b *testing.B) {
	for _, format := range []string{"json", "yaml"} {
		var cases []prepared
		for _, c := range corpus {
			if c.YAML == (format == "yaml") {
				cases = append(cases, c)
			}
		}
		b.Run(format, func(b *testing.B) {
			measureCorpus(b, cases)
		})
	}
}

func measureCorpus(b *testing.B, cases []prepared) {
	sharedServer(b)
	var w ResponseBuffer
	do := func(path int, c *prepared) {
		if err := runPath(path, c, &w); err != nil {
			b.Fatalf("%s, %s: %v", c.Name, pathNames[path], err)
		}
	}
	// Repetitions per measurement, so that each lasts about a millisecond of CPU.
	reps := make([][paths]int, len(cases))
	for i := range cases {
		for p := range paths {
			do(p, &cases[i]) // warm: the cached plan is compiled here
			t0 := cpuTime()
			do(p, &cases[i])
			took := max(cpuTime()-t0, time.Microsecond)
			reps[i][p] = int(min(max(time.Millisecond/took, 1), 200))
		}
	}
	sums := make([][paths]time.Duration, len(cases))
	n := 0
	for b.Loop() {
		n++
		for i := range cases {
			for p := range paths {
				t0 := cpuTime()
				for range reps[i][p] {
					do(p, &cases[i])
				}
				sums[i][p] += (cpuTime() - t0) / time.Duration(reps[i][p])
			}
		}
	}
	var total [paths]float64
	ratio := func(num, den int) float64 {
		logSum := 0.0
		for i := range cases {
			// A nanosecond at least: a measurement the clock saw as nothing must not make the
			// mean infinite (or NaN).
			logSum += math.Log(float64(max(sums[i][num], 1)) / float64(max(sums[i][den], 1)))
		}
		return math.Exp(logSum / float64(len(cases)))
	}
	for i := range cases {
		for p := range paths {
			total[p] += float64(sums[i][p]) / float64(n)
		}
	}
	for p := range paths {
		b.ReportMetric(total[p], pathNames[p]+"-cpu-ns/op")
	}
	if dump := os.Getenv("CORPUSBENCH_CSV"); dump != "" {
		writeCSV(b, dump, cases, sums, n)
	}
	b.ReportMetric(float64(len(cases)), "templates")
	b.ReportMetric(ratio(pathOpenShift, pathEngine), "x-engine")
	b.ReportMetric(ratio(pathOpenShift, pathServer), "x-server")
	b.ReportMetric(ratio(pathOpenShift, pathChain), "x-chain")
	b.ReportMetric(ratio(pathOpenShift, pathCached), "x-cached")
	b.ReportMetric(ratio(pathServer, pathEngine), "server/engine")
	b.ReportMetric(ratio(pathServer, pathRoundTrip), "server/roundtrip")
}

// cpuTime is the CPU time this process has used, every thread's.
func cpuTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

// BenchmarkPaths runs each path alone over the JSON or YAML files of the corpus, one
// iteration a pass over all of them, for profiles and instruction counts of one path
// (BenchmarkCorpus is the comparison). CORPUSBENCH_MAX_BYTES keeps only the files of at most
// that many bytes: on the smallest, what the server adds to the engine is most of the
// difference between them.
func BenchmarkPaths(b *testing.B) {
	maxBytes, _ := strconv.Atoi(os.Getenv("CORPUSBENCH_MAX_BYTES"))
	for _, format := range []string{"json", "yaml"} {
		var cases []prepared
		for _, c := range corpus {
			if c.YAML == (format == "yaml") && (maxBytes <= 0 || len(c.File) <= maxBytes) {
				cases = append(cases, c)
			}
		}
		for p := range paths {
			b.Run(format+"/"+pathNames[p], func(b *testing.B) {
				if p == pathServer || p == pathChain {
					sharedServer(b)
				}
				b.ReportAllocs()
				var w ResponseBuffer
				for b.Loop() {
					for i := range cases {
						if err := runPath(p, &cases[i], &w); err != nil {
							b.Fatalf("%s: %v", cases[i].Name, err)
						}
					}
				}
			})
		}
	}
}

// runPath runs one path on one case. It is never inlined, so that callgrind counts the
// instructions of one path alone: --toggle-collect='*corpusbench.runPath' on BenchmarkPaths.
//
//go:noinline
func runPath(path int, c *prepared, w *ResponseBuffer) error {
	var err error
	switch path {
	case pathOpenShift:
		_, err = openshift.Process(c.File, c.Values)
	case pathEngine:
		_, err = Engine(engine, c.File, c.values)
	case pathServer:
		err = shared.ProcessedTemplates(c.namespace, c.body, c.YAML, false, w)
	case pathChain:
		err = shared.ProcessedTemplates(c.namespace, c.body, c.YAML, true, w)
	case pathCached:
		_, err = Cached(cache, c.stored, c.values)
	case pathRoundTrip:
		_, err = RoundTrip(c.asJSON)
	}
	return err
}

// writeCSV writes each case's CPU time per path (nanoseconds), for a look at where the ratios
// come from: CORPUSBENCH_CSV=file go test -bench BenchmarkCorpus.
func writeCSV(b *testing.B, file string, cases []prepared, sums [][paths]time.Duration, n int) {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "template,bytes,%s\n", strings.Join(pathNames[:], ","))
	for i, c := range cases {
		fmt.Fprintf(f, "%s,%d", c.Name, len(c.File))
		for p := range paths {
			fmt.Fprintf(f, ",%d", sums[i][p]/time.Duration(n))
		}
		fmt.Fprintln(f)
	}
}
