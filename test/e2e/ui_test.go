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
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"

	"stencil.dev/stencil/test/browser"
)

// TestCatalogUICreates runs `kubectl stencil ui` as a token user who may edit one namespace.
// In headless Chromium it creates the redis example, which makes a TemplateInstance (the
// cluster serves them) recorded as that user's. Then, through the same catalog server and its
// token, the apply path of clusters without TemplateInstances: the processed objects applied
// as the user (server-side apply, field manager stencil-ui), readiness read again until a
// Deployment turns ready, and a namespace the user may not write refusing each object by name.
func TestCatalogUICreates(t *testing.T) {
	if err := browser.EnsureChromium(repoRoot); err != nil {
		t.Fatal(err)
	}
	ns := "e2e-ui"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "namespace", ns+"-other")
	mustKubectl(t, "admin", "", "create", "-n", ns, "-f", filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml"))
	// No controller-manager fills the aggregated edit role here: the user gets the verbs the
	// objects need (apply is patch, and create for a new object) and Stencil's roles.
	mustKubectl(t, "admin", "", "create", "role", "ui-apply", "-n", ns, "--verb=get,create,patch",
		"--resource=secrets,services,deployments.apps")
	mustKubectl(t, "admin", "", "create", "rolebinding", "ui-apply", "-n", ns, "--role=ui-apply", "--user=ui-user")
	for _, role := range []string{"stencil-view", "stencil-process", "stencil-edit"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "ui-"+role, "-n", ns, "--clusterrole="+role, "--user=ui-user")
	}
	url := startCatalog(t, "ui-user", ns)

	tab := browser.New(t, filepath.Join(repoRoot, "_output", "ui-screenshots"))
	tab.Run("opening the redis template", chromedp.Navigate(url), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`),
		chromedp.Click(`a[href="#/templates/`+ns+`/redis"]`), chromedp.WaitVisible(`#template-form`),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`))
	tab.Run("naming it", browser.Clear(`#param-NAME`), chromedp.SendKeys(`#param-NAME`, "cache-ui"),
		browser.Clear(`#instance-name`), chromedp.SendKeys(`#instance-name`, "cache-ui"),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('name: cache-ui')`))
	tab.Run("creating", chromedp.Click(`#create`),
		browser.WaitFor(`(document.querySelector('#instance-title') || {}).textContent === 'cache-ui'`))
	tab.Screenshot("e2e-01-instance")
	spec := mustKubectl(t, "admin", "", "get", "templateinstance", "cache-ui", "-n", ns,
		"-o", "jsonpath={.spec.templateRef.name} {.spec.parameters.NAME} {.spec.requester.username}")
	if spec != "redis cache-ui ui-user" {
		t.Errorf("the instance's template, NAME and requester: %q", spec)
	}

	catalog := newCatalogClient(t, url)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	catalog.do("POST", "/k8s/apis/templates.stencil.dev/v1alpha1/namespaces/"+ns+"/templates/redis/processed",
		map[string]any{"parameters": map[string]string{"NAME": "direct"}}, 201, &list)
	var states []objectState
	catalog.do("POST", "/ui/api/apply", map[string]any{"namespace": ns, "objects": list.Items}, 200, &states)
	if got := summary(states); got != "Secret=ready,Service=ready,Deployment=waiting" {
		t.Fatalf("after apply: %s (%+v)", got, states)
	}
	managers := mustKubectl(t, "admin", "", "get", "deployment", "direct", "-n", ns, "-o", "jsonpath={.metadata.managedFields[*].manager}")
	if !strings.Contains(managers, "stencil-ui") {
		t.Errorf("the Deployment's field managers are %q, want stencil-ui's apply", managers)
	}
	// What a controller would write once the pod runs.
	mustKubectl(t, "admin", "", "patch", "deployment", "direct", "-n", ns, "--subresource=status", "--type=merge",
		"-p", `{"status":{"observedGeneration":1,"replicas":1,"readyReplicas":1,"availableReplicas":1,"updatedReplicas":1}}`)
	catalog.do("POST", "/ui/api/status", map[string]any{"objects": states}, 200, &states)
	if got := summary(states); got != "Secret=ready,Service=ready,Deployment=ready" {
		t.Errorf("after the rollout: %s", got)
	}

	catalog.do("POST", "/ui/api/apply", map[string]any{"namespace": ns + "-other", "objects": list.Items}, 200, &states)
	for _, s := range states {
		if s.Exists || !strings.Contains(s.Message, `User "ui-user" cannot patch`) {
			t.Errorf("%s in a namespace ui-user may not write: %+v", s.Kind, s)
		}
	}
}

// objectState is what /ui/api/apply and /ui/api/status answer per object.
type objectState struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Exists     bool   `json:"exists"`
	Ready      bool   `json:"ready"`
	Message    string `json:"message"`
}

func summary(states []objectState) string {
	var parts []string
	for _, s := range states {
		word := "waiting"
		if s.Ready {
			word = "ready"
		} else if !s.Exists {
			word = "missing: " + s.Message
		}
		parts = append(parts, s.Kind+"="+word)
	}
	return strings.Join(parts, ",")
}

// catalogClient calls the catalog server as its pages do: same origin, with the token.
type catalogClient struct {
	t     *testing.T
	base  string
	token string
}

func newCatalogClient(t *testing.T, url string) *catalogClient {
	base, fragment, _ := strings.Cut(url, "/#")
	return &catalogClient{t: t, base: base, token: strings.TrimPrefix(fragment, "token=")}
}

func (c *catalogClient) do(method, path string, body any, wantCode int, out any) {
	c.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(data))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("X-Stencil-Token", c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", c.base)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantCode {
		c.t.Fatalf("%s %s: HTTP %d, want %d: %s", method, path, resp.StatusCode, wantCode, answer)
	}
	if err := json.Unmarshal(answer, out); err != nil {
		c.t.Fatalf("%s %s: %v: %s", method, path, err, answer)
	}
}

// startCatalog runs `kubectl stencil ui` as user in namespace ns and returns the URL it prints.
func startCatalog(t *testing.T, user, ns string) string {
	t.Helper()
	cmd := exec.Command(env.bin.kubectl, "stencil", "ui", "-n", ns)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.kubeconfigs[user],
		"PATH="+filepath.Dir(env.bin.kubectlStencil)+string(os.PathListSeparator)+os.Getenv("PATH"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("kubectl stencil ui printed nothing: %v", err)
	}
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/#token=[A-Za-z0-9_-]+`).FindString(line)
	if url == "" {
		t.Fatalf("no URL in %q", line)
	}
	return url
}
