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
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"stencil.dev/stencil/test/browser"
)

// TestCatalogUICreates runs `kubectl stencil ui` as a token user who may edit one namespace.
// In headless Chromium it creates the redis example, which makes a TemplateInstance recorded as
// that user's; the instance's page follows the controller live: the objects, the message with
// the stored generated password (the applied Secret's), Ready once the Deployment rolls out;
// then uninstall from the instances page, behind a dialog naming every object, removes them.
// Through the same catalog server and its token, the apply path of clusters without
// TemplateInstances: the objects of a processing answer the catalog kept applied as the user
// (server-side apply, field manager stencil-ui), never objects the body names, read again until
// ready, and refused by name in a namespace the user may not write.
func TestCatalogUICreates(t *testing.T) {
	if err := browser.EnsureChromium(repoRoot); err != nil {
		t.Fatal(err)
	}
	ns := "e2e-ui"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "namespace", ns+"-other")
	mustKubectl(t, "admin", "", "create", "-n", ns, "-f", filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml"))
	// No controller-manager fills the aggregated edit role here: the user gets the verbs the
	// objects need (apply is patch, and create for a new object; uninstall deletes them as the
	// user too) and Stencil's roles.
	mustKubectl(t, "admin", "", "create", "role", "ui-apply", "-n", ns, "--verb=get,list,create,patch,delete",
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
	checkClusterTemplatePage(t, tab)
	tab.Run("creating", chromedp.Click(`#create`),
		browser.WaitFor(`(document.querySelector('#instance-title') || {}).textContent === 'cache-ui'`))
	spec := mustKubectl(t, "admin", "", "get", "templateinstance", "cache-ui", "-n", ns,
		"-o", "jsonpath={.spec.templateRef.name} {.spec.parameters.NAME} {.spec.requester.username}")
	if spec != "redis cache-ui ui-user" {
		t.Errorf("the instance's template, NAME and requester: %q", spec)
	}
	// The controller applies the objects as ui-user and keeps the generated password; the page
	// shows them, and the message made with the stored password.
	tab.Run("waiting for the controller", browser.WaitFor(`document.querySelectorAll('#objects tbody tr').length === 3`),
		browser.WaitFor(`(document.querySelector('#result-message') || {}).textContent === 'Redis cache-ui is ready; the password is in Secret cache-ui.'`))
	password := mustKubectl(t, "admin", "", "get", "secret", "cache-ui", "-n", ns, "-o", "jsonpath={.data.password}")
	tab.Run("showing the generated password", chromedp.Click(`dl.generated button.reveal`))
	if got, err := base64.StdEncoding.DecodeString(password); err != nil || tab.Text("dl.generated dd code") != string(got) {
		t.Errorf("the page's generated password %q is not the applied Secret's %q", tab.Text("dl.generated dd code"), got)
	}
	tab.Screenshot("e2e-01-instance")

	// The rollout a controller-manager would report; the instance's page follows by itself.
	mustKubectl(t, "admin", "", "patch", "deployment", "cache-ui", "-n", ns, "--subresource=status", "--type=merge",
		"-p", `{"status":{"observedGeneration":1,"replicas":1,"readyReplicas":1,"availableReplicas":1,"updatedReplicas":1,"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"}]}}`)
	tab.Run("waiting for the instance to turn ready", browser.WaitWithin(time.Minute,
		`document.querySelector('#instance-status').dataset.state === 'ready'`))
	tab.Screenshot("e2e-02-instance-ready")

	// Uninstall: the dialog names every object, and they go with the instance.
	tab.Run("asking to delete", chromedp.Click(`.crumbs a`), browser.WaitFor(`!!document.querySelector('button[aria-label="Delete instance cache-ui"]')`),
		chromedp.Click(`button[aria-label="Delete instance cache-ui"]`), chromedp.WaitVisible(`dialog[open]`))
	if got := tab.Text("#confirm-body"); !strings.Contains(got, "deletes 3 objects") || !strings.Contains(got, "Deployment cache-ui") {
		t.Errorf("the confirmation says %q", got)
	}
	tab.Screenshot("e2e-03-delete-confirm")
	tab.Run("confirming", chromedp.Click(`dialog[open] button.danger`), browser.WaitWithin(time.Minute,
		`!document.querySelector('button[aria-label="Delete instance cache-ui"]')`))
	if out, err := env.kubectl("admin", "", "get", "secret,service,deployment", "cache-ui", "-n", ns); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("the objects outlived their instance: %v %s", err, out)
	}

	catalog := newCatalogClient(t, url)
	var list struct {
		Items []map[string]any `json:"items"`
	}
	answer := catalog.doAnswer("POST", "/k8s/apis/templates.stencil.dev/v1alpha1/namespaces/"+ns+"/templates/redis/processed",
		map[string]any{"parameters": map[string]string{"NAME": "direct"}}, 201, &list)
	var states []objectState
	// The objects the catalog kept from that answer, never objects of the body.
	var refused map[string]any
	catalog.do("POST", "/ui/api/apply", map[string]any{"namespace": ns, "objects": list.Items}, 400, &refused)
	catalog.do("POST", "/ui/api/apply", map[string]any{"namespace": ns, "answer": answer}, 200, &states)
	if got := summary(states); got != "Secret=ready,Service=ready,Deployment=waiting" {
		t.Fatalf("after apply: %s (%+v)", got, states)
	}
	managers := mustKubectl(t, "admin", "", "get", "deployment", "direct", "-n", ns, "-o", "jsonpath={.metadata.managedFields[*].manager}")
	if !strings.Contains(managers, "stencil-ui") {
		t.Errorf("the Deployment's field managers are %q, want stencil-ui's apply", managers)
	}
	// What a controller would write once the pod runs.
	mustKubectl(t, "admin", "", "patch", "deployment", "direct", "-n", ns, "--subresource=status", "--type=merge",
		"-p", `{"status":{"observedGeneration":1,"replicas":1,"readyReplicas":1,"availableReplicas":1,"updatedReplicas":1,"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"}]}}`)
	catalog.do("POST", "/ui/api/status", map[string]any{"objects": states}, 200, &states)
	if got := summary(states); got != "Secret=ready,Service=ready,Deployment=ready" {
		t.Errorf("after the rollout: %s", got)
	}

	catalog.do("POST", "/ui/api/apply", map[string]any{"namespace": ns + "-other", "answer": answer}, 200, &states)
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
	c.doAnswer(method, path, body, wantCode, out)
}

// doAnswer is do, and returns the id of the processing answer the catalog kept, if any.
func (c *catalogClient) doAnswer(method, path string, body any, wantCode int, out any) string {
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
	return resp.Header.Get("X-Stencil-Answer")
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

// checkClusterTemplatePage checks the template page of a real cluster: the server's dry run of an
// instance says objects will be created, so no notice says otherwise; ui-user may not list
// namespaces, which the page learns without a refused request and offers a text field for; the
// generated password of the preview is masked until Show.
func checkClusterTemplatePage(t *testing.T, tab *browser.Tab) {
	t.Helper()
	tab.Run("waiting for the dry run of an instance", chromedp.ActionFunc(func(context.Context) error {
		for range 200 {
			for _, r := range tab.Requests() {
				if strings.Contains(r.URL, "/templateinstances?dryRun=All") && r.Status != 0 {
					return nil
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("the page made no dry run of an instance")
	}))
	var hidden bool
	tab.Eval(`document.querySelector('#create-notice').hidden`, &hidden)
	if !hidden {
		t.Errorf("a cluster that creates objects gets the notice %q", tab.Text("#create-notice"))
	}
	for _, r := range tab.Requests() {
		if strings.Contains(r.URL, "/api/v1/namespaces") || r.Status == 403 || r.Status == 404 {
			t.Errorf("the page's request %s %s was answered %d", r.Method, r.URL, r.Status)
		}
	}
	if got := tab.Text("#namespace-help"); got != "Where the objects are created: type a namespace." {
		t.Errorf("ui-user, who may not list namespaces, gets the help %q", got)
	}
	tab.Run("opening the YAML", chromedp.Click(`.yaml-box summary`))
	masked := tab.Text("#preview-yaml")
	if !strings.Contains(masked, `password: "••••••••"`) {
		t.Errorf("the generated password is not masked in the YAML:\n%s", masked)
	}
	tab.Run("showing the secrets", chromedp.Click(`#preview-show-secrets`))
	password := regexp.MustCompile(`password: "?([A-Za-z0-9]{16})"?\n`).FindStringSubmatch(tab.Text("#preview-yaml"))
	if password == nil {
		t.Fatalf("Show gives no password:\n%s", tab.Text("#preview-yaml"))
	}
	if strings.Contains(masked, password[1]) {
		t.Errorf("the masked YAML held the password %s", password[1])
	}
	tab.Screenshot("e2e-00-preview-secrets-shown")
	tab.Run("hiding them", chromedp.Click(`#preview-show-secrets`), chromedp.Click(`.yaml-box summary`))
}
