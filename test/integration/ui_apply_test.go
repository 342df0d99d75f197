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

package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// catalog is a running `stencil ui` and its per-run token.
type catalog struct {
	base, token string
}

// startCatalog runs `stencil ui` against the shared server until the test ends.
func startCatalog(t *testing.T) *catalog {
	t.Helper()
	cmd := exec.Command(cliBinary, "ui", "--kubeconfig", filepath.Join(shared.Dir, "kubeconfig"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("stencil ui printed no URL: %v", err)
	}
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/#token=([A-Za-z0-9_-]+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("stencil ui printed no URL on its first line: %q", line)
	}
	return &catalog{base: m[1], token: m[2]}
}

// post sends a JSON body as the pages do and returns the status, the body and the answer id.
func (c *catalog) post(t *testing.T, path, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Stencil-Token", c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", c.base)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got), resp.Header.Get("X-Stencil-Answer")
}

// TestCatalogAppliesOnlyItsAnswer is issue 24's catalog finding: /ui/api/apply applied
// whatever objects the body named. It now applies the objects of a processing answer the
// catalog server itself kept, by the id it gave with that answer, in the namespace chosen.
// A body that names objects, an id it never gave, an answer with an object in another
// namespace or a cluster-scoped one: each is a 4xx, and nothing is created.
func TestCatalogAppliesOnlyItsAnswer(t *testing.T) {
	const ns, target = "ui-apply", "ui-target"
	templates := shared.client(t).TemplatesV1alpha1()
	made := func(name, extra string) string {
		return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"` + name + `"` + extra + `}}`
	}
	// A valid one, which binds to a resource no template makes, so that if it were applied it
	// would change no other test's processing.
	customTransform := customTransform("ui-made", `{"resource":"uiapplynothings","remove":["$.spec.x"]}`)
	t.Cleanup(func() {
		_ = templates.CustomTransforms().Delete(context.Background(), "ui-made", metav1.DeleteOptions{})
	})
	for _, body := range []string{
		// A hardcoded namespace is removed by processing; one from a parameter is kept.
		tpl("clean", `,"parameters":[{"name":"NS","value":"`+target+`"}]`+objects(made("made-a", ""), made("made-b", `,"namespace":"${NS}"`))),
		tpl("mixed", `,"parameters":[{"name":"NS","value":"elsewhere"}]`+objects(made("made-c", ""), made("made-d", `,"namespace":"${NS}"`), customTransform)),
	} {
		if resp := shared.mustDo(t, "POST", apiPath(ns, "templates"), ctJSON, []byte(body)); resp.status != http.StatusCreated {
			t.Fatalf("storing a template: %d %.300s", resp.status, resp.body)
		}
	}
	c := startCatalog(t)
	processed := "/k8s/apis/templates.stencil.dev/v1alpha1/namespaces/" + ns + "/templates/"
	ctx := context.Background()

	// What the catalog applied before: any object the body named, here a cluster-scoped one.
	if status, body, _ := c.post(t, "/ui/api/apply", `{"namespace":"`+target+`","objects":[`+customTransform+`]}`); status != http.StatusBadRequest ||
		!strings.Contains(body, `unknown field \"objects\"`) {
		t.Errorf("a body naming the objects to apply: HTTP %d, want 400: %s", status, body)
	}
	if _, err := templates.CustomTransforms().Get(ctx, "ui-made", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the CustomTransform a body named was applied (%v)", err)
	}

	if status, body, id := c.post(t, processed+"clean/processed?dryRun=All", `{}`); status != http.StatusCreated || id != "" {
		t.Fatalf("a preview: %d, id %q (a preview is not applied, so it gets none): %.300s", status, id, body)
	}
	status, body, clean := c.post(t, processed+"clean/processed", `{}`)
	if status != http.StatusCreated || clean == "" {
		t.Fatalf("processing: %d, id %q: %.300s", status, clean, body)
	}
	_, _, mixed := c.post(t, processed+"mixed/processed", `{}`)

	hostile := []struct {
		name, body string
		want       int
		wantText   string
	}{
		{"objects beside an answer", `{"namespace":"` + target + `","answer":"` + clean + `","objects":[` + made("forged", "") + `]}`, http.StatusBadRequest, `unknown field \"objects\"`},
		{"an id the catalog never gave", `{"namespace":"` + target + `","answer":"` + strings.Repeat("A", 32) + `"}`, http.StatusNotFound, "no processing answer"},
		{"no namespace", `{"answer":"` + clean + `"}`, http.StatusUnprocessableEntity, "namespace"},
		{"an answer with objects outside the namespace chosen", `{"namespace":"` + target + `","answer":"` + mixed + `"}`, http.StatusUnprocessableEntity,
			"Template made-d names namespace elsewhere: the catalog applies objects in the chosen namespace, ui-target, only; CustomTransform ui-made is cluster-scoped"},
		{"an answer naming another namespace than the one chosen", `{"namespace":"ui-third","answer":"` + clean + `"}`, http.StatusUnprocessableEntity,
			"Template made-b names namespace " + target},
	}
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			status, body, _ := c.post(t, "/ui/api/apply", tc.body)
			if status != tc.want || !strings.Contains(body, tc.wantText) {
				t.Fatalf("HTTP %d, want %d with %q: %s", status, tc.want, tc.wantText, body)
			}
		})
	}
	for _, ref := range [][2]string{{target, "made-c"}, {"elsewhere", "made-d"}, {"ui-third", "made-a"}, {target, "forged"}, {target, "made-a"}} {
		if _, err := templates.Templates(ref[0]).Get(ctx, ref[1], metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s/%s exists after the refusals (%v)", ref[0], ref[1], err)
		}
	}
	if _, err := templates.CustomTransforms().Get(ctx, "ui-made", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the cluster-scoped CustomTransform exists after the refusals (%v)", err)
	}

	status, body, _ = c.post(t, "/ui/api/apply", `{"namespace":"`+target+`","answer":"`+clean+`"}`)
	var states []struct {
		Kind, Namespace, Name string
		Exists                bool
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &states) != nil || len(states) != 2 {
		t.Fatalf("applying the answer: %d %s", status, body)
	}
	for _, s := range states {
		if !s.Exists || s.Namespace != target {
			t.Errorf("%+v: want it applied in %s", s, target)
		}
		if _, err := templates.Templates(target).Get(ctx, s.Name, metav1.GetOptions{}); err != nil {
			t.Errorf("%s was not applied: %v", s.Name, err)
		}
	}
}
