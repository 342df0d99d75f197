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
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestTemplateInstanceLocal stores an instance on a server without a cluster: the server sets
// the requester whatever the client sent, the status says nothing is created, spec changes
// count in the generation, the status subresource changes only status, and kubectl get prints
// the instance's columns.
func TestTemplateInstanceLocal(t *testing.T) {
	ctx := context.Background()
	cs := shared.client(t)
	instances := cs.TemplatesV1alpha1().TemplateInstances("instances")
	created, err := instances.Create(ctx, &templatesv1.TemplateInstance{
		ObjectMeta: metav1.ObjectMeta{Name: "shop"},
		Spec: templatesv1.TemplateInstanceSpec{
			TemplateRef: &templatesv1.TemplateReference{Name: "redis"},
			Parameters:  map[string]string{"NAME": "shop"},
			Requester:   &templatesv1.TemplateInstanceRequester{Username: "someone-else", Groups: []string{"system:masters"}},
		},
		Status: templatesv1.TemplateInstanceStatus{ObservedGeneration: 7},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := created.Spec.Requester; r == nil || r.Username == "someone-else" || r.Username == "" {
		t.Fatalf("requester not set from the authenticated user: %+v", r)
	}
	ready := meta.FindStatusCondition(created.Status.Conditions, templatesv1.TemplateInstanceReady)
	if ready == nil || ready.Reason != "NoCluster" || created.Status.ObservedGeneration != 1 {
		t.Fatalf("status: %+v", created.Status)
	}

	// A label is not a spec change: the generation stays; a parameter is one.
	created.Labels = map[string]string{"team": "a"}
	updated, err := instances.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil || updated.Generation != 1 {
		t.Fatalf("label update: generation %d, %v", updated.Generation, err)
	}
	updated.Spec.Parameters["NAME"] = "shop2"
	updated.Spec.Requester = &templatesv1.TemplateInstanceRequester{Username: "forged"}
	updated, err = instances.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil || updated.Generation != 2 || updated.Spec.Requester.Username != created.Spec.Requester.Username {
		t.Fatalf("spec update: generation %d requester %+v, %v", updated.Generation, updated.Spec.Requester, err)
	}

	// The status subresource writes status only.
	updated.Status.TemplateResourceVersion = "42"
	updated.Spec.Parameters["NAME"] = "ignored"
	status, err := instances.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil || status.Status.TemplateResourceVersion != "42" || status.Spec.Parameters["NAME"] != "shop2" {
		t.Fatalf("status update: %+v %v", status, err)
	}

	body, err := cs.TemplatesV1alpha1().RESTClient().Get().
		AbsPath("/apis/templates.stencil.dev/v1alpha1/namespaces/instances/templateinstances").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	// Revision and Policy are -o wide's (priority 1).
	if got := strings.Join(names, " "); got != "Name Template Ready Objects Age Revision Policy" {
		t.Fatalf("columns: %s", got)
	}
	if cells := table.Rows[0].Cells; cells[0] != "shop" || cells[1] != "redis" || cells[2] != "NoCluster" || cells[3] != "0/0" ||
		cells[5] != "-" || cells[6] != "Automatic" {
		t.Fatalf("cells: %#v", cells)
	}
}

// TestTemplateInstanceInvalid gets every problem of an instance in one 422 with field paths.
func TestTemplateInstanceInvalid(t *testing.T) {
	cs := shared.client(t)
	_, err := cs.TemplatesV1alpha1().TemplateInstances("instances").Create(context.Background(), &templatesv1.TemplateInstance{
		ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Spec: templatesv1.TemplateInstanceSpec{
			TemplateRef:    &templatesv1.TemplateReference{Name: "Not_A_Name"},
			Template:       &runtime.RawExtension{Raw: []byte(`{"kind":"Template","objects":[1]}`)},
			ParametersFrom: []templatesv1.ParametersSource{{}},
			Labels:         map[string]string{"bad key!": "v"},
			Properties:     map[string]string{"not an identifier": "v"},
		},
	}, metav1.CreateOptions{})
	status, ok := err.(*apierrors.StatusError)
	if !ok || status.ErrStatus.Code != 422 {
		t.Fatalf("want a 422, got %v", err)
	}
	var fields []string
	for _, c := range status.ErrStatus.Details.Causes {
		fields = append(fields, c.Field)
	}
	for _, want := range []string{"spec.labels", "spec.parametersFrom[0].secretRef", "spec.properties", "spec.template", "spec.templateRef.name"} {
		if !strings.Contains(strings.Join(fields, " "), want) {
			t.Errorf("no problem at %s in %v", want, status.ErrStatus.Details.Causes)
		}
	}
}

// TestInstantiateLocal runs stencil instantiate against a server without a cluster: the
// instance is created with the values given, and --wait says at once why it never gets ready.
func TestInstantiateLocal(t *testing.T) {
	out, errOut, err := stencil(t, "instantiate", "redis", "--name", "cache", "-p", "NAME=cache", "-l", "team=a")
	if err != nil || !strings.Contains(out, "templateinstance.templates.stencil.dev/cache created") {
		t.Fatalf("instantiate: %v %s %s", err, out, errOut)
	}
	ti, err := shared.client(t).TemplatesV1alpha1().TemplateInstances("cli").Get(context.Background(), "cache", metav1.GetOptions{})
	if err != nil || ti.Spec.TemplateRef.Name != "redis" || ti.Spec.Parameters["NAME"] != "cache" || ti.Spec.Labels["team"] != "a" {
		t.Fatalf("instance: %+v %v", ti, err)
	}
	_, errOut, err = stencil(t, "instantiate", "redis", "--name", "waiting", "--wait", "--timeout", "20s")
	if err == nil || !strings.Contains(errOut, "without a cluster") {
		t.Fatalf("--wait in local mode: %v %s", err, errOut)
	}
	if _, errOut, err = stencil(t, "instantiate", "redis", "-p", "novalue"); err == nil || !strings.Contains(errOut, "KEY=VALUE") {
		t.Fatalf("a malformed -p: %v %s", err, errOut)
	}
}
