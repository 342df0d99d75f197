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

package reliability

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"stencil.dev/stencil/test/localserver"
)

// blockingPlugin is a KRM function that gives back its input once the file "release" exists
// in its directory (the plugin directory, which plugins may read): the test decides when the
// plugin runs end, so that they hold the server for as long as it needs, with no timer.
const blockingPlugin = `package main

import (
	"io"
	"os"
	"path/filepath"
	"time"
)

func main() {
	in, _ := io.ReadAll(os.Stdin)
	exe, _ := os.Executable()
	for start := time.Now(); time.Since(start) < 2*time.Minute; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(filepath.Dir(exe), "release")); err == nil {
			break
		}
	}
	os.Stdout.Write(in)
}
`

// pluginTemplate runs the blocking plugin over one ConfigMap.
const pluginTemplate = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"slow"},
"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"}}],
"transformers":[{"apiVersion":"fn.example.com/v1","kind":"Block","metadata":{"name":"block"},"provider":{"exec":{"path":"blocker"}}}]}`

// buildBlockingPlugin compiles blockingPlugin and returns its plugin directory.
func buildBlockingPlugin(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "stencil-reliability-plugins-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin, err := localserver.BuildPlugin(dir, "blocker", blockingPlugin)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestPluginsDoNotHoldPlainProcessing is issue 24's plugin finding: eight plugin runs at once,
// each held by the test until it lets them end, take all the processing that plugins may take
// (a ninth plugin request is told to retry); a request of a template without plugins is then
// answered at once, while every plugin run is still held, so it waited for no plugin to end.
// Each plugin request may make 8 MiB of plugin output, so that a few of them fill the share
// plugins have of the processing memory (half of half of the GOMEMLIMIT given).
func TestPluginsDoNotHoldPlainProcessing(t *testing.T) {
	plugins := buildBlockingPlugin(t)
	s, err := newServer(filepath.Join(t.TempDir(), "plugins"), "--plugin-dir="+plugins, "--plugin-timeout=2m", "--plugin-max-output-bytes=8388608")
	if err != nil {
		t.Fatal(err)
	}
	s.Env = []string{"GOMEMLIMIT=2GiB"}
	if err := s.start(); err != nil {
		s.dumpLog(t)
		t.Fatal(err)
	}
	release := func() {
		if err := os.WriteFile(filepath.Join(plugins, "release"), nil, 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() {
		release()
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			s.dumpLog(t)
		}
	})
	h := newRawClient(t, s.Config)
	const ns = "/apis/templates.stencil.dev/v1alpha1/namespaces/plugins/"
	for _, tpl := range []string{pluginTemplate, smallTemplate} {
		if status, body := h.post(t, ns+"templates", []byte(tpl), 0); status != http.StatusCreated {
			t.Fatalf("storing a template: %d %.300s", status, body)
		}
	}

	const pluginRequests = 8
	var finished atomic.Int32
	var wg sync.WaitGroup
	statuses := make(chan int, pluginRequests)
	for range pluginRequests {
		wg.Go(func() {
			status, body := h.post(t, ns+"templates/slow/processed", []byte(`{}`), 0)
			finished.Add(1)
			if status != http.StatusCreated && status != http.StatusTooManyRequests {
				t.Errorf("a plugin request: %d %.300s", status, body)
			}
			statuses <- status
		})
	}
	// The plugins' share is full once another plugin request, with 4 s to live, is told to
	// retry after waiting a quarter of them.
	deadline := time.Now().Add(time.Minute)
	for {
		status, body := h.post(t, ns+"templates/slow/processed?timeout=4s", []byte(`{}`), 0)
		if status == http.StatusTooManyRequests {
			t.Logf("a plugin request beside the %d held: %d %s", pluginRequests, status, strings.TrimSpace(string(body)))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin requests were never refused: the last got %d %.300s", status, body)
		}
	}
	if n := finished.Load(); n != 0 {
		t.Fatalf("%d plugin requests ended before the test released them", n)
	}

	status, body := h.post(t, ns+"templates/small/processed?timeout=4s", []byte(`{}`), 0)
	if status != http.StatusCreated {
		t.Errorf("a template without plugins, while plugins hold the server: %d %.300s", status, body)
	}
	if n := finished.Load(); n != 0 {
		t.Errorf("%d plugin requests had ended when the plain request was answered: it may have waited for them", n)
	}

	release()
	wg.Wait()
	close(statuses)
	answered := 0
	for status := range statuses {
		if status == http.StatusCreated {
			answered++
		}
	}
	if answered == 0 {
		t.Errorf("no plugin request was answered")
	}
	t.Logf("%d of %d plugin requests answered, the others told to retry", answered, pluginRequests)
}
