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

package integration

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// revisionTemplate is Template name of namespace default holding one ConfigMap with value.
func revisionTemplate(name, value string) *templatesv1.Template {
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Parameters: []templatesv1.Parameter{{Name: "NAME", Value: "web"}},
		Objects: []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"v":"` +
			value + `"}}`)}},
	}
}

// revisionNumbers lists the numbers of the revisions of template, in order; by field selector,
// which any name fits (a label value holds 63 characters).
func revisionNumbers(t *testing.T, cs clientset.Interface, template string) []int64 {
	t.Helper()
	list, err := cs.TemplatesV1alpha1().TemplateRevisions("default").List(context.Background(),
		metav1.ListOptions{FieldSelector: "template=" + template})
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, rev := range list.Items {
		out = append(out, rev.Revision)
	}
	slices.Sort(out)
	return out
}

// editTemplate changes the value of the Template's ConfigMap.
func editTemplate(t *testing.T, cs clientset.Interface, name, value string) *templatesv1.Template {
	t.Helper()
	ctx := context.Background()
	tpl, err := cs.TemplatesV1alpha1().Templates("default").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tpl.Objects = revisionTemplate(name, value).Objects
	tpl, err = cs.TemplatesV1alpha1().Templates("default").Update(ctx, tpl, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// TestTemplateRevisions: a Template's stored content changes make revisions 1, 2, ... with the
// content, its hash and the author; a change refused by validation and a change of metadata
// make none; what a revision holds never changes; writes through OpenShift's group make them too; and
// the Template's deletion takes them away.
func TestTemplateRevisions(t *testing.T) {
	s := startTestServer(t, t.TempDir(), "--openshift-templates")
	cs := s.client(t)
	ctx := context.Background()
	templatesClient := cs.TemplatesV1alpha1().Templates("default")
	created, err := templatesClient.Create(ctx, revisionTemplate("web", "one"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := created.Revision; r == nil || r.Number != 1 || !strings.HasPrefix(r.Hash, "sha256:") {
		t.Fatalf("created with revision %+v, want 1", created.Revision)
	}

	// Metadata only: no revision.
	created.Labels = map[string]string{"team": "a"}
	relabelled, err := templatesClient.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || relabelled.Revision.Number != 1 {
		t.Fatalf("relabelled: %v, revision %+v", err, relabelled.Revision)
	}
	// Refused by validation: no revision.
	bad := relabelled.DeepCopy()
	bad.Parameters = append(bad.Parameters, templatesv1.Parameter{Name: "NAME"})
	if _, err := templatesClient.Update(ctx, bad, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("an invalid update: %v, want a 422", err)
	}
	// A dry run: no revision.
	dry := relabelled.DeepCopy()
	dry.Message = "dry"
	if _, err := templatesClient.Update(ctx, dry, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if got := revisionNumbers(t, cs, "web"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("after a change of labels, a refused change and a dry run: revisions %v, want [1]", got)
	}

	edited := editTemplate(t, cs, "web", "two")
	if edited.Revision.Number != 2 || edited.Revision.Hash == created.Revision.Hash {
		t.Fatalf("edited: revision %+v after %+v", edited.Revision, created.Revision)
	}
	rev, err := cs.TemplatesV1alpha1().TemplateRevisions("default").Get(ctx, "web-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rev.Template != "web" || rev.Revision != 2 || rev.Hash != edited.Revision.Hash || rev.Author == nil ||
		rev.Author.Username != "stencil-admin" || !strings.Contains(string(rev.Content.Raw), `"v":"two"`) || rev.Labels[templatesv1.LabelTemplate] != "web" {
		t.Errorf("revision 2: %+v\n%s", rev, rev.Content.Raw)
	}

	// Only the server creates them, and what they hold never changes: a client may change the
	// metadata (the garbage collector removes owner references) and delete one (the garbage
	// collector does, once its Template is gone).
	rc := cs.Discovery().RESTClient()
	const revisions = "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templaterevisions"
	body := []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"TemplateRevision","metadata":{"name":"web-3"},"template":"web","revision":3,"hash":"sha256:0","content":{}}`)
	for _, call := range []struct {
		verb, path, contentType string
		body                    []byte
		want                    int
	}{
		{"POST", revisions, "application/json", body, http.StatusMethodNotAllowed},
		{"DELETE", revisions, "", nil, http.StatusMethodNotAllowed},
		{"PATCH", revisions + "/web-2", "application/merge-patch+json", []byte(`{"content":{"message":"forged"}}`), http.StatusUnprocessableEntity},
		{"PATCH", revisions + "/web-2", "application/merge-patch+json", []byte(`{"author":{"username":"system:admin"}}`), http.StatusUnprocessableEntity},
		{"PATCH", revisions + "/web-2", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"team":"a"}}}`), http.StatusOK},
	} {
		if status, out := rawCall(t, rc, call.verb, call.path, call.contentType, "", call.body); status != call.want {
			t.Errorf("%s %s %s: %d %s, want %d", call.verb, call.path, call.body, status, out, call.want)
		}
	}
	// Listed by field selector too.
	byField, err := cs.TemplatesV1alpha1().TemplateRevisions("default").List(ctx, metav1.ListOptions{FieldSelector: "template=web"})
	if err != nil || len(byField.Items) != 2 {
		t.Errorf("--field-selector template=web: %v, %d revisions", err, len(byField.Items))
	}
	// The table kubectl prints.
	status, table := rawCall(t, rc, "GET", revisions, "", "application/json;as=Table;v=v1;g=meta.k8s.io", nil)
	if status != http.StatusOK || !strings.Contains(string(table), `"name":"Hash"`) || !strings.Contains(string(table), `"stencil-admin"`) {
		t.Errorf("table: %d %s", status, table)
	}

	// Through OpenShift's group.
	status, out := rawCall(t, rc, "PATCH", "/apis/template.openshift.io/v1/namespaces/default/templates/web", "application/merge-patch+json", "",
		[]byte(`{"message":"through OpenShift's group"}`))
	if status != http.StatusOK {
		t.Fatalf("patch through template.openshift.io: %d %s", status, out)
	}
	if got := revisionNumbers(t, cs, "web"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("after a change through template.openshift.io: revisions %v, want [1 2 3]", got)
	}

	if err := templatesClient.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := revisionNumbers(t, cs, "web"); len(got) != 0 {
		t.Errorf("after the Template's deletion: revisions %v", got)
	}
	// A new Template of the same name starts again at 1, with its own content.
	again, err := templatesClient.Create(ctx, revisionTemplate("web", "again"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rev, err = cs.TemplatesV1alpha1().TemplateRevisions("default").Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil || rev.Hash != again.Revision.Hash {
		t.Errorf("revision 1 of the new Template: %v, %+v", err, rev)
	}
	// Deleted with others in one request: their revisions go too.
	if _, err := templatesClient.Create(ctx, revisionTemplate("other", "x"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := templatesClient.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web", "other"} {
		if got := revisionNumbers(t, cs, name); len(got) != 0 {
			t.Errorf("after deleting every Template: revisions of %s %v", name, got)
		}
	}
}

// TestTemplateRevisionSpam (hostile): a writer who edits a Template a hundred times leaves at
// most --template-revision-history revisions, plus those instances pin, never more.
func TestTemplateRevisionSpam(t *testing.T) {
	s := startTestServer(t, t.TempDir(), "--template-revision-history=5")
	cs := s.client(t)
	ctx := context.Background()
	if _, err := cs.TemplatesV1alpha1().Templates("default").Create(ctx, revisionTemplate("spam", "0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		editTemplate(t, cs, "spam", fmt.Sprint(i))
	}
	// An instance pins revision 2, which must outlive the history.
	pinned := &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: "pinned"},
		Spec: templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: "spam", Revision: 2}}}
	if _, err := cs.TemplatesV1alpha1().TemplateInstances("default").Create(ctx, pinned, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 4; i <= 100; i++ {
		editTemplate(t, cs, "spam", fmt.Sprint(i))
	}
	want := []int64{2, 97, 98, 99, 100, 101}
	if got := revisionNumbers(t, cs, "spam"); !slices.Equal(got, want) {
		t.Errorf("after 100 edits: revisions %v, want %v", got, want)
	}
}

// TestTemplateRevisionsOfLongNamesAndFinalizers: a Template named as long as any object may be
// has revisions (before, a name over 63 characters got none: it went into a label), and a
// Template deleted through its finalizers, or deleted with a propagation policy that needs a
// garbage collector local mode does not have, leaves none behind (before, the finalizer's
// path left them all).
func TestTemplateRevisionsOfLongNamesAndFinalizers(t *testing.T) {
	cs := clientFor(t)
	ctx := context.Background()
	templatesClient := cs.TemplatesV1alpha1().Templates("default")
	long := strings.Repeat("long.", 40) + strings.Repeat("n", 50)
	if _, err := templatesClient.Create(ctx, revisionTemplate(long, "one"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	edited := editTemplate(t, cs, long, "two")
	if got := revisionNumbers(t, cs, long); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("a Template named with %d characters: revisions %v, want [1 2]", len(long), got)
	}
	rev, err := cs.TemplatesV1alpha1().TemplateRevisions("default").Get(ctx, templatesv1.RevisionName(long, 2), metav1.GetOptions{})
	if err != nil || rev.Hash != edited.Revision.Hash || metav1.GetControllerOf(rev) == nil || metav1.GetControllerOf(rev).UID != edited.UID {
		t.Fatalf("revision 2 of the long name: %v %+v", err, rev)
	}

	held := revisionTemplate("held", "one")
	held.Finalizers = []string{"example.com/hold"}
	if _, err := templatesClient.Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	editTemplate(t, cs, "held", "two")
	if err := templatesClient.Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := revisionNumbers(t, cs, "held"); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("while a finalizer holds the Template: revisions %v, want [1 2]", got)
	}
	if _, err := templatesClient.Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := templatesClient.Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after its last finalizer: %v", err)
	}
	if got := revisionNumbers(t, cs, "held"); len(got) != 0 {
		t.Errorf("deleted through its finalizer: revisions %v left", got)
	}

	// Local mode has no garbage collector: orphan and foreground are deleted at once, with
	// their revisions, rather than waiting for ever.
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationOrphan, metav1.DeletePropagationForeground} {
		name := "cascade-" + strings.ToLower(string(policy))
		if _, err := templatesClient.Create(ctx, revisionTemplate(name, "one"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := templatesClient.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
			t.Fatal(err)
		}
		if _, err := templatesClient.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("--cascade=%s in local mode: %v, want deleted at once", policy, err)
		}
		if got := revisionNumbers(t, cs, name); len(got) != 0 {
			t.Errorf("--cascade=%s in local mode: revisions %v left", policy, got)
		}
	}
}
