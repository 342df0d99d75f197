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
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"stencil.dev/stencil/test/browser"
)

// eapParameters are the parameters of the 33-parameter OpenShift template, split as the form
// must: those to fill (required, or with neither a default nor a generator) in order, and the
// optional rest.
func eapParameters(t *testing.T) (all, fill, optional []string) {
	t.Helper()
	for _, p := range parametersOf(t, "testdata/eap71-amq-s2i.json") {
		all = append(all, p.Name)
		if p.Generate == "" && (p.Required || p.Value == "") {
			fill = append(fill, p.Name)
		} else {
			optional = append(optional, p.Name)
		}
	}
	return all, fill, optional
}

// visibleParameters are the names of the parameter inputs a user sees, in page order.
const visibleParameters = `[...document.querySelectorAll('[data-param]')].filter(e => e.checkVisibility()).map(e => e.name)`

// TestParameterGroups opens an OpenShift template of 33 parameters: as it is, the parameters to
// fill come first and the optional ones are folded under their count; with its author's
// groups (templates.stencil.dev/parameter-groups), each group is a section of its own.
func TestParameterGroups(t *testing.T) {
	all, fill, optional := eapParameters(t)
	if len(all) != 33 {
		t.Fatalf("the template has %d parameters, not 33", len(all))
	}
	b := browser.New(t, screenshotDir)
	openLab(b, "eap71-amq-s2i")
	var visible []string
	b.Eval(visibleParameters, &visible)
	if !reflect.DeepEqual(visible, fill) {
		t.Errorf("shown unfolded: %v\nwant the parameters to fill: %v", visible, fill)
	}
	if got, want := b.Text("#param-group-optional > summary"), fmt.Sprintf("Optional parameters (%d)", len(optional)); got != want {
		t.Errorf("the fold says %q, want %q", got, want)
	}
	var folded []string
	b.Eval(`[...document.querySelectorAll('#param-group-optional [data-param]')].map(e => e.name)`, &folded)
	if !reflect.DeepEqual(folded, optional) {
		t.Errorf("folded: %v, want %v", folded, optional)
	}
	b.Screenshot("16-parameters-folded")
	b.Run("unfolding", chromedp.Click(`#param-group-optional > summary`))
	b.Eval(visibleParameters, &visible)
	if len(visible) != 33 {
		t.Errorf("unfolded, %d parameters show, want 33", len(visible))
	}

	b = browser.New(t, screenshotDir)
	openLab(b, "eap71-grouped")
	var sections []string
	b.Eval(`[...document.querySelectorAll('details.param-group')].map(d => d.querySelector('summary').textContent + (d.open ? ' open: ' : ' folded: ') + [...d.querySelectorAll('[data-param]')].map(e => e.name).join(','))`, &sections)
	// The groups of eapGroups, in its order; open when a field must be filled (HTTPS_SECRET,
	// SOURCE_REPOSITORY_URL); the rest, optional, folded.
	want := []string{
		"Messaging (A-MQ) (9) folded: MQ_JNDI,MQ_PROTOCOL,MQ_QUEUES,MQ_TOPICS,MQ_SERIALIZABLE_PACKAGES,MQ_USERNAME,MQ_PASSWORD,AMQ_MESH_DISCOVERY_TYPE,AMQ_STORAGE_USAGE_LIMIT",
		"HTTPS (5) open: HTTPS_SECRET,HTTPS_KEYSTORE,HTTPS_KEYSTORE_TYPE,HTTPS_NAME,HTTPS_PASSWORD",
		"Clustering (5) folded: JGROUPS_ENCRYPT_SECRET,JGROUPS_ENCRYPT_KEYSTORE,JGROUPS_ENCRYPT_NAME,JGROUPS_ENCRYPT_PASSWORD,JGROUPS_CLUSTER_PASSWORD",
		"Build (8) open: SOURCE_REPOSITORY_URL,SOURCE_REPOSITORY_REF,CONTEXT_DIR,GITHUB_WEBHOOK_SECRET,GENERIC_WEBHOOK_SECRET,MAVEN_MIRROR_URL,MAVEN_ARGS_APPEND,ARTIFACT_DIR",
		"Optional parameters (2) folded: AUTO_DEPLOY_EXPLODED,MEMORY_LIMIT",
	}
	if !reflect.DeepEqual(sections, want) {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(sections, "\n"), strings.Join(want, "\n"))
	}
	b.Eval(visibleParameters, &visible)
	if got := strings.Join(visible, ","); !strings.HasPrefix(got, "APPLICATION_NAME,HOSTNAME_HTTP,HOSTNAME_HTTPS,IMAGE_STREAM_NAMESPACE,HTTPS_SECRET,") {
		t.Errorf("shown: %s; want the ungrouped ones to fill first, then the open groups", got)
	}
	b.Screenshot("17-parameters-grouped")
}

// TestParameterGroupsHostile gives the form builder a groups annotation written to confuse it:
// regular-expression characters taken literally, lines without a title or names skipped, a
// title with markup shown as text, a catch-all group, a parameter named twice kept in the
// first group; then an error on a folded field unfolds its group.
func TestParameterGroupsHostile(t *testing.T) {
	b := browser.New(t, screenshotDir)
	b.Run("opening the catalog", chromedp.Navigate(catalogURL), browser.WaitFor(`document.querySelectorAll('#cards li.card').length > 0`))
	properties := []string{`"A0":{"type":"string"}`}
	for i := 1; i <= 11; i++ {
		properties = append(properties, fmt.Sprintf(`"A%d":{"type":"string","default":"x"}`, i))
	}
	schema := `{"type":"object","required":["A0"],"properties":{` + strings.Join(properties, ",") + `}}`
	annotation := "<img src=x onerror=alert(1)>: A1, A.*, (A2|A3), [A4]\n\nno colon here\n: A5\nEmpty:\nTail: A1*, A9\nNever: A1\n"
	var got struct {
		Sections []string `json:"sections"`
		Main     []string `json:"main"`
		Unfolded bool     `json:"unfolded"`
		Markup   bool     `json:"markup"`
	}
	annotationJSON, _ := json.Marshal(annotation)
	b.Eval(`Promise.all([import('/js/schema.js'), import('/js/form.js')]).then(([s, f]) => {
		const form = new f.ParameterForm(s.fieldsFromSchema(`+schema+`), {'templates.stencil.dev/parameter-groups': `+string(annotationJSON)+`}, () => {});
		document.body.append(form.element);
		const sections = [...form.element.querySelectorAll('details')].map(d => d.querySelector('summary').textContent + (d.open ? ' open: ' : ' folded: ') + [...d.querySelectorAll('[data-param]')].map(e => e.name).join(','));
		const main = [...form.element.children].filter(e => e.dataset.field).map(e => e.dataset.field);
		const markup = !!form.element.querySelector('img');
		form.setErrors(new Map([['A11', ['refused']]]));
		const unfolded = document.querySelector('[data-param=A11]').closest('details').open;
		form.element.remove();
		return {sections, main, unfolded, markup};
	})`, &got)
	want := []string{
		"<img src=x onerror=alert(1)> (1) folded: A1",
		"Tail (3) folded: A9,A10,A11",
		"Optional parameters (7) folded: A2,A3,A4,A5,A6,A7,A8",
	}
	if !reflect.DeepEqual(got.Sections, want) {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(got.Sections, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(got.Main, ",") != "A0" {
		t.Errorf("unfolded fields %v, want the one to fill", got.Main)
	}
	if got.Markup {
		t.Errorf("a group's title was read as markup")
	}
	if !got.Unfolded {
		t.Errorf("an error in a folded group left it folded")
	}
}
