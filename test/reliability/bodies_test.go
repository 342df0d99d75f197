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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"stencil.dev/stencil/test/localserver"
)

// startShipped starts a server as the shipped Deployment runs one: in a memory cgroup of the
// Deployment's container limit, with the GOMEMLIMIT it derives from it and its processing
// flags, and extra flags. A machine that lends the test no cgroup holds the server to the
// limit by its peak resident memory instead (the test says which).
func startShipped(t *testing.T, name string, extra ...string) (*server, *localserver.Cgroup, shippedMemory) {
	t.Helper()
	shipped := readShippedMemory(t)
	s, err := newServer(filepath.Join(t.TempDir(), name), append(shipped.flags, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	s.Env = []string{"GOMEMLIMIT=" + shipped.goMemLimit}
	cgroup, err := localserver.NewCgroup(fmt.Sprintf("stencil-%s-%d", name, time.Now().UnixNano()), shipped.limit)
	if err != nil {
		t.Logf("NO CGROUP: %v; the server is held to %d MiB by its peak resident memory", err, shipped.limit>>20)
	} else {
		s.Cgroup = cgroup
		t.Logf("the server runs in %s, limited to %d MiB", cgroup.Dir, shipped.limit>>20)
	}
	if err := s.start(); err != nil {
		s.dumpLog(t)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			s.dumpLog(t)
		}
		if cgroup != nil {
			if err := cgroup.Remove(); err != nil {
				t.Errorf("removing the cgroup: %v", err)
			}
		}
	})
	return s, cgroup, shipped
}

// survived checks that the server is up, ready, never killed at its memory limit, and that its
// memory stayed under the limit, and logs what it held at its peak.
func survived(t *testing.T, s *server, cgroup *localserver.Cgroup, shipped shippedMemory) {
	t.Helper()
	if cgroup != nil {
		kills, err := cgroup.OOMKills()
		if err != nil {
			t.Fatal(err)
		}
		peak, _ := cgroup.Peak()
		t.Logf("limit %d MiB: the cgroup's peak %d MiB (page cache included); %d OOM kills", shipped.limit>>20, peak>>20, kills)
		if kills > 0 {
			t.Fatalf("the kernel killed %d processes of the server's cgroup at its %d MiB limit", kills, shipped.limit>>20)
		}
	}
	if err := s.Exited(); err != nil {
		t.Fatalf("the server died: %v", err)
	}
	if status, body := newRawClient(t, s.Config).get(t, "/readyz"); status != http.StatusOK {
		t.Errorf("/readyz: %d %s", status, body)
	}
	rss, err := localserver.PeakRSS(s.Pid())
	if err != nil {
		t.Fatalf("the server's memory: %v", err)
	}
	t.Logf("limit %d MiB: peak resident memory %d MiB", shipped.limit>>20, rss>>20)
	if rss >= shipped.limit {
		t.Errorf("the server's peak resident memory is %d MiB, at or above the Deployment's limit of %d MiB", rss>>20, shipped.limit>>20)
	}
}

// aliasBomb is issue 37's body: a Template whose message is one scalar of a megabyte,
// anchored, and aliased n times in a ConfigMap's data; tail is added (a tab in a comment
// leaves the document to sigs.k8s.io/yaml).
func aliasBomb(name string, n int, tail string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: %s}\n", name)
	b.WriteString("message: &big " + strings.Repeat("x", 1<<20) + "\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n")
	for i := range n {
		fmt.Fprintf(&b, "    k%d: *big\n", i)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// hostileBody is one request a hostile editor sends, and what it must be answered.
type hostileBody struct {
	name, method, path, contentType string
	body                            []byte
	// statuses are the answers allowed besides a 429 (the memory is taken by the others).
	statuses []int
	// says is in the answer, unless it is a 429.
	says string
}

// hostileBodies are the requests of TestHostileBodiesUnderTheShippedLimit.
func hostileBodies() []hostileBody {
	const ns = "/apis/templates.stencil.dev/v1alpha1/namespaces/hostile"
	tooLarge := []int{http.StatusRequestEntityTooLarge}
	var out []hostileBody
	for _, n := range []int{500, 2000} {
		for _, path := range []string{ns + "/templates?dryRun=All", ns + "/processedtemplates"} {
			out = append(out, hostileBody{fmt.Sprintf("1 MB aliased %d times to %s", n, path), http.MethodPost, path, "application/yaml",
				aliasBomb("bomb", n, ""), tooLarge, "aliases expand"})
		}
	}
	nested := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: nested}\nmessage: &l0 " + strings.Repeat("y", 100<<10) + "\n" +
		"x1: &l1 [" + strings.TrimSuffix(strings.Repeat("*l0, ", 30), ", ") + "]\nx2: &l2 [" + strings.TrimSuffix(strings.Repeat("*l1, ", 30), ", ") + "]\n"
	merges := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: merges}\nm: &m {k: " + strings.Repeat("z", 1<<20) + "}\n" +
		"objects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n    <<: [" + strings.TrimSuffix(strings.Repeat("*m, ", 300), ", ") + "]\n"
	small := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: small}\nmessage: &a " + strings.Repeat("w", 100) + "\n" +
		"objects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  x: [" + strings.TrimSuffix(strings.Repeat("*a, ", 200_000), ", ") + "]\n"
	apply := aliasBomb("applied", 500, "")
	deep := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"deep"},"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"x":` +
		strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}]}`
	objects := make([]string, 100_000)
	for i := range objects {
		objects[i] = "{}"
	}
	many := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"many"},"objects":[` + strings.Join(objects, ",") + `]}`
	patch, _ := json.Marshal(string(aliasBomb("patch", 500, "")))
	kustomize := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"k"},"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}],` +
		`"transformers":[{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","metadata":{"name":"k"},"patches":[{"patch":` + string(patch) + `}]}]}`
	return append(out,
		hostileBody{"1 MB aliased 500 times, left to sigs.k8s.io/yaml", http.MethodPost, ns + "/processedtemplates", "application/yaml",
			aliasBomb("tabbed", 500, "#\ttab\n"), tooLarge, "aliases expand"},
		hostileBody{"nested aliases", http.MethodPost, ns + "/processedtemplates", "application/yaml", []byte(nested), tooLarge, "aliases expand"},
		hostileBody{"a merge key of 300 aliases", http.MethodPost, ns + "/templates?dryRun=All", "application/yaml", []byte(merges), tooLarge, "aliases expand"},
		hostileBody{"200,000 small aliases", http.MethodPost, ns + "/processedtemplates", "application/yaml", []byte(small), tooLarge, "aliases expand"},
		hostileBody{"server-side apply of 1 MB aliased 500 times", http.MethodPatch, ns + "/templates/applied?fieldManager=hostile", "application/apply-patch+yaml",
			apply, tooLarge, "aliases expand"},
		hostileBody{"JSON nested a million levels", http.MethodPost, ns + "/processedtemplates", "application/json", []byte(deep),
			[]int{http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge}, ""},
		hostileBody{"100,000 empty objects", http.MethodPost, ns + "/templates?dryRun=All", "application/json", []byte(many),
			[]int{http.StatusBadRequest, http.StatusUnprocessableEntity}, "Too many"},
		hostileBody{"a Kustomization's patch of 1 MB aliased 500 times", http.MethodPost, ns + "/processedtemplates", "application/json", []byte(kustomize),
			[]int{http.StatusUnprocessableEntity}, "aliases expand"},
	)
}

// TestHostileBodiesUnderTheShippedLimit is issue 37's finding 4: a 1 MB YAML body, one scalar
// of a megabyte anchored once and aliased 500 (or 2,000) times, sent to templates?dryRun=All or
// processedtemplates, took a replica past its 1 GiB limit within 26 s: aliases were bounded by
// nodes, not bytes, and bodies were not charged to the memory budget. Here each of those, and
// what a hostile editor tries next (the same left to sigs.k8s.io/yaml, nested aliases, merge
// keys of aliases, many small aliases, server-side apply, JSON nested a million levels or of
// 100,000 empty objects, a Kustomization's patch), is sent four times at once, twice over, to
// a server in a cgroup of the Deployment's limit: each is answered a clear 4xx (413 naming the
// aliases' expansion) or a 429, and the server lives, ready, never OOM-killed.
func TestHostileBodiesUnderTheShippedLimit(t *testing.T) {
	s, cgroup, shipped := startShipped(t, "bodies")
	client := newRawClient(t, s.Config)
	if status, body := client.post(t, "/apis/templates.stencil.dev/v1alpha1/namespaces/hostile/templates", []byte(strings.Replace(smallTemplate, `"small"`, `"applied"`, 1)), 0); status != http.StatusCreated {
		t.Fatalf("creating the template applied to: %d %.300s", status, body)
	}
	bodies := hostileBodies()
	const copies, rounds = 4, 2
	var mu sync.Mutex
	counts := map[string]int{}
	for range rounds {
		var wg sync.WaitGroup
		for _, b := range bodies {
			for range copies {
				wg.Go(func() {
					status, answer := sendBody(t, client, b.method, b.path, b.contentType, b.body)
					mu.Lock()
					counts[fmt.Sprint(status)]++
					mu.Unlock()
					if status == http.StatusTooManyRequests {
						return
					}
					allowed := false
					for _, want := range b.statuses {
						allowed = allowed || status == want
					}
					if !allowed || !strings.Contains(string(answer), b.says) {
						t.Errorf("%s: %d %.400s; want one of %v saying %q", b.name, status, answer, b.statuses, b.says)
					}
				})
			}
		}
		wg.Wait()
	}
	t.Logf("answers by status: %v", counts)
	// The server still answers everyone else.
	if status, body := client.post(t, "/apis/templates.stencil.dev/v1alpha1/namespaces/hostile/processedtemplates", []byte(smallTemplate), 0); status != http.StatusCreated {
		t.Errorf("a small template after the attack: %d %.300s", status, body)
	}
	survived(t, s, cgroup, shipped)
}

// sendBody sends one request with a body of its content type.
func sendBody(t *testing.T, c *rawClient, method, path, contentType string, body []byte) (int, []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.host+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := c.client.Do(req)
	if err != nil {
		t.Errorf("%s %s: no answer: %v", method, path, err)
		return 0, nil
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
		t.Errorf("%s %s: a 429 without Retry-After", method, path)
	}
	return resp.StatusCode, got
}
