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

package templateinstance

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8stesting "k8s.io/client-go/testing"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// helmRecord is the record of revision 1 of Helm release web in namespace demo, as Helm's
// storage driver writes it (JSON, gzip, base64 in the Secret's data), whose manifest holds the
// ConfigMap the Template app renders.
func helmRecord(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	release, err := json.Marshal(map[string]any{"name": "web", "version": 1, "namespace": "demo",
		"manifest": "---\n# Source: web/templates/config.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config\n",
		"info":     map[string]any{"status": "deployed"}, "chart": map[string]any{"metadata": map[string]any{"name": "web", "version": "1.0.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write(release); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	helmText := base64.StdEncoding.EncodeToString(gz.Bytes())
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
		"metadata": map[string]any{"namespace": "demo", "name": "sh.helm.release.v1.web.v1", "uid": "uid-record", "resourceVersion": "1",
			"labels": map[string]any{"owner": "helm", "name": "web", "version": "1", "status": "deployed"}},
		"data": map[string]any{"release": base64.StdEncoding.EncodeToString([]byte(helmText))}}}
}

// helmOwned is the live ConfigMap of release web, with Helm's ownership metadata.
func helmOwned() *unstructured.Unstructured {
	u := unowned("ConfigMap", "config", "uid-c")
	u.SetLabels(map[string]string{"app.kubernetes.io/managed-by": "Helm"})
	u.SetAnnotations(map[string]string{"meta.helm.sh/release-name": "web", "meta.helm.sh/release-namespace": "demo"})
	return u
}

// writes are the target actions that write (dry runs aside), as "verb resource/name".
func writes(f *fixture) []string {
	var out []string
	for _, a := range f.target.Actions() {
		if p, ok := a.(k8stesting.PatchActionImpl); ok && len(p.PatchOptions.DryRun) > 0 {
			continue
		}
		switch a := a.(type) {
		case k8stesting.PatchActionImpl:
			out = append(out, "patch "+a.GetResource().Resource+"/"+a.GetName())
		case k8stesting.DeleteActionImpl:
			out = append(out, "delete "+a.GetResource().Resource+"/"+a.GetName())
		case k8stesting.CreateActionImpl, k8stesting.UpdateActionImpl:
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

// TestAdoptionFailureFinishedByTheNextPass: a Helm release's adoption whose takeover the
// cluster refuses half-way keeps the release's record (it goes last, only once every object
// is the instance's); the next pass finishes it, and removes the record after the last write
// of an object; a third pass of the adopted instance adopts nothing again.
func TestAdoptionFailureFinishedByTheNextPass(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), adoptingInstance(templatesv1.TemplateInstanceAdoption{HelmRelease: "web"})},
		live: []runtime.Object{helmRecord(t), helmOwned()}}).build()
	refusals := 1
	f.target.PrependReactor("patch", "configmaps", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if p := action.(k8stesting.PatchActionImpl); len(p.PatchOptions.DryRun) > 0 || p.GetPatchType() != types.ApplyPatchType || refusals == 0 {
			return false, nil, nil
		}
		refusals--
		return true, nil, apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "config", field.ErrorList{field.Invalid(field.NewPath("data"), "", "refused by a webhook")})
	})

	if _, err := f.sync("shop"); !errors.Is(err, errRetry) {
		t.Fatalf("first pass: %v; want a failure retried", err)
	}
	ti := f.instance("shop")
	if c := lastCondition(ti, templatesv1.TemplateInstanceFailed); c.Reason != "AdoptionFailed" || !strings.Contains(c.Message, "refused by a webhook") {
		t.Fatalf("first pass: Failed %s %q", c.Reason, c.Message)
	}
	if s := ti.Status.Adoption; s == nil || s.Phase != templatesv1.AdoptionAdopting {
		t.Fatalf("first pass: the adoption is %+v, want Adopting", s)
	}
	if f.liveObject("secrets", "demo", "sh.helm.release.v1.web.v1") == nil {
		t.Fatal("first pass: the release's record was removed although the takeover failed")
	}
	for _, w := range writes(f) {
		if strings.HasPrefix(w, "delete ") {
			t.Errorf("first pass deleted %s", w)
		}
	}

	f.target.ClearActions()
	if _, err := f.sync("shop"); err != nil {
		t.Fatalf("second pass: %v (%s)", err, lastCondition(f.instance("shop"), templatesv1.TemplateInstanceFailed).Message)
	}
	ti = f.instance("shop")
	if s := ti.Status.Adoption; s == nil || s.Phase != templatesv1.AdoptionAdopted || lastCondition(ti, templatesv1.TemplateInstanceAdopted).Status != metav1.ConditionTrue {
		t.Fatalf("second pass: the adoption is %+v", s)
	}
	if f.liveObject("secrets", "demo", "sh.helm.release.v1.web.v1") != nil {
		t.Error("second pass: the release's record is still there")
	}
	w := writes(f)
	if len(w) == 0 || w[len(w)-1] != "delete secrets/sh.helm.release.v1.web.v1" {
		t.Errorf("second pass: the record is not removed last: %v", w)
	}
	live := f.liveObject("configmaps", "demo", "config")
	if live.GetUID() != "uid-c" || live.GetLabels()[inventory.PartOfLabel] != inventory.ApplySetID("demo", "shop") ||
		live.GetLabels()["app.kubernetes.io/managed-by"] != "" || live.GetAnnotations()["meta.helm.sh/release-name"] != "" {
		t.Errorf("second pass: the ConfigMap is not the instance's alone: %v %v %s", live.GetLabels(), live.GetAnnotations(), live.GetUID())
	}

	f.target.ClearActions()
	if _, err := f.sync("shop"); err != nil {
		t.Fatalf("third pass: %v", err)
	}
	for _, a := range f.targetActions() {
		if strings.HasPrefix(a, "list secrets") {
			t.Errorf("an adopted instance looked for its source again: %v", f.targetActions())
		}
	}
}

// TestAdoptionCutShortAfterTheRecords: a pass that removed the release's records and was cut
// short before it wrote the adoption done (the records are gone, the status says Adopting)
// is finished by the next pass, which does not refuse a source that is gone.
func TestAdoptionCutShortAfterTheRecords(t *testing.T) {
	adopted := member("ConfigMap", "config", "uid-c")
	ti := adoptingInstance(templatesv1.TemplateInstanceAdoption{HelmRelease: "web"})
	ti.Status.Adoption = &templatesv1.AdoptionStatus{Phase: templatesv1.AdoptionAdopting, Source: "Helm release demo/web revision 1 (chart web-1.0.0)"}
	ti.Status.Objects = []templatesv1.TemplateInstanceObject{ref("ConfigMap", "config", "uid-c")}
	reasonCase{
		objects: []runtime.Object{newTemplate("app", configMap), ti},
		live:    []runtime.Object{adopted},
		reasons: []string{"Adopting", "Ready"}, message: "all 1 objects are ready",
		check: func(t *testing.T, f *fixture) {
			s := f.instance("shop").Status.Adoption
			if s == nil || s.Phase != templatesv1.AdoptionAdopted || s.Source != ti.Status.Adoption.Source {
				t.Errorf("adoption %+v", s)
			}
			if live := f.liveObject("configmaps", "demo", "config"); live == nil || live.GetUID() != "uid-c" {
				t.Errorf("the ConfigMap was recreated: %v", live)
			}
		},
	}.run(t)
}
