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
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func TestCustomTransformValidation(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().CustomTransforms()
	bad := &templatesv1.CustomTransform{
		ObjectMeta: metav1.ObjectMeta{Name: "bad-paths"},
		Spec: templatesv1.CustomTransformSpec{
			Resource: "services", Kind: "Service",
			Remove: []string{"$.spec.ok", "$", "$.spec[\"unterminated", "spec.noDollar"},
		},
	}
	_, err := client.Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want 422, got %v", err)
	}
	causes := strings.Join(causesOf(err), ",")
	want := "spec.kind: FieldValueForbidden,spec.remove[1]: FieldValueInvalid,spec.remove[2]: FieldValueInvalid,spec.remove[3]: FieldValueInvalid"
	if causes != want {
		t.Fatalf("causes:\n got  %s\n want %s", causes, want)
	}
	if !strings.Contains(err.Error(), "byte") {
		t.Fatalf("parse errors should give the byte offset: %v", err)
	}

	good := &templatesv1.CustomTransform{
		ObjectMeta: metav1.ObjectMeta{Name: "accepted"},
		Spec:       templatesv1.CustomTransformSpec{APIGroup: "example.com", Kind: "Widget", Remove: []string{"$.spec.secret"}},
	}
	created, err := client.Create(ctx, good, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Status.Conditions) != 1 || created.Status.Conditions[0].Status != metav1.ConditionTrue || created.Generation != 1 {
		t.Fatalf("status: %+v generation %d", created.Status, created.Generation)
	}
	if err := client.Delete(ctx, "accepted", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestDestinations is issue 7's check: a Service, a Job and a ConfigMap annotated for
// expansion, with CleanupTransformer and a CustomTransform in place, processed for two
// destinations in one call.
func TestDestinations(t *testing.T) {
	ctx := context.Background()
	cs := shared.client(t)
	ct := &templatesv1.CustomTransform{
		ObjectMeta: metav1.ObjectMeta{Name: "strip-service-secrets"},
		Spec:       templatesv1.CustomTransformSpec{Resource: "services", Remove: []string{"$.metadata.annotations[\"internal\"]", "$.spec.ports[*].appProtocol"}},
	}
	if _, err := cs.TemplatesV1alpha1().CustomTransforms().Create(ctx, ct, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer cs.TemplatesV1alpha1().CustomTransforms().Delete(ctx, ct.Name, metav1.DeleteOptions{})

	tpl := &templatesv1.Template{
		ObjectMeta:   metav1.ObjectMeta{Name: "multi"},
		Parameters:   []templatesv1.Parameter{{Name: "GREETING", Value: "hello"}},
		Transformers: rawObjects(`{"apiVersion":"builtin","kind":"CleanupTransformer"}`),
		Objects: rawObjects(
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","uid":"u1","resourceVersion":"9","annotations":{"internal":"x","keep":"y"}},"spec":{"clusterIP":"10.0.0.1","clusterIPs":["10.0.0.1"],"ports":[{"port":80,"nodePort":30080,"appProtocol":"http"}]},"status":{"loadBalancer":{}}}`,
			`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"once","labels":{"controller-uid":"c","batch.kubernetes.io/controller-uid":"c","keep":"y"}},"spec":{"suspend":false,"selector":{"matchLabels":{"controller-uid":"c"}},"template":{"metadata":{"labels":{"controller-uid":"c"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"greeting","annotations":{"control.kubestellar.io/expand-templates":"true"}},"data":{"text":"${GREETING} from {{.clusterName}} in {{.region}}"}}`,
		),
	}
	templatesClient := cs.TemplatesV1alpha1().Templates("destinations")
	if _, err := templatesClient.Create(ctx, tpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	params := &templatesv1.TemplateParameters{
		Properties: map[string]string{"region": "eu"},
		Destinations: []templatesv1.Destination{
			{Name: "virgo"},
			{Name: "leo", Properties: map[string]string{"region": "us"}},
		},
	}
	list, err := templatesClient.Process(ctx, "multi", params, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 6 {
		t.Fatalf("want 3 objects for each of 2 destinations, got %d", len(list.Items))
	}
	objs := decodeItems(t, list.Items)
	want := []string{
		`{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{"keep":"y","templates.stencil.dev/destination":"virgo"},"name":"web"},"spec":{"ports":[{"port":80}]}}`,
		`{"apiVersion":"batch/v1","kind":"Job","metadata":{"annotations":{"templates.stencil.dev/destination":"virgo"},"labels":{"keep":"y"},"name":"once"},"spec":{"template":{"metadata":{},"spec":{"containers":[{"image":"busybox","name":"c"}],"restartPolicy":"Never"}}}}`,
		`{"apiVersion":"v1","data":{"text":"hello from virgo in eu"},"kind":"ConfigMap","metadata":{"annotations":{"control.kubestellar.io/expand-templates":"true","templates.stencil.dev/destination":"virgo"},"name":"greeting"}}`,
	}
	for i, w := range want {
		if got := mustJSON(t, objs[i]); got != w {
			t.Errorf("object %d:\n got  %s\n want %s", i, got, w)
		}
	}
	if text := dig(objs[5].(map[string]any), "data", "text"); text != "hello from leo in us" {
		t.Errorf("second destination: %v", text)
	}

	// A property the template needs but no one gives fails the request, naming the place.
	params.Properties = nil
	_, err = templatesClient.Process(ctx, "multi", params, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "destinations[0].objects[2].data.text") {
		t.Fatalf("want 422 naming destinations[0].objects[2].data.text, got %v", err)
	}
	params.Properties = map[string]string{"not-an-identifier": "x"}
	_, err = templatesClient.Process(ctx, "multi", params, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "properties[not-an-identifier]") {
		t.Fatalf("want 422 naming properties[not-an-identifier], got %v", err)
	}
}
