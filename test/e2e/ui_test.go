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

// TestCatalogUICreates runs `kubectl stencil ui` as a token user who may edit one namespace,
// creates the redis example from the catalog in headless Chromium, and follows the result
// page: the objects are applied as that user (server-side apply, field manager stencil-ui),
// and a Deployment becoming available turns its row Ready without a reload.
func TestCatalogUICreates(t *testing.T) {
	if err := browser.EnsureChromium(repoRoot); err != nil {
		t.Fatal(err)
	}
	ns := "e2e-ui"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "-n", ns, "-f", filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml"))
	// No controller-manager fills the aggregated edit role here: the user gets the verbs the
	// objects need (apply is patch, and create for a new object) and Stencil's two roles.
	mustKubectl(t, "admin", "", "create", "role", "ui-apply", "-n", ns, "--verb=get,create,patch",
		"--resource=secrets,services,deployments.apps")
	mustKubectl(t, "admin", "", "create", "rolebinding", "ui-apply", "-n", ns, "--role=ui-apply", "--user=ui-user")
	for _, role := range []string{"stencil-view", "stencil-process"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "ui-"+role, "-n", ns, "--clusterrole="+role, "--user=ui-user")
	}
	url := startCatalog(t, "ui-user", ns)

	tab := browser.New(t, filepath.Join(repoRoot, "_output", "ui-screenshots"))
	tab.Run("opening the redis template", chromedp.Navigate(url), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`),
		chromedp.Click(`a[href="#/templates/`+ns+`/redis"]`), chromedp.WaitVisible(`#template-form`),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`))
	tab.Run("naming it", browser.Clear(`#param-NAME`), chromedp.SendKeys(`#param-NAME`, "cache-ui"),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('name: cache-ui')`))
	tab.Run("creating", chromedp.Click(`#create`), chromedp.WaitVisible(`#result-title`),
		browser.WaitFor(`document.querySelectorAll('#objects tbody tr').length === 3`))
	states := func() string {
		var s string
		tab.Eval(`[...document.querySelectorAll('#objects tbody tr')].map(r => r.children[0].textContent + '=' + r.dataset.state).join(',')`, &s)
		return s
	}
	if got := states(); got != "Secret=ready,Service=ready,Deployment=waiting" {
		tab.Screenshot("failed-e2e-result")
		t.Fatalf("after create: %s\n%s", got, tab.Text("#objects"))
	}
	if got := tab.Text("#result-message"); got != "Redis cache-ui is ready; the password is in Secret cache-ui." {
		t.Errorf("message %q", got)
	}
	tab.Screenshot("e2e-01-result-waiting")

	managers := mustKubectl(t, "admin", "", "get", "deployment", "cache-ui", "-n", ns, "-o", "jsonpath={.metadata.managedFields[*].manager}")
	if !strings.Contains(managers, "stencil-ui") {
		t.Errorf("the Deployment's field managers are %q, want stencil-ui's apply", managers)
	}
	// What a controller would write once the pod runs; the page reads it again by itself.
	mustKubectl(t, "admin", "", "patch", "deployment", "cache-ui", "-n", ns, "--subresource=status", "--type=merge",
		"-p", `{"status":{"observedGeneration":1,"replicas":1,"readyReplicas":1,"availableReplicas":1,"updatedReplicas":1}}`)
	tab.Run("waiting for the Deployment to turn ready", browser.WaitFor(`document.querySelector('#result-summary').textContent.startsWith('3 of 3 objects ready')`))
	if got := states(); got != "Secret=ready,Service=ready,Deployment=ready" {
		t.Errorf("after the rollout: %s", got)
	}
	tab.Screenshot("e2e-02-result-ready")

	// The user's own rights: a namespace they may not write refuses the objects, by name.
	mustKubectl(t, "admin", "", "create", "namespace", ns+"-other")
	tab.Run("creating elsewhere", chromedp.Navigate(strings.SplitN(url, "#", 2)[0]+"#/templates/"+ns+"/redis"), chromedp.WaitVisible(`#template-form`),
		chromedp.SetValue(`#namespace`, ns+"-other"), chromedp.Click(`#create`), chromedp.WaitVisible(`#result-title`))
	if got := tab.Text("#objects"); strings.Count(got, "forbidden") != 3 {
		t.Errorf("creating in a namespace ui-user may not write: %s", got)
	}
	tab.Screenshot("e2e-03-result-forbidden")
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
