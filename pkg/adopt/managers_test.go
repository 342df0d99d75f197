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

package adopt

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func entry(manager string, op metav1.ManagedFieldsOperationType, apiVersion, subresource, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: apiVersion, Subresource: subresource,
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

const stencilManager = "stencil.dev/templateinstance"

// A Deployment as Helm's client-side install and the Deployment controller leave it.
var deploymentEntries = []metav1.ManagedFieldsEntry{
	entry("helm", metav1.ManagedFieldsOperationUpdate, "apps/v1", "",
		`{"f:metadata":{"f:annotations":{".":{},"f:meta.helm.sh/release-name":{}},"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/managed-by":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:env":{}}}}}}}`),
	entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "apps/v1", "",
		`{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}}}`),
	entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "apps/v1", "status", `{"f:status":{"f:replicas":{}}}`),
}

func TestTakeOver(t *testing.T) {
	now := metav1.NewTime(time.Unix(1700000000, 0))
	out, moved, err := TakeOver(deploymentEntries, HelmManagers, stencilManager, "apps/v1", now)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(moved, ",") != "helm" || len(out) != 3 {
		t.Fatalf("moved %v, entries %d", moved, len(out))
	}
	if names := ManagerNames(out); strings.Join(names, ",") != "kube-controller-manager,"+stencilManager {
		t.Errorf("managers %v", names)
	}
	var ours metav1.ManagedFieldsEntry
	for _, e := range out {
		if e.Manager == stencilManager {
			ours = e
		}
	}
	if ours.Operation != metav1.ManagedFieldsOperationApply || !strings.Contains(string(ours.FieldsV1.Raw), `f:meta.helm.sh/release-name`) || strings.Contains(string(ours.FieldsV1.Raw), "revision") {
		t.Errorf("Stencil's entry %+v: %s", ours, ours.FieldsV1.Raw)
	}
	// Once moved, nothing moves: running again changes nothing.
	if again, moved, err := TakeOver(out, HelmManagers, stencilManager, "apps/v1", now); err != nil || again != nil || moved != nil {
		t.Errorf("again: %v %v %v", again, moved, err)
	}
	// A server-side apply by Helm (an Apply entry) moves the same way, into Stencil's entry.
	ssa := []metav1.ManagedFieldsEntry{entry("helm", metav1.ManagedFieldsOperationApply, "apps/v1", "", `{"f:spec":{"f:replicas":{}}}`),
		entry(stencilManager, metav1.ManagedFieldsOperationApply, "apps/v1", "", `{"f:spec":{"f:paused":{}}}`)}
	out, moved, err = TakeOver(ssa, HelmManagers, stencilManager, "apps/v1", now)
	if err != nil || len(out) != 1 || strings.Join(moved, ",") != "helm" || string(out[0].FieldsV1.Raw) != `{"f:spec":{"f:paused":{},"f:replicas":{}}}` {
		t.Errorf("ssa: %v %v %s", moved, err, out[0].FieldsV1.Raw)
	}
	_, _, err = TakeOver([]metav1.ManagedFieldsEntry{entry("kubectl-client-side-apply", metav1.ManagedFieldsOperationUpdate, "apps/v1beta2", "", `{}`)},
		KubectlManagers, stencilManager, "apps/v1", now)
	if err == nil || !strings.Contains(err.Error(), `the fields of manager "kubectl-client-side-apply" are recorded at apps/v1beta2, not apps/v1`) {
		t.Errorf("other version: %v", err)
	}
}

func TestRemoved(t *testing.T) {
	// The render sets the image and the app label, not replicas, env or Helm's metadata.
	applied := []metav1.ManagedFieldsEntry{entry(stencilManager, metav1.ManagedFieldsOperationApply, "apps/v1", "",
		`{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`)}
	removed, err := Removed(deploymentEntries, HelmManagers, applied, stencilManager)
	if err != nil {
		t.Fatal(err)
	}
	want := `metadata.annotations.meta.helm.sh/release-name,metadata.labels.app.kubernetes.io/managed-by,spec.replicas,spec.template.spec.containers[name="web"].env`
	var got []string
	for _, p := range removed {
		got = append(got, PathString(p))
	}
	if got := strings.Join(got, ","); got != want {
		t.Errorf("removed\n got %s\nwant %s", got, want)
	}
}
