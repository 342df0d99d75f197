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
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"stencil.dev/stencil/test/browser"
)

// rollingTemplate is a Template with a rollout of one wave and a ConfigMap holding VALUE.
func rollingTemplate(value string) string {
	return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: rolling}
rollout: {waves: [1]}
parameters: [{name: VALUE, value: "` + value + `"}]
objects: [{apiVersion: v1, kind: ConfigMap, metadata: {name: rolling}, data: {v: "${VALUE}"}}]
`
}

// TestCatalogUIRollout: the catalog's rollout panel as two token users of a real cluster. One
// who may read the Template but not update it (stencil-view) is told so and gets no button, and
// the catalog server's rollout endpoint, asked directly as the page would be forged to, is
// refused by the cluster (403) and changes nothing. One who may update it (stencil-edit) gets
// the buttons from the cluster's SelfSubjectAccessReview, and undo and pause write the Template
// as stencil rollout does.
func TestCatalogUIRollout(t *testing.T) {
	if err := browser.EnsureChromium(repoRoot); err != nil {
		t.Fatal(err)
	}
	ns := "e2e-ui-rollout"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", rollingTemplate("one"), "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "admin", rollingTemplate("two"), "apply", "-n", ns, "-f", "-")
	for _, role := range []string{"stencil-view", "stencil-process"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "ui-viewer-"+role, "-n", ns, "--clusterrole="+role, "--user=ui-viewer")
	}
	grantEdit(t, ns, "ui-roller")
	screenshots := filepath.Join(repoRoot, "_output", "ui-screenshots")
	open := func(tab *browser.Tab, url string) {
		tab.Run("opening the rolling template", chromedp.Navigate(url), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`),
			chromedp.Click(`a[href="#/templates/`+ns+`/rolling"]`), chromedp.WaitVisible(`#template-form`),
			browser.WaitFor(`!!document.querySelector('#rollout-title') && !!(document.querySelector('#rollout-actions') || document.querySelector('#rollout-not-allowed'))`))
	}

	viewerURL := startCatalog(t, "ui-viewer", ns)
	viewer := browser.New(t, screenshots)
	open(viewer, viewerURL)
	var buttons int
	viewer.Eval(`document.querySelectorAll('#rollout button').length`, &buttons)
	if buttons != 0 || !strings.Contains(viewer.Text("#rollout-not-allowed"), "You may not pause, resume or undo this rollout") {
		t.Errorf("ui-viewer gets %d buttons and %q", buttons, viewer.Text("#rollout"))
	}
	viewer.Screenshot("e2e-10-rollout-not-allowed")
	catalog := newCatalogClient(t, viewerURL)
	var access struct {
		Allowed bool   `json:"allowed"`
		Reason  string `json:"reason"`
	}
	catalog.do("GET", "/ui/api/rollout?namespace="+ns+"&name=rolling", nil, 200, &access)
	if access.Allowed {
		t.Errorf("the cluster lets ui-viewer update the Template: %+v", access)
	}
	for _, action := range []string{"pause", "resume", "undo"} {
		var refused struct {
			Message string `json:"message"`
		}
		catalog.do("POST", "/ui/api/rollout", map[string]any{"namespace": ns, "name": "rolling", "action": action}, 403, &refused)
		if !strings.Contains(refused.Message, `you may not update template "rolling"`) {
			t.Errorf("a forged %s as ui-viewer: %q", action, refused.Message)
		}
	}
	if got := mustKubectl(t, "admin", "", "get", "template", "rolling", "-n", ns, "-o", "jsonpath={.rollout.paused} {.revision.number} {.parameters[0].value}"); got != " 2 two" {
		t.Errorf("after the forged requests the Template is %q", got)
	}
	// Nor through the proxy: the pages may not write Templates at all.
	var proxied map[string]any
	catalog.do("PUT", "/k8s/apis/templates.stencil.dev/v1alpha1/namespaces/"+ns+"/templates/rolling", map[string]any{}, 403, &proxied)

	rollerURL := startCatalog(t, "ui-roller", ns)
	roller := browser.New(t, screenshots)
	open(roller, rollerURL)
	roller.Run("undoing", chromedp.Click(`#rollout-undo`), browser.WaitFor(`!!document.querySelector('#rollout-undo-confirm')`),
		chromedp.Click(`#rollout-undo-confirm`), browser.WaitFor(`document.querySelector('#rollout-result').textContent.includes('written back')`))
	roller.Run("pausing", chromedp.Click(`#rollout-pause`), browser.WaitFor(`!!document.querySelector('#rollout-paused')`))
	if got := roller.Text("#rollout-result"); got != "template rolling: rollout paused" {
		t.Errorf("pause says %q", got)
	}
	roller.Screenshot("e2e-11-rollout-paused")
	if got := mustKubectl(t, "admin", "", "get", "template", "rolling", "-n", ns, "-o", "jsonpath={.rollout.paused} {.revision.number} {.parameters[0].value} {.author.username}"); got != "true 3 one ui-roller" {
		t.Errorf("after undo and pause by ui-roller the Template is %q", got)
	}
}
