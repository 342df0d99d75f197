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

	"github.com/chromedp/chromedp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/test/browser"
)

// revisionedTemplate holds VALUE (default dflt) in a ConfigMap, and a generated password in a
// connection URL.
func revisionedTemplate(dflt string, enum ...string) *templatesv1.Template {
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "rev-app", Namespace: lab,
			Annotations: map[string]string{"openshift.io/display-name": "Revisioned app"}},
		Parameters: []templatesv1.Parameter{{Name: "VALUE", Value: dflt, Enum: enum},
			{Name: "PASSWORD", Generate: "expression", From: "[a-z0-9]{24}"}},
		Objects: []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},` +
			`"data":{"k":"${VALUE}","url":"db://u:${PASSWORD}@${VALUE}"}}`)}},
	}
}

// TestRevisionPreview opens a template with two revisions and three instances on revision 1:
// the page lists the revisions, and Preview of revision 2 says, per instance, what moving to it
// would do (unchanged, changed with the field, breaks its parameters), the generated password
// masked.
func TestRevisionPreview(t *testing.T) {
	ctx := context.Background()
	templates := client.TemplatesV1alpha1().Templates(lab)
	if _, err := templates.Create(ctx, revisionedTemplate("one"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	instances := client.TemplatesV1alpha1().TemplateInstances(lab)
	for name, values := range map[string]map[string]string{"a-default": nil, "b-explicit": {"VALUE": "one"}, "c-three": {"VALUE": "three"}} {
		ti, err := instances.Create(ctx, &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: "rev-app"}, Parameters: values}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// As a controller would have recorded: on revision 1. (A local server runs none.)
		ti.Status.TemplateRevision = &templatesv1.AppliedRevision{Number: 1, Generation: ti.Generation}
		if _, err := instances.UpdateStatus(ctx, ti, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := templates.Get(ctx, "rev-app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored.Parameters = revisionedTemplate("two", "one", "two").Parameters
	if _, err := templates.Update(ctx, stored, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	b := browser.New(t, screenshotDir)
	openLab(b, "rev-app")
	b.Run("previewing revision 2", browser.WaitFor(`!!document.querySelector('#preview-revision-2')`),
		chromedp.Click(`#preview-revision-2`), browser.WaitFor(`!!document.querySelector('#revision-preview-summary')`))
	if got := b.Text("#revisions"); !strings.Contains(got, "2 (current)") || !strings.Contains(got, "stencil-admin") {
		t.Errorf("the revisions table says %q", got)
	}
	if got := b.Text("#revision-preview-summary"); got != "Revision 2 across 3 instances: 1 breaks its parameters, 1 changed, 1 unchanged." {
		t.Errorf("the preview's summary says %q", got)
	}
	var results string
	b.Eval(`[...document.querySelectorAll('#revision-preview li[data-instance]')].map(li => li.dataset.instance + '=' + li.dataset.result).join(' ')`, &results)
	if results != "a-default=Changed b-explicit=Unchanged c-three=BreaksParameters" {
		t.Errorf("the instances: %s", results)
	}
	text := b.Text("#revision-preview")
	for _, want := range []string{`~ .data.k: "one" → "two"`, `~ .data.url: (masked) → (masked)`, "Secret values are masked.", `parameter VALUE must be one of`} {
		if !strings.Contains(text, want) {
			t.Errorf("the preview does not say %q:\n%s", want, text)
		}
	}
	b.Screenshot("21-revision-preview")
}
