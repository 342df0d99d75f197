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

package transform

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/sandbox"
)

var (
	pluginDirOnce sync.Once
	pluginDir     string
	pluginDirErr  error
)

// testPluginNames are the behaviours of testdata/plugin, one link each.
var testPluginNames = []string{"team.example.com", "annotate", "sleeper", "flood", "unsupported", "remover", "failing", "prober", "forker", "filler", "unixdialer", "objects"}

// buildPlugins compiles testdata/plugin once per test binary into a directory every user may
// read (the plugins run as nobody when the tests run as root), linked under each name.
func buildPlugins(t testing.TB) string {
	t.Helper()
	pluginDirOnce.Do(func() {
		dir, err := os.MkdirTemp("", "stencil-test-plugins-")
		if err != nil {
			pluginDirErr = err
			return
		}
		src := filepath.Join(dir, "src")
		if err := os.MkdirAll(src, 0o755); err != nil {
			pluginDirErr = err
			return
		}
		code, err := os.ReadFile("testdata/plugin/main.go.txt")
		if err != nil {
			pluginDirErr = err
			return
		}
		if err := os.WriteFile(filepath.Join(src, "main.go"), code, 0o644); err != nil {
			pluginDirErr = err
			return
		}
		bin := filepath.Join(dir, "bin")
		_ = os.Mkdir(bin, 0o755)
		build := exec.Command("go", "build", "-o", filepath.Join(bin, testPluginNames[0]), "main.go")
		build.Dir = src
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
		if out, err := build.CombinedOutput(); err != nil {
			pluginDirErr = errors.New(string(out))
			return
		}
		for _, name := range testPluginNames[1:] {
			if err := os.Link(filepath.Join(bin, testPluginNames[0]), filepath.Join(bin, name)); err != nil {
				pluginDirErr = err
				return
			}
		}
		_ = os.Chmod(dir, 0o755)
		pluginDir = bin
	})
	if pluginDirErr != nil {
		t.Fatalf("building the test plugins: %v", pluginDirErr)
	}
	return pluginDir
}

// execPolicy is the policy of the test plugins.
func execPolicy(t testing.TB) *ExecPolicy {
	return &ExecPolicy{Dir: buildPlugins(t), Images: map[string]string{"registry.example.com/annotate:v1": "annotate"},
		Env: []string{"TOKEN=s3cr3t-token", "HOME=/nonexistent"}, Timeout: 3 * time.Second}
}

// runPlugin compiles one generator or transformer config (YAML) under the test policy and
// runs it over the objects.
func runPlugin(t *testing.T, policy *ExecPolicy, generator bool, config string, objects ...string) ([]Object, []string, error) {
	t.Helper()
	p, errs := testKinds.Compile(Policy{Exec: policy}, []Config{{Raw: yamlJSON(t, config), Generator: generator}})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	var decoded []Object
	for _, o := range objects {
		decoded = append(decoded, yamlDocs(t, o)...)
	}
	ctx := NewContext(t.Context(), 0)
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
		if len(out) != 3 || NameOf(out[2]) != "made" || NestedString(out[2], "data", "from") != "team-plugin" {
			t.Fatalf("generated: %s", mustYAML(t, out))
		}
	})
	t.Run("seed 000 transform", func(t *testing.T) {
		out, _, err := runPlugin(t, policy, false, "{apiVersion: team.example.com/v1, kind: Team, metadata: {name: t}, spec: {team: blue}}", twoObjects)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 2 || NestedString(out[0], "metadata", "labels", "team") != "blue" || NestedString(out[1], "metadata", "labels", "team") != "blue" {
			t.Fatalf("transformed: %s", mustYAML(t, out))
		}
	})
	for _, provider := range []string{"{exec: {path: annotate}}", "{container: {image: 'registry.example.com/annotate:v1'}}"} {
		t.Run("KRM function "+provider, func(t *testing.T) {
			out, _, err := runPlugin(t, policy, false, "{apiVersion: fn.example.com/v1, kind: Annotate, provider: "+provider+", spec: {value: krm}}", twoObjects)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 2 || NestedString(out[1], "metadata", "annotations", "krm") != "krm" {
				t.Fatalf("transformed: %s", mustYAML(t, out))
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
			var te *Error
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
	p, errs := testKinds.Compile(Policy{Exec: &ExecPolicy{Dir: execPolicy(t).Dir, Timeout: 10 * time.Second}}, []Config{{Raw: config, Generator: true}})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	// Renamed for the probe: the seed 000 plugin of team.example.com is the prober here.
	p.steps[0].t.(*execStep).exe = filepath.Join(execPolicy(t).Dir, "prober")
	out, err := p.Transform(&Context{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data := NestedMap(out[0], "data")
	t.Logf("the plugin found: %v", data)
	if data["env"] != "" {
		t.Errorf("the plugin's environment is %q, want empty", data["env"])
	}
	threads := 0
	if features.Namespaces {
		threads = 256 // pkg/sandbox's singleProcessThreads: counted apart in the run's user namespace
	}
	wantLimits := fmt.Sprintf("as=%d fsize=%d nofile=%d nproc=%d core=0", DefaultPluginMemoryBytes, DefaultPluginDiskBytes, DefaultPluginOpenFiles, threads)
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

func TestExecPolicyRefusals(t *testing.T) {
	policy := execPolicy(t)
	for _, tc := range []struct {
		name, config string
		plugins      Policy
		want         string
	}{
		{"no plugin dir: exec refused", "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: annotate}}}", Policy{},
			"transformers[0].provider.exec: Forbidden: the exec provider is not enabled on this server: an administrator must enable it"},
		{"no plugin dir: seed 000 refused", "{apiVersion: team.example.com/v1, kind: X}", Policy{},
			"transformers[0].apiVersion: Forbidden: the execPlugin (team.example.com) provider is not enabled"},
		{"a path out of the directory", "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: ../src/main.go}}}", Policy{Exec: policy},
			"must stay inside the plugin directory"},
		{"an absolute path", "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: /bin/sh}}}", Policy{Exec: policy},
			"must be a path relative to the plugin directory"},
		{"an image with no mapping is never pulled", "{apiVersion: fn.example.com/v1, kind: X, provider: {container: {image: 'evil/miner:latest'}}}", Policy{Exec: policy},
			`the image "evil/miner:latest" is not allowed on this server`},
		{"a plugin group not installed", "{apiVersion: other.example.com/v1, kind: X}", Policy{Exec: policy}, "no plugin for this API group"},
		{"two providers", "{apiVersion: fn.example.com/v1, kind: X, provider: {exec: {path: a}, container: {image: b}}}", Policy{Exec: policy},
			"give exactly one of starlark, exec or container"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := testKinds.Compile(tc.plugins, []Config{{Raw: yamlJSON(t, tc.config)}})
			if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Fatalf("errors %v, want %q", errs, tc.want)
			}
		})
	}
}

// TestHashFollowsRebuiltObjects: a Starlark transformer and an exec plugin give back new
// objects, not the generator's; the generated ConfigMap still gets its hash suffix, and the
// reference to it follows.
func TestHashFollowsRebuiltObjects(t *testing.T) {
	gen := Config{Raw: yamlJSON(t, "{kind: ConfigMapGenerator, metadata: {name: cfg}, literals: [A=1]}"), Generator: true}
	starlark := Config{Raw: starlarkConfig(t, addAnnotation, map[string]any{"spec": map[string]any{"value": "v"}})}
	krm := Config{Raw: yamlJSON(t, "{apiVersion: fn.example.com/v1, kind: A, metadata: {name: krm}, provider: {exec: {path: annotate}}, spec: {value: x}}")}
	p, errs := testKinds.Compile(Policy{Starlark: true, Exec: execPolicy(t)}, []Config{gen, starlark, krm})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	objects := yamlDocs(t, deploymentReferring("cfg"))
	out, err := p.Transform(NewContext(t.Context(), 0), objects)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || NameOf(out[1]) != "cfg-89g4tffbfk" || NestedString(out[1], "metadata", "annotations", "krm") != "x" {
		t.Fatalf("got:\n%s", mustYAML(t, out))
	}
	if !strings.Contains(mustYAML(t, out[:1]), "name: cfg-89g4tffbfk") {
		t.Fatalf("the reference did not follow:\n%s", mustYAML(t, out))
	}
}

// TestPluginsRunConcurrently: one compiled pipeline (as the server caches it) runs a Starlark
// transformer and an exec plugin for several requests at once.
func TestPluginsRunConcurrently(t *testing.T) {
	starlark := Config{Raw: starlarkConfig(t, addAnnotation, map[string]any{"spec": map[string]any{"value": "v"}})}
	krm := Config{Raw: yamlJSON(t, "{apiVersion: fn.example.com/v1, kind: A, metadata: {name: krm}, provider: {exec: {path: annotate}}, spec: {value: x}}")}
	p, errs := testKinds.Compile(Policy{Starlark: true, Exec: execPolicy(t)}, []Config{starlark, krm})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	var wg sync.WaitGroup
	failures := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := p.Transform(NewContext(t.Context(), 0), yamlDocs(t, twoObjects))
			if err == nil && (len(out) != 2 || NestedString(out[1], "metadata", "annotations", "owner") != "v") {
				err = errors.New("wrong objects")
			}
			if err != nil {
				failures <- err
			}
		}()
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Error(err)
	}
}
