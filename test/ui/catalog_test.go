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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/test/browser"
)

// openShiftParameter is what the form must show of each parameter of a shared template.
type openShiftParameter struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	Generate    string `json:"generate"`
	Required    bool   `json:"required"`
	Value       string `json:"value"`
}

// parametersOf reads the parameters of an OpenShift template file.
func parametersOf(t *testing.T, file string) []openShiftParameter {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Parameters []openShiftParameter `json:"parameters"`
	}
	if err := json.Unmarshal(data, &tpl); err != nil {
		t.Fatal(err)
	}
	return tpl.Parameters
}

// TestCatalogToResult walks what a user does: the catalog, a search, the mysql-persistent
// form, a value the server refuses, the fix, and create.
func TestCatalogToResult(t *testing.T) {
	b := browser.New(t, screenshotDir)

	b.Run("opening the catalog", chromedp.Navigate(catalogURL), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`))
	var titles []string
	b.Eval(`[...document.querySelectorAll('#cards .card-link')].map(a => a.textContent)`, &titles)
	want := []string{"Django + PostgreSQL", "MySQL", "Web cache"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Fatalf("catalog cards: %q, want %q (the hidden template left out)", titles, want)
	}
	if got := b.Text("#count"); got != "3 templates shown of 3" {
		t.Errorf("count: %q", got)
	}
	var href string
	b.Eval(`location.href`, &href)
	if strings.Contains(href, "token=") {
		t.Errorf("the token stayed in the address bar: %s", href)
	}
	b.Screenshot("01-catalog")

	b.Run("searching", chromedp.SendKeys("#search", "mysql"), browser.WaitFor(`document.querySelector('#count').textContent.startsWith('1 template')`))
	b.Eval(`[...document.querySelectorAll('#cards .card-link')].map(a => a.textContent)`, &titles)
	if len(titles) != 1 || titles[0] != "MySQL" {
		t.Fatalf("searching mysql shows %q", titles)
	}
	b.Screenshot("02-search")

	b.Run("opening mysql-persistent", chromedp.Click(`#cards .card-link`), chromedp.WaitVisible(`#template-form`),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`))
	for _, p := range parametersOf(t, filepath.Join("..", "..", "pkg", "process", "testdata", "mysql-persistent.json")) {
		label := b.Text(fmt.Sprintf(`label[for="param-%s"]`, p.Name))
		if !strings.HasPrefix(label, p.DisplayName) {
			t.Errorf("%s: label %q, want %q", p.Name, label, p.DisplayName)
		}
		if marked := strings.Contains(label, "(required)"); marked != (p.Required && p.Generate == "") {
			t.Errorf("%s: required marker %v, want %v", p.Name, marked, p.Required && p.Generate == "")
		}
		if help := b.Text(fmt.Sprintf(`#param-%s-help`, p.Name)); !strings.Contains(help, p.Description) {
			t.Errorf("%s: help %q, want %q", p.Name, help, p.Description)
		}
		if hint := b.Text(fmt.Sprintf(`#param-%s-hint`, p.Name)); (p.Generate != "") != strings.HasPrefix(hint, "Generated if empty") {
			t.Errorf("%s: generated hint %q", p.Name, hint)
		}
	}
	if got := b.Text("#preview-summary"); !strings.Contains(got, "PersistentVolumeClaim") || !strings.Contains(got, "mysql") {
		t.Errorf("preview summary: %q", got)
	}
	b.Screenshot("03-form")

	// A required value cleared: the server's 422 names parameters[2], shown at its field.
	field := `#param-DATABASE_SERVICE_NAME`
	b.Run("clearing a required value", chromedp.Click(field), chromedp.KeyEvent(kb.End), selectAllAndDelete(field),
		browser.WaitFor(`!document.querySelector('#param-DATABASE_SERVICE_NAME-error').hidden`))
	if got := b.Text(field + "-error"); !strings.Contains(got, "parameter DATABASE_SERVICE_NAME is required and must be specified") {
		t.Errorf("the field's error is %q, not the server's", got)
	}
	var invalid string
	b.Eval(`document.querySelector('#param-DATABASE_SERVICE_NAME').getAttribute('aria-invalid')`, &invalid)
	if invalid != "true" {
		t.Errorf("aria-invalid=%q on the refused field", invalid)
	}
	b.Run("hearing the error", browser.WaitFor(`document.querySelector('#alert').textContent.includes('Database Service Name')`))
	b.Screenshot("04-server-error")

	typed := time.Now()
	b.Run("fixing the value", chromedp.SendKeys(field, "orders-db"),
		browser.WaitFor(`document.querySelector('#param-DATABASE_SERVICE_NAME-error').hidden && document.querySelector('#preview-status').textContent.startsWith('Up to date')`),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('name: orders-db')`))
	// A figure, not a check: the last keystroke to the preview shown, 350 ms of debounce included.
	t.Logf("preview updated %v after the last keystroke", time.Since(typed).Round(time.Millisecond))
	if got := b.Text("#preview-message"); !strings.Contains(got, "orders-db") {
		t.Errorf("the preview's message: %q", got)
	}
	b.Run("opening the YAML", chromedp.Click(`.yaml-box summary`))
	b.Screenshot("05-fixed-preview")

	// The server serves TemplateInstances: create makes one, and its page is the result.
	b.Run("creating", browser.Clear(`#instance-name`), chromedp.SendKeys(`#instance-name`, "orders"), chromedp.Click(`#create`),
		browser.WaitFor(`(document.querySelector('#instance-title') || {}).textContent === 'orders'`),
		browser.WaitFor(`!!document.querySelector('#message-pending, #result-message')`))
	if got := b.Text("#instance-status"); !strings.HasPrefix(got, "Template mysql-persistent in default") {
		t.Errorf("the instance's status line: %q", got)
	}
	// Local mode renders nothing, so no generated value is stored yet: the page says which.
	if got := b.Text("#message-pending"); !strings.Contains(got, "MYSQL_USER, MYSQL_PASSWORD, MYSQL_ROOT_PASSWORD") {
		t.Errorf("the message box says %q", got)
	}
	instance, err := client.TemplatesV1alpha1().TemplateInstances(namespace).Get(context.Background(), "orders", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if instance.Spec.TemplateRef == nil || instance.Spec.TemplateRef.Name != "mysql-persistent" ||
		instance.Spec.Parameters["DATABASE_SERVICE_NAME"] != "orders-db" || instance.Spec.Parameters["MEMORY_LIMIT"] != "512Mi" {
		t.Errorf("the instance's spec: %+v", instance.Spec)
	}
	if _, sent := instance.Spec.Parameters["MYSQL_PASSWORD"]; sent {
		t.Errorf("an empty generated parameter was sent: %v", instance.Spec.Parameters)
	}
	b.Screenshot("06-instance")

	// Uninstall from the instances page, behind a dialog that names the instance.
	b.Run("opening the instances page", chromedp.Click(`a[data-nav="instances"]`),
		browser.WaitFor(`[...document.querySelectorAll('#instances tbody tr a')].some(a => a.textContent === 'orders')`))
	b.Run("asking to delete", chromedp.Click(`button[aria-label="Delete instance orders"]`), chromedp.WaitVisible(`dialog[open]`))
	if got := b.Text("dialog[open] h2"); got != "Delete instance orders?" {
		t.Errorf("the dialog asks %q", got)
	}
	b.Screenshot("07-delete-confirm")
	b.Run("confirming", chromedp.Click(`dialog[open] button.danger`),
		browser.WaitFor(`![...document.querySelectorAll('#instances tbody tr a')].some(a => a.textContent === 'orders')`))
	b.Run("hearing the deletion", browser.WaitFor(`document.querySelector('#live').textContent.includes('orders is being deleted')`))
	b.Screenshot("08-instances")
}

// selectAllAndDelete empties a text input as a user does, so that input events fire.
func selectAllAndDelete(selector string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var n int
		if err := chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).value.length`, selector), &n).Do(ctx); err != nil {
			return err
		}
		return chromedp.SendKeys(selector, strings.Repeat(kb.Backspace, n)).Do(ctx)
	})
}
