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
	"testing"

	"github.com/chromedp/chromedp"

	"stencil.dev/stencil/test/browser"
)

// lineEnds says, for each element, whether the end of its text is drawn inside the element's
// visible box and the preview panel's: a wrapped line is, a line cut by the box is not. A box
// that scrolls sideways is a cut too: the end of the line is out of view.
const lineEnds = `args[0].map(sel => {
	const el = document.querySelector(sel);
	const panel = el.closest('.panel').getBoundingClientRect();
	const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
	let last = null;
	for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent.trim()) last = n;
	const range = document.createRange();
	const end = last.textContent.trimEnd().length;
	range.setStart(last, end - 1);
	range.setEnd(last, end);
	const r = range.getBoundingClientRect();
	const box = el.getBoundingClientRect();
	return sel + ':' + (r.right <= box.right && r.right <= panel.right && el.scrollWidth <= el.clientWidth);
})`

// TestLongLinesWrap opens a template whose message and YAML have lines far wider than the
// preview: each line's end is drawn inside the preview, wrapped, not cut or scrolled out.
func TestLongLinesWrap(t *testing.T) {
	b := browser.New(t, screenshotDir)
	openLab(b, "long-lines")
	b.Run("opening the YAML", chromedp.Click(`.yaml-box summary`), chromedp.WaitVisible(`#preview-yaml`))
	var ends []string
	b.Eval(`((...args) => (`+lineEnds+`))(['#preview-message', '#preview-yaml'])`, &ends)
	for _, e := range ends {
		if e[len(e)-4:] != "true" {
			t.Errorf("a long line's end is cut: %s", e)
		}
	}
	b.Screenshot("15-long-lines")
}
