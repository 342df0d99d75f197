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

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mustStencil runs kubectl stencil as user and returns its output and its error stream.
func mustStencil(t *testing.T, user string, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, _, err := env.stencil(user, args...)
	if err != nil {
		t.Fatalf("kubectl stencil %s: %v\n%s%s", strings.Join(args, " "), err, stderr, stdout)
	}
	return stdout, stderr
}

// stencil runs kubectl-stencil as user, the binary kubectl runs for kubectl stencil, and
// returns its output, its error stream and its resource usage.
func (c *cluster) stencil(user string, args ...string) (stdout, stderr string, usage *syscall.Rusage, err error) {
	cmd := exec.Command(c.bin.kubectl, append([]string{"stencil"}, args...)...)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+c.kubeconfigs[user],
		"PATH="+filepath.Dir(c.bin.kubectlStencil)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if cmd.ProcessState != nil {
		usage, _ = cmd.ProcessState.SysUsage().(*syscall.Rusage)
	}
	return out.String(), errOut.String(), usage, err
}

// TestExportMeasure exports a namespace of 500 objects and prints the time and the peak memory
// it took; it asserts only that every object is there.
func TestExportMeasure(t *testing.T) {
	const namespace = "e2e-export-big"
	mustKubectl(t, "admin", "", "create", "namespace", namespace)
	var items []string
	for i := 0; i < 100; i++ {
		name := fmt.Sprintf("part-%03d", i)
		items = append(items,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"`+name+`","labels":{"app":"big"}},"spec":{"replicas":2,
			"selector":{"matchLabels":{"app":"big","part":"`+name+`"}},"template":{"metadata":{"labels":{"app":"big","part":"`+name+`"}},
			"spec":{"containers":[{"name":"web","image":"big:1","envFrom":[{"configMapRef":{"name":"`+name+`"}},{"secretRef":{"name":"`+name+`"}}]}]}}}}`,
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"`+name+`","labels":{"app":"big"}},"spec":{"clusterIP":"None",
			"selector":{"app":"big","part":"`+name+`"},"ports":[{"port":80}]}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`","labels":{"app":"big"}},"data":{"config.yaml":"`+strings.Repeat("key: value\\n", 40)+`"}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"`+name+`","labels":{"app":"big"}},"stringData":{"password":"`+name+`"}}`,
			`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"`+name+`","labels":{"app":"big"}}}`)
	}
	mustKubectl(t, "admin", `{"apiVersion":"v1","kind":"List","items":[`+strings.Join(items, ",")+`]}`, "create", "-n", namespace, "-f", "-")

	for run := 1; run <= 3; run++ {
		start := time.Now()
		out, stderr, usage, err := env.stencil("admin", "export", "-n", namespace, "--name", "big", "-o", "json")
		elapsed := time.Since(start)
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		var template struct {
			Objects []json.RawMessage `json:"objects"`
		}
		if err := json.Unmarshal([]byte(out), &template); err != nil {
			t.Fatal(err)
		}
		if len(template.Objects) != 500 {
			t.Fatalf("%d objects exported, want 500", len(template.Objects))
		}
		fmt.Printf("e2e: stencil export of 500 objects, run %d: %s wall, %.0f ms CPU, %d MiB peak RSS, %d KiB of JSON\n",
			run, elapsed.Round(time.Millisecond), float64(usage.Utime.Nano()+usage.Stime.Nano())/1e6, usage.Maxrss/1024, len(out)/1024)
	}
}
