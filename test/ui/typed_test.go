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
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"stencil.dev/stencil/test/browser"
)

// TestTypedForm opens a template that declares types and constraints: each gets its input,
// a value out of bounds is refused before the round trip and by the server, and a secret is
// masked.
func TestTypedForm(t *testing.T) {
	b := browser.New(t, screenshotDir)
	b.Run("opening web-cache", chromedp.Navigate(catalogURL), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`),
		chromedp.Click(`a[href="#/templates/shared/web-cache"]`), chromedp.WaitVisible(`#template-form`),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Up to date')`))
	var widgets map[string]string
	b.Eval(`Object.fromEntries([...document.querySelectorAll('[data-param]')].map(e => [e.name, e.tagName.toLowerCase() + (e.type && e.tagName === 'INPUT' ? ':' + e.type : '')]))`, &widgets)
	want := map[string]string{
		"NAME": "input:text", "REPLICAS": "input:number", "TIER": "select", "DEBUG": "input:checkbox",
		"API_KEY": "input:password", "CONFIG": "textarea",
	}
	if !reflect.DeepEqual(widgets, want) {
		t.Errorf("inputs %v, want %v", widgets, want)
	}
	var bounds []string
	b.Eval(`[document.querySelector('#param-REPLICAS').min, document.querySelector('#param-REPLICAS').max]`, &bounds)
	if strings.Join(bounds, "-") != "1-5" {
		t.Errorf("REPLICAS bounds %v", bounds)
	}
	var options []string
	b.Eval(`[...document.querySelectorAll('#param-TIER option')].map(o => o.value)`, &options)
	if strings.Join(options, ",") != ",small,medium,large" {
		t.Errorf("TIER options %q", options)
	}

	b.Run("typing a replica count out of bounds", browser.Clear(`#param-REPLICAS`), chromedp.SendKeys(`#param-REPLICAS`, "9"),
		browser.WaitFor(`document.querySelector('#param-REPLICAS-error').textContent.includes('must be at most 5')`),
		browser.WaitFor(`document.querySelector('#preview-status').textContent.startsWith('Not processed')`))
	if got := b.Text("#param-REPLICAS-error"); !strings.Contains(got, "parameter REPLICAS") {
		t.Errorf("the server's refusal is not at the field: %q", got)
	}
	b.Run("choosing a tier and debug", browser.Clear(`#param-REPLICAS`), chromedp.SendKeys(`#param-REPLICAS`, "3"),
		chromedp.SetValue(`#param-TIER`, "large"), chromedp.Click(`#param-DEBUG`),
		chromedp.SendKeys(`#param-CONFIG`, "max_age 60\nstale ok"),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('replicas: 3')`),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('tier: large')`),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('debug: "true"')`),
		browser.WaitFor(`document.querySelector('#preview-yaml').textContent.includes('max_age 60')`))
	b.Run("revealing the secret", chromedp.SendKeys(`#param-API_KEY`, "abc123"), chromedp.Click(`#param-API_KEY + button.reveal`))
	var kind string
	b.Eval(`document.querySelector('#param-API_KEY').type`, &kind)
	if kind != "text" {
		t.Errorf("Show left the secret masked (type %q)", kind)
	}
	b.Run("opening the YAML", chromedp.Click(`.yaml-box summary`))
	b.Screenshot("09-typed-form")
}

// TestFormBuilder checks the form builder against a fixed schema document in the contract of
// templates/{name}/schema, inside the page's own modules.
func TestFormBuilder(t *testing.T) {
	b := browser.New(t, screenshotDir)
	b.Run("opening the catalog", chromedp.Navigate(catalogURL), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`))
	schema := `{"title":"t","type":"object","required":["A","G"],"properties":{
		"S":{"type":"string","title":"Secret","writeOnly":true,"x-stencil-secret":true},
		"A":{"type":"integer","title":"Count","description":"how many","default":3,"minimum":1,"maximum":9},
		"B":{"type":"boolean","default":true},
		"E":{"type":"string","enum":["x","y"],"default":"y"},
		"M":{"type":"string","x-stencil-multiline":true},
		"G":{"type":"string","x-stencil-generated":"[a-z]{8}"},
		"N":{"type":"number","maximum":1.5},
		"J":{"type":"array","x-stencil-type":"json"},
		"X":{"type":"string","contentEncoding":"base64"},
		"DB_PASSWORD":{"type":"string"},
		"R":{"type":"string","default":"512Mi","minLength":1},
		"W":{"type":"string","writeOnly":true,"x-stencil-secret":true,"minLength":1,"x-stencil-generated":"[a-z]{4}"}}}`
	var fields []map[string]any
	b.Eval(`import('/js/schema.js').then(m => m.fieldsFromSchema(`+schema+`))`, &fields)
	got := map[string][]any{}
	var order []string
	for _, f := range fields {
		name := f["name"].(string)
		order = append(order, name)
		got[name] = []any{f["widget"], f["type"], f["required"], f["default"], f["writeOnly"]}
	}
	// required in the form: listed in required and not generated, or a default that must not
	// be emptied (minLength 1); the secret-looking name is masked though the schema does not say.
	want := map[string][]any{
		"S": {"password", "string", false, "", true}, "A": {"number", "int", true, "3", false}, "B": {"checkbox", "bool", false, "true", false},
		"E": {"select", "string", false, "y", false}, "M": {"textarea", "string", false, "", false}, "G": {"text", "string", false, "", false},
		"N": {"number", "number", false, "", false}, "J": {"textarea", "json", false, "", false}, "X": {"text", "base64", false, "", false},
		"DB_PASSWORD": {"password", "string", false, "", false}, "R": {"text", "string", true, "512Mi", false},
		"W": {"password", "string", false, "", true},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("fields\n got %s\nwant %s", g, w)
	}
	if strings.Join(order, ",") != "S,A,B,E,M,G,N,J,X,DB_PASSWORD,R,W" {
		t.Errorf("order %v, want the schema's", order)
	}
	var problems [][]string
	b.Eval(`import('/js/schema.js').then(m => { const f = m.fieldsFromSchema(`+schema+`); const by = Object.fromEntries(f.map(x => [x.name, x]));
		return [m.check(by.A, '12'), m.check(by.A, '2.5'), m.check(by.N, '1.4'), m.check(by.J, '[1'), m.check(by.E, 'z'), m.check(by.A, '')]; })`, &problems)
	wantProblems := [][]string{{"must be at most 9"}, {"must be an integer"}, {}, {"must be a JSON value"}, {"must be one of x, y"}, {}}
	if !reflect.DeepEqual(problems, wantProblems) {
		t.Errorf("checks %q, want %q", problems, wantProblems)
	}
}
