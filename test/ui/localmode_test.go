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

package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/test/browser"
)

// count is the number of requests whose URL contains part.
func count(requests []browser.Request, part string) int {
	n := 0
	for _, r := range requests {
		if strings.Contains(r.URL, part) {
			n++
		}
	}
	return n
}

// TestLocalModeCreate is a create against a local-mode server, which has no cluster: the
// template page says before Create that nothing will be created, and asks the server nothing it
// cannot answer (no namespaces, no request refused); the instance Create stores says so.
func TestLocalModeCreate(t *testing.T) {
	b := browser.New(t, screenshotDir)
	openLab(b, "app-credentials")
	// The page is drawn: the namespace picker has asked what it asks.
	for _, r := range b.Requests() {
		if strings.Contains(r.URL, "/api/v1/namespaces") || r.Status == 403 || r.Status == 404 {
			t.Errorf("the template page asked what the server cannot answer: %s %s: %d", r.Method, r.URL, r.Status)
		}
	}
	if count(b.Requests(), "/ui/api/namespaces") != 1 {
		t.Errorf("the namespaces were asked of the catalog server %d times, want once", count(b.Requests(), "/ui/api/namespaces"))
	}
	b.Run("waiting for the notice", browser.WaitFor(`!document.querySelector('#create-notice').hidden`))
	if got := b.Text("#create-notice"); !strings.HasPrefix(got, "Nothing will be created.") || !strings.Contains(got, "local mode") {
		t.Errorf("the notice before Create says %q", got)
	}
	var described string
	b.Eval(`document.querySelector('#create').getAttribute('aria-describedby')`, &described)
	if described != "create-notice" {
		t.Errorf("the Create button is described by %q, not the notice", described)
	}
	var kind string
	b.Eval(`document.querySelector('#namespace').tagName + ':' + document.querySelector('#namespace-help').textContent`, &kind)
	if kind != "INPUT:Where the objects are created: type a namespace." {
		t.Errorf("the namespace picker is %q, want a text field saying to type", kind)
	}
	b.Screenshot("18-local-create-notice")

	// Create stores the instance, whose page says nothing was created.
	b.Run("creating", chromedp.SendKeys(`#param-DB_PASSWORD`, typedPassword),
		browser.Clear(`#instance-name`), chromedp.SendKeys(`#instance-name`, "creds-created"),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`),
		chromedp.Click(`#create`),
		browser.WaitFor(`document.querySelector('#instance-status')?.dataset.state === 'stopped'`))
}

// TestLocalModeInstancePage opens instances a local-mode server stored, which never progress
// (reason NoCluster): the page says that nothing was created, shows the message with the
// secrets masked until Show, and stops polling; an instance whose message needs generated
// values says why they never come instead of waiting for them.
func TestLocalModeInstancePage(t *testing.T) {
	const token = "typed-api-token-0042"
	for name, parameters := range map[string]map[string]string{
		"creds-local":   {"DB_PASSWORD": typedPassword, "API_TOKEN": token},
		"creds-pending": {"DB_PASSWORD": typedPassword},
	} {
		instance := &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: "app-credentials"}, Parameters: parameters}}
		if _, err := client.TemplatesV1alpha1().TemplateInstances(lab).Create(context.Background(), instance, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	b := browser.New(t, screenshotDir)
	b.Run("opening an instance", chromedp.Navigate(catalogURL), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`),
		chromedp.Evaluate(`location.hash = '#/instances/`+lab+`/creds-local'`, nil),
		browser.WaitFor(`document.querySelector('#instance-status')?.dataset.state === 'stopped'`),
		browser.WaitFor(`!!document.querySelector('#result-message')?.textContent.includes('postgres://shop:••••••••@db/shop')`))
	if got := b.Text("#instance-status"); !strings.Contains(got, "Nothing created") || !strings.Contains(got, "local mode") {
		t.Errorf("the instance's status line: %q", got)
	}
	if got := b.Text("#objects-empty"); !strings.HasPrefix(got, "Nothing was created, and nothing will be") {
		t.Errorf("the objects box says %q", got)
	}
	if got := leaks(pageText(b), typedPassword, token); len(got) > 0 {
		t.Errorf("the instance page shows %q before Show", got)
	}
	b.Run("showing the secrets", chromedp.Click(`#instance-show-secrets`))
	if got := b.Text("#result-message"); !strings.Contains(got, typedPassword) || !strings.Contains(got, token) {
		t.Errorf("Show gives the message %q", got)
	}
	b.Screenshot("19-local-instance")
	// Nothing will change: the page stopped asking. Two polling periods (2 s) pass unasked.
	const instancePath = "/templateinstances/creds-local"
	before, messages := count(b.Requests(), instancePath), count(b.Requests(), "/ui/api/instance-message")
	time.Sleep(5 * time.Second)
	if after := count(b.Requests(), instancePath); after != before || count(b.Requests(), "/ui/api/instance-message") != messages {
		t.Errorf("the page kept polling an instance that cannot progress: %d reads of it, then %d", before, after)
	}

	// API_TOKEN is left to be generated: the controller would generate it on creating the
	// objects, which never happens; the page says so rather than wait for it.
	b.Run("opening one that awaits a generated value", chromedp.Evaluate(`location.hash = '#/instances/`+lab+`/creds-pending'`, nil),
		browser.WaitFor(`!!document.querySelector('#message-pending')`),
		browser.WaitFor(`document.querySelector('#instance-status')?.dataset.state === 'stopped'`))
	if got := b.Text("#message-pending"); !strings.Contains(got, "API_TOKEN") || !strings.Contains(got, "this server creates nothing") {
		t.Errorf("the message box says %q", got)
	}
	b.Screenshot("20-local-instance-pending")
}
