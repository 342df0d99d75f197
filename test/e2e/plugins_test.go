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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"stencil.dev/stencil/test/localserver"
)

// annotatePlugin is a KRM function: it annotates every item, and leaves a file in its
// working directory.
const annotatePlugin = `package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	os.WriteFile("ran", []byte("yes"), 0o644)
	in, _ := io.ReadAll(os.Stdin)
	var list map[string]any
	if err := json.Unmarshal(in[len("---\n"):], &list); err != nil {
		os.Stderr.WriteString(err.Error())
		os.Exit(1)
	}
	for _, it := range list["items"].([]any) {
		meta := it.(map[string]any)["metadata"].(map[string]any)
		meta["annotations"] = map[string]any{"plugin-ran": "true"}
	}
	out, _ := json.Marshal(list)
	os.Stdout.Write(out)
}
`

const execTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: with-plugin}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {a: "1"}}
transformers:
- apiVersion: fn.example.com/v1
  kind: Annotate
  metadata: {name: annotate}
  provider: {exec: {path: annotate}}
`

// TestExecPluginPolicyInCluster: the replicas as deployed (no --plugin-dir) refuse a template
// with an exec transformer at create, through kubectl and the aggregator, and never run the
// plugin; started again with --plugin-dir, they accept it and run it when processing.
//
// The marker: every plugin run starts by creating its working directory under the server's
// TMPDIR (where the plugin writes a file, the one place its sandbox lets it write), so the
// test gives the replicas a TMPDIR of its own and watches it with inotify from the start: no
// entry may appear while plugins are off, and one must appear once they are on.
func TestExecPluginPolicyInCluster(t *testing.T) {
	pluginDir := buildE2EPlugin(t)
	tmp := t.TempDir()
	watch := watchCreations(t, tmp)
	t.Cleanup(func() {
		if err := env.restartReplicasWith(nil, nil); err != nil {
			t.Errorf("restoring the replicas: %v", err)
		}
	})
	tmpEnv := []string{"TMPDIR=" + tmp}
	if err := env.restartReplicasWith(nil, tmpEnv); err != nil {
		t.Fatal(err)
	}
	ns := "e2e-exec-plugin"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	out, err := env.kubectl("admin", execTemplate, "create", "-n", ns, "-f", "-")
	if err == nil || !strings.Contains(out+err.Error(), "transformers[0].provider.exec") ||
		!strings.Contains(out+err.Error(), "the exec provider is not enabled on this server: an administrator must enable it") {
		t.Fatalf("kubectl create of a template with an exec transformer: %v\n%s", err, out)
	}
	// Given in the request instead (processedtemplates), it is refused the same way.
	file := filepath.Join(t.TempDir(), "template.yaml")
	if err := os.WriteFile(file, []byte(execTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := env.kubectl("admin", "", "stencil", "process", "-n", ns, "-f", file); err == nil || !strings.Contains(out+err.Error(), "the exec provider is not enabled") {
		t.Fatalf("processedtemplates with an exec transformer: %v\n%s", err, out)
	}
	if created := watch(); len(created) > 0 {
		t.Fatalf("a plugin ran on a server without --plugin-dir: %v appeared in its TMPDIR", created)
	}

	if err := env.restartReplicasWith([]string{"--plugin-dir=" + pluginDir}, tmpEnv); err != nil {
		t.Fatal(err)
	}
	out = mustKubectl(t, "admin", execTemplate, "create", "-n", ns, "-f", "-")
	list := mustKubectl(t, "admin", "", "stencil", "process", "with-plugin", "-n", ns)
	if !strings.Contains(list, "plugin-ran: \"true\"") {
		t.Fatalf("the plugin did not annotate:\n%s", list)
	}
	// The sandbox's probe of the kernel's features may come first.
	created := watch()
	if !slices.ContainsFunc(created, func(name string) bool { return strings.HasPrefix(name, "stencil-plugin-") }) {
		t.Fatalf("no working directory of a plugin run appeared: %v", created)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("the plugin's working directory was not removed: %v", entries)
	}
}

// buildE2EPlugin compiles annotatePlugin into a directory every user may read (the plugins
// run as nobody when the server runs as root).
func buildE2EPlugin(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "stencil-e2e-plugins-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin, err := localserver.BuildPlugin(dir, "annotate", annotatePlugin)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// watchCreations records the names created in dir from now on; the function it returns
// gives those seen so far.
func watchCreations(t *testing.T, dir string) func() []string {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var names []string
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if err != nil || n <= 0 {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				mu.Lock()
				names = append(names, string(bytes.TrimRight(name, "\x00")))
				mu.Unlock()
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}()
	t.Cleanup(func() { unix.Close(fd) })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), names...)
	}
}

// restartReplicasWith restarts every replica, one at a time, with the Deployment's flags plus
// extra, and env added to its environment; nil and nil restore them as deployed.
func (c *cluster) restartReplicasWith(extra, env []string) error {
	for i, p := range c.replicas {
		p.stop()
		p.args = append(c.replicaArgs(c.replicaPorts[i]), extra...)
		p.env = env
		if err := c.restartReplica(i); err != nil {
			return err
		}
	}
	return c.waitAPIServiceTrusted()
}
