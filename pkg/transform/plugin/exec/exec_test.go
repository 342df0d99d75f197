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

package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/sandbox"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin/exec/exectest"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// execPolicy is the policy of the test plugins.
func execPolicy(t testing.TB) *Policy {
	return &Policy{Dir: exectest.Build(t), Images: map[string]string{"registry.example.com/annotate:v1": "annotate"},
		Env: []string{"TOKEN=s3cr3t-token", "HOME=/nonexistent"}, Limits: Limits{Timeout: 3 * time.Second}}
}

// runPlugin compiles one generator or transformer config (YAML) under the test policy and
// runs it over the objects.
func runPlugin(t *testing.T, policy *Policy, generator bool, config string, objects ...string) ([]transform.Object, []string, error) {
	t.Helper()
	p, errs := testKinds.Compile(execPlugins{policy: policy}, []transform.Config{{Raw: transformtest.YAMLJSON(t, config), Generator: generator}})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	var decoded []transform.Object
	for _, o := range objects {
		decoded = append(decoded, transformtest.YAMLDocs(t, o)...)
	}
	ctx := transform.NewContext(t.Context(), 0)
	out, err := p.Transform(ctx, decoded)
	return out, ctx.Warnings(), err
}

const twoObjects = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n---\n{apiVersion: v1, kind: Service, metadata: {name: b}}"

func TestExecPluginProtocols(t *testing.T) {
	policy := execPolicy(t)
	t.Run("seed 000 generate", func(t *testing.T) {
		out, _, err := runPlugin(t, policy, true, "{apiVersion: team.example.com/v1, kind: App, metadata: {name: app}, spec: {name: made}}", twoObjects)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 3 || transform.NameOf(out[2]) != "made" || transform.NestedString(out[2], "data", "from") != "team-plugin" {
			t.Fatalf("generated: %s", transformtest.MustYAML(t, out))
		}
	})
	t.Run("seed 000 transform", func(t *testing.T) {
		out, _, err := runPlugin(t, policy, false, "{apiVersion: team.example.com/v1, kind: Team, metadata: {name: t}, spec: {team: blue}}", twoObjects)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 2 || transform.NestedString(out[0], "metadata", "labels", "team") != "blue" || transform.NestedString(out[1], "metadata", "labels", "team") != "blue" {
			t.Fatalf("transformed: %s", transformtest.MustYAML(t, out))
		}
	})
	for _, provider := range []string{"{exec: {path: annotate}}", "{container: {image: 'registry.example.com/annotate:v1'}}"} {
		t.Run("KRM function "+provider, func(t *testing.T) {
			out, _, err := runPlugin(t, policy, false, "{apiVersion: fn.example.com/v1, kind: Annotate, provider: "+provider+", spec: {value: krm}}", twoObjects)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 2 || transform.NestedString(out[1], "metadata", "annotations", "krm") != "krm" {
				t.Fatalf("transformed: %s", transformtest.MustYAML(t, out))
			}
		})
	}
	t.Run("KRM results of severity error fail per item", func(t *testing.T) {
		_, warnings, err := runPlugin(t, policy, false, "{apiVersion: fn.example.com/v1, kind: Annotate, provider: {exec: {path: annotate}}, spec: {value: x, fail: 'bad value'}}", twoObjects)
		if err == nil || !strings.Contains(err.Error(), "plugin annotate reported 1 error(s): ConfigMap a: bad value") {
			t.Fatalf("error %v", err)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], "just saying") {
			t.Fatalf("warnings %v", warnings)
		}
	})
}

func TestExecPluginFailures(t *testing.T) {
	policy := execPolicy(t)
	// Each failure is the plugin's doing, not the clock's: on a loaded machine under -race,
	// writing 100 MB can take longer than the usual test timeout before the output cap stops it.
	policy.Timeout = time.Minute
	for _, tc := range []struct {
		name, config string
		generator    bool
		want         error
		wantText     string
	}{
		{name: "exit 127 is an unsupported operation", config: "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: unsupported}}}", want: errPluginUnsupported,
			wantText: "plugin unsupported: the plugin does not support this operation (exit 127): a KRM function as a transformer"},
		{name: "exit 127 names seed 000's operation", config: "{apiVersion: unsupported/v1, kind: X, metadata: {name: g}}", generator: true,
			want: errPluginUnsupported, wantText: "plugin unsupported: the plugin does not support this operation (exit 127): generate"},
		{name: "100 MB on stdout passes the cap", config: "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: flood}}}", want: errPluginOutput},
		{name: "removing an object is refused", config: "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: remover}}}", wantText: "a transformer may not remove objects: v1 Service b"},
		{name: "stderr without the server's paths or the plugin's environment", config: "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: failing}}}",
			wantText: "the plugin failed (exit 3): cannot work in <workdir> with HOME=<redacted> and TOKEN=<redacted>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runPlugin(t, policy, tc.generator, tc.config, twoObjects)
			var te *transform.Error
			if !errors.As(err, &te) {
				t.Fatalf("want an error naming the transformer, got %v", err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %q, want %q", err, tc.want)
			}
			if tc.wantText != "" && !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("error %q, want it to say %q", err, tc.wantText)
			}
			if strings.Contains(err.Error(), policy.Dir) || strings.Contains(err.Error(), "s3cr3t") {
				t.Fatalf("the error leaks the server's paths or environment: %v", err)
			}
		})
	}
}

func TestExecPluginTimeoutKillsItsChildren(t *testing.T) {
	policy := execPolicy(t)
	policy.Timeout = 500 * time.Millisecond
	start := time.Now()
	_, _, err := runPlugin(t, policy, false, "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: sleeper}}}", twoObjects)
	if !errors.Is(err, errPluginTimeout) || !strings.Contains(err.Error(), "500ms") {
		t.Fatalf("error %v, want the time limit", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("returned after %s", took)
	}
	// Neither the plugin nor the child it started may be left: look for their executable.
	sleeper := filepath.Join(policy.Dir, "sleeper")
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := processesRunning(sleeper)
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes of the plugin are still running", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesRunning counts the live processes whose executable is exe.
func processesRunning(exe string) int {
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || target != exe {
			continue
		}
		status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if !strings.Contains(string(status), "State:\tZ") {
			n++
		}
	}
	return n
}

// TestExecPluginSandbox runs a plugin that tries to read /etc/passwd and a key file of the
// server, and to connect to a port of the host. What it may reach depends on the kernel:
// the test says which layers it found and checks each one that is there.
func TestExecPluginSandbox(t *testing.T) {
	features := sandbox.Probe()
	t.Logf("sandbox layers on this kernel: %s", features)
	keyDir := t.TempDir()
	keyFile := filepath.Join(keyDir, "tls.key")
	if err := os.WriteFile(keyFile, []byte("secret key"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(keyDir, 0o755)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	config, _ := json.Marshal(map[string]any{"apiVersion": "team.example.com/v1", "kind": "Probe",
		"spec": map[string]any{"keyFile": keyFile, "address": l.Addr().String()}})
	// Renamed for the probe: the seed 000 plugin of team.example.com is the prober here.
	p, errs := testKinds.Compile(execPlugins{policy: &Policy{Dir: execPolicy(t).Dir, Limits: Limits{Timeout: 10 * time.Second}}, as: "prober"}, []transform.Config{{Raw: config, Generator: true}})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	out, err := p.Transform(&transform.Context{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data := transform.NestedMap(out[0], "data")
	t.Logf("the plugin found: %v", data)
	if data["env"] != "" {
		t.Errorf("the plugin's environment is %q, want empty", data["env"])
	}
	threads := 0
	if features.Namespaces {
		threads = 256 // pkg/sandbox's singleProcessThreads: counted apart in the run's user namespace
	}
	wantLimits := fmt.Sprintf("as=%d fsize=%d nofile=%d nproc=%d core=0", defaultMemoryBytes, defaultDiskBytes, defaultOpenFiles, threads)
	if data["rlimits"] != wantLimits {
		t.Errorf("the plugin runs with rlimits %v, want %s", data["rlimits"], wantLimits)
	}
	if data["capabilities"] != "0000000000000000" {
		t.Errorf("the plugin runs with capabilities %v (effective or permitted), want none, in its user namespace too", data["capabilities"])
	}
	if features.LandlockABI == 0 {
		t.Fatalf("this kernel has no Landlock: files outside the plugin directory are protected only by running as nobody (root: %t)", os.Getuid() == 0)
	}
	if data["passwd"] != "denied" || data["key"] != "denied" {
		t.Errorf("Landlock ABI %d: the plugin read passwd=%v key=%v, want both denied", features.LandlockABI, data["passwd"], data["key"])
	}
	if (features.Namespaces || features.LandlockABI >= 4) && data["network"] != "denied" {
		t.Errorf("network namespace %t, Landlock ABI %d: the plugin reached the host's port", features.Namespaces, features.LandlockABI)
	}
}
