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
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

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
// cannot answer (no namespaces, no request refused); the instance page says that nothing was
// created, shows the message with the secrets masked, and stops polling; an instance that would
// wait for generated values says why they never come instead of waiting.
func TestLocalModeCreate(t *testing.T) {
	b := browser.New(t, screenshotDir)
	openLab(b, "app-credentials")
	b.Run("waiting for the notice", browser.WaitFor(`!document.querySelector('#create-notice').hidden`))
	if got := b.Text("#create-notice"); !strings.HasPrefix(got, "Nothing will be created.") || !strings.Contains(got, "local mode") {
		t.Errorf("the notice before Create says %q", got)
	}
	var described string
	b.Eval(`document.querySelector('#create').getAttribute('aria-describedby')`, &described)
	if described != "create-notice" {
		t.Errorf("the Create button is described by %q, not the notice", described)
	}
	for _, r := range b.Requests() {
		if strings.Contains(r.URL, "/api/v1/namespaces") || r.Status == 403 || r.Status == 404 {
			t.Errorf("the template page asked what the server cannot answer: %s %s: %d", r.Method, r.URL, r.Status)
		}
	}
	if count(b.Requests(), "/ui/api/namespaces") != 1 {
		t.Errorf("the namespaces were not asked of the catalog server: %v", b.Requests())
	}
	var kind string
	b.Eval(`document.querySelector('#namespace').tagName + ':' + document.querySelector('#namespace-help').textContent`, &kind)
	if kind != "INPUT:Where the objects are created: type a namespace." {
		t.Errorf("the namespace picker is %q, want a text field saying to type", kind)
	}
	b.Screenshot("18-local-create-notice")

	// Every secret typed, none generated: the instance's message can be made, and is masked.
	const token = "typed-api-token-0042"
	b.Run("creating", chromedp.SendKeys(`#param-DB_PASSWORD`, typedPassword), chromedp.SendKeys(`#param-API_TOKEN`, token),
		browser.Clear(`#instance-name`), chromedp.SendKeys(`#instance-name`, "creds-local"),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`),
		chromedp.Click(`#create`),
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

	// A generated value left empty: the controller would generate it on creating the objects,
	// which never happens; the page says so rather than wait for it.
	b.Run("opening the template again", chromedp.Evaluate(`location.hash = '#/templates/`+lab+`/app-credentials'`, nil), chromedp.WaitVisible(`#template-form`))
	b.Run("creating one that awaits a generated value", chromedp.SendKeys(`#param-DB_PASSWORD`, typedPassword),
		browser.Clear(`#instance-name`), chromedp.SendKeys(`#instance-name`, "creds-pending"),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`),
		chromedp.Click(`#create`),
		browser.WaitFor(`document.querySelector('#instance-status')?.dataset.state === 'stopped'`),
		browser.WaitFor(`!!document.querySelector('#message-pending')`))
	if got := b.Text("#message-pending"); !strings.Contains(got, "API_TOKEN") || !strings.Contains(got, "this server creates nothing") {
		t.Errorf("the message box says %q", got)
	}
	b.Screenshot("20-local-instance-pending")
}
