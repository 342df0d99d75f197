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
	"github.com/chromedp/chromedp/kb"

	"stencil.dev/stencil/test/browser"
)

// unlabelled lists the form controls of the page that have no accessible name.
const unlabelled = `[...document.querySelectorAll('input, select, textarea, button')].filter(e => {
	if (e.type === 'hidden') return false;
	if (e.getAttribute('aria-label') || (e.labels && e.labels.length)) return false;
	return !(e.tagName === 'BUTTON' && e.textContent.trim());
}).map(e => e.outerHTML.slice(0, 80))`

// TestKeyboardOnly goes from the catalog to a filled form and its preview with the keyboard
// alone, and checks that every control of each page has a label.
func TestKeyboardOnly(t *testing.T) {
	b := browser.New(t, screenshotDir)
	b.Run("opening the catalog", chromedp.Navigate(catalogURL), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`))
	var missing []string
	b.Eval(unlabelled, &missing)
	if len(missing) > 0 {
		t.Errorf("catalog controls without a label: %q", missing)
	}

	// The tag filter from a card's tag button, with Enter.
	b.Run("filtering by a tag", chromedp.Focus(`button.tag[aria-label="Show only templates tagged python"]`), chromedp.KeyEvent(kb.Enter),
		browser.WaitFor(`document.querySelector('#count').textContent.startsWith('1 template')`))
	var tag string
	b.Eval(`document.querySelector('#tag').value`, &tag)
	if tag != "python" || !strings.Contains(b.Text("#cards"), "Django") {
		t.Errorf("the python tag shows %q (select says %q)", b.Text("#cards"), tag)
	}
	b.Run("hearing the result", browser.WaitFor(`document.querySelector('#live').textContent.includes('1 template shown')`))
	b.Run("clearing the tag", browser.Clear(`#tag`), chromedp.Evaluate(`document.querySelector('#tag').dispatchEvent(new Event('change'))`, nil),
		browser.WaitFor(`document.querySelector('#count').textContent.startsWith('3 templates')`))

	// Search, then Tab to the first card's link and Enter.
	b.Run("searching by keyboard", chromedp.Focus(`#search`), chromedp.KeyEvent("web"),
		browser.WaitFor(`document.querySelector('#count').textContent.startsWith('1 template')`))
	b.Run("tabbing to the card", chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab))
	var focused string
	b.Eval(`document.activeElement.textContent`, &focused)
	if focused != "Web cache" {
		t.Fatalf("two Tabs after the search focus %q, want the card's link", focused)
	}
	b.Run("opening the card with Enter", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(`#template-form`),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`))
	b.Eval(unlabelled, &missing)
	if len(missing) > 0 {
		t.Errorf("form controls without a label: %q", missing)
	}
	var described []string
	b.Eval(`[...document.querySelectorAll('[data-param]')].filter(e => !(e.getAttribute('aria-describedby') || '').split(' ').every(id => document.getElementById(id))).map(e => e.id)`, &described)
	if len(described) > 0 {
		t.Errorf("inputs whose aria-describedby names nothing: %v", described)
	}

	// Into the first field by Tab, type, and the preview follows.
	b.Run("tabbing into the form", chromedp.Focus(`.crumbs a`), chromedp.KeyEvent(kb.Tab))
	b.Eval(`document.activeElement.id`, &focused)
	if focused != "param-NAME" {
		t.Fatalf("Tab from the breadcrumb focuses %q, want the first parameter", focused)
	}
	b.Run("typing a name", chromedp.KeyEvent(kb.End), chromedp.KeyEvent("-eu"),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('name: cache-eu')`))
	b.Run("checking the box with Space", chromedp.Focus(`#param-DEBUG`), chromedp.KeyEvent(" "),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('debug: "true"')`))
	b.Screenshot("10-keyboard")
}
