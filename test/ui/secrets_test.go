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
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"stencil.dev/stencil/test/browser"
)

// typedPassword is the secret the tests type: it must never be in the page until Show.
const typedPassword = "Tr0ub4dor-and-3"

// pageText is everything the page holds as markup and text (attributes, hidden elements, live
// regions included), and the values of its inputs but the named secret ones, which hold what
// was typed behind their mask.
func pageText(b *browser.Tab, secretInputs ...string) string {
	skip, _ := json.Marshal(append([]string{}, secretInputs...))
	var out string
	b.Eval(`(() => { const skip = `+string(skip)+`;
		const values = [...document.querySelectorAll('input, textarea, select')].filter(e => !skip.includes(e.id)).map(e => e.value);
		return [document.documentElement.outerHTML, document.documentElement.textContent, ...values].join('\n'); })()`, &out)
	return out
}

// leaks names the values that appear in text, each as written and base64-encoded.
func leaks(text string, values ...string) []string {
	var out []string
	for _, v := range values {
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			if strings.Contains(text, form) {
				out = append(out, form)
			}
		}
	}
	return out
}

func openLab(b *browser.Tab, name string) {
	b.Run("opening "+name, chromedp.Navigate(catalogURL), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`),
		chromedp.Evaluate(`location.hash = '#/templates/`+lab+`/`+name+`'`, nil), chromedp.WaitVisible(`#template-form`),
		browser.WaitFor(`/^(Up to date|Not processed)/.test(document.querySelector('#preview-status').textContent)`))
}

// TestPreviewMasksSecrets types a secret and lets another be generated; neither is anywhere in
// the page (message, YAML, a SecretGenerator's base64 data, an error quoting a value) until
// Show is pressed, for the page or for the field.
func TestPreviewMasksSecrets(t *testing.T) {
	b := browser.New(t, screenshotDir)
	openLab(b, "app-credentials")
	b.Run("typing the database password", chromedp.SendKeys(`#param-DB_PASSWORD`, typedPassword),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`),
		browser.WaitFor(`document.querySelector('#preview-message').textContent.includes('postgres://shop:••••••••@db/shop')`),
		chromedp.Click(`.yaml-box summary`))
	masked := pageText(b, "param-DB_PASSWORD", "param-ADMIN_PASSWORD")
	if got := leaks(masked, typedPassword, "admin-default-pw"); len(got) > 0 {
		t.Errorf("the page shows secret values before Show: %q", got)
	}
	// The SecretGenerator's dsn is long: its base64 is broken into lines of 70 characters (52
	// bytes), and the password is cut across the first two; neither line decodes to it alone.
	dsn := "host=db.example.com port=5432 user=shop password=" + typedPassword + " sslmode=verify-full application_name=catalog"
	dsnLine := base64.StdEncoding.EncodeToString([]byte(dsn))[:70]
	if strings.Contains(masked, dsnLine) {
		t.Errorf("the page shows the base64 of a value holding the password, broken into lines")
	}
	if yaml := b.Text("#preview-yaml"); !strings.Contains(yaml, `password: "••••••••"`) || !strings.Contains(yaml, `value: "••••••••"`) {
		t.Errorf("the YAML does not show the masks where the secrets go:\n%s", yaml)
	}
	b.Screenshot("12-preview-masked")

	b.Run("showing every secret", chromedp.Click(`#preview-show-secrets`),
		browser.WaitFor(`document.querySelector('#preview-message').textContent.includes('`+typedPassword+`')`))
	token := regexp.MustCompile(`the API token is ([a-z0-9]{24})\.`).FindStringSubmatch(b.Text("#preview-message"))
	if token == nil {
		t.Fatalf("Show gives the message %q, without the generated token", b.Text("#preview-message"))
	}
	yaml := b.Text("#preview-yaml")
	for _, want := range []string{typedPassword, token[1], base64.StdEncoding.EncodeToString([]byte(typedPassword)), "admin-default-pw", dsnLine} {
		if !strings.Contains(yaml, want) {
			t.Errorf("Show: the YAML lacks %q", want)
		}
	}
	b.Screenshot("13-preview-shown")
	if got := leaks(masked, token[1]); len(got) > 0 {
		t.Errorf("the generated token was in the page before Show: %q", got)
	}
	b.Run("hiding them again", chromedp.Click(`#preview-show-secrets`))
	if got := leaks(pageText(b, "param-DB_PASSWORD", "param-ADMIN_PASSWORD"), typedPassword, token[1]); len(got) > 0 {
		t.Errorf("Hide leaves %q in the page", got)
	}

	// Show at a field shows that parameter's value only.
	b.Run("showing the typed one at its field", chromedp.Click(`#param-DB_PASSWORD + button.reveal`))
	text := pageText(b)
	if !strings.Contains(b.Text("#preview-yaml"), typedPassword) || len(leaks(text, token[1])) > 0 {
		t.Errorf("the field's Show: password shown %v, token leaked %v", strings.Contains(b.Text("#preview-yaml"), typedPassword), leaks(text, token[1]))
	}
	b.Run("showing the generated one at its field", chromedp.Click(`#param-DB_PASSWORD + button.reveal`), chromedp.Click(`#param-API_TOKEN + button.reveal`))
	if yaml := b.Text("#preview-yaml"); !strings.Contains(yaml, token[1]) || strings.Contains(yaml, typedPassword) {
		t.Errorf("the generated field's Show: YAML %s", yaml)
	}
	b.Run("hiding it", chromedp.Click(`#param-API_TOKEN + button.reveal`))

	// A value the server refuses: its answer names the parameter and, since ADMIN_PASSWORD is
	// named like a secret, never quotes the value; the page must not show it either.
	const refused = "Refused Admin 9"
	b.Run("typing a refused admin password", browser.Clear(`#param-ADMIN_PASSWORD`), chromedp.SendKeys(`#param-ADMIN_PASSWORD`, refused),
		browser.WaitFor(`document.querySelector('#param-ADMIN_PASSWORD-error').textContent.includes('parameter ADMIN_PASSWORD')`))
	if got := leaks(pageText(b, "param-DB_PASSWORD", "param-ADMIN_PASSWORD"), refused, typedPassword); len(got) > 0 {
		t.Errorf("the refusal shows %q", got)
	}
	if got := b.Text("#param-ADMIN_PASSWORD-error"); strings.Contains(got, refused) || !strings.Contains(got, "must match") {
		t.Errorf("the refusal should say what the value must match without quoting it: %q", got)
	}
	b.Screenshot("14-refusal-masked")
}
