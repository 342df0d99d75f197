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

	"github.com/chromedp/chromedp"

	"stencil.dev/stencil/test/browser"
)

// TestResultPage shows the result page of a create on a cluster without TemplateInstances (the
// catalog applied the objects itself) from a fixed result: the message with the secret value
// masked until the page's Show, the generated values masked until shown, and each object as
// the catalog server reads it again. Local mode serves no Deployments: read again, the
// Deployment turns Failed with the server's reason.
func TestResultPage(t *testing.T) {
	b := browser.New(t, screenshotDir)
	b.Run("opening the catalog", chromedp.Navigate(catalogURL), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`))
	var id string
	b.Eval(`Promise.all([import('/js/results.js'), import('/js/secrets.js')]).then(([m, s]) => { const secrets = new s.Secrets(); secrets.set('API_KEY', 'c0ffee'); return m.remember({
		entry: {name: 'web-cache', namespace: 'shared', displayName: 'Web cache', icon: 'redis', tags: []},
		namespace: 'default', message: 'Cache front with 2 replicas, key c0ffee.', created: new Date().toISOString(), secrets,
		generated: [{name: 'API_KEY', label: 'API key', secret: true, value: 'c0ffee'}],
		objects: [
			{apiVersion: 'templates.stencil.dev/v1alpha1', kind: 'Template', namespace: 'default', name: 'mysql-persistent', exists: true, ready: true},
			{apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'front', exists: true, ready: false, message: '0 of 2 replicas ready'}]}); })`, &id)
	b.Run("opening the result", chromedp.Navigate(strings.SplitN(catalogURL, "#", 2)[0]+"#/result/"+id), chromedp.WaitVisible(`#result-title`),
		// The page reads the objects again: the Template is there and ready; Deployments are not served.
		browser.WaitFor(`document.querySelector('#objects tbody tr:nth-child(2) .state-why').textContent.includes('no matches for kind')`))
	if got := b.Text("#result-title"); got != "Web cache created" {
		t.Errorf("title %q", got)
	}
	if got := b.Text("#result-message"); got != "Cache front with 2 replicas, key ••••••••." {
		t.Errorf("message %q", got)
	}
	if got := leaks(pageText(b), "c0ffee"); len(got) > 0 {
		t.Errorf("the result page shows the secret before Show: %q", got)
	}
	b.Run("showing the message's secrets", chromedp.Click(`#result-show-secrets`))
	if got := b.Text("#result-message"); got != "Cache front with 2 replicas, key c0ffee." {
		t.Errorf("the page's Show gives the message %q", got)
	}
	if got := b.Text("dl.generated dd code"); got != "••••••••" {
		t.Errorf("the secret shows before asked: %q", got)
	}
	b.Run("showing the secret", chromedp.Click(`dl.generated button.reveal`))
	if got := b.Text("dl.generated dd code"); got != "c0ffee" {
		t.Errorf("Show gives %q", got)
	}
	var states string
	b.Eval(`[...document.querySelectorAll('#objects tbody tr')].map(r => r.children[0].textContent + '=' + r.querySelector('.state').textContent).join(',')`, &states)
	if states != "Template=Ready,Deployment=Failed" {
		t.Errorf("object states %q", states)
	}
	b.Screenshot("11-result-applied")
}
