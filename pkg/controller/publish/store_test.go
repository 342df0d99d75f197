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

package publish

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
)

func publishedInstance(digest string) *templatesv1.TemplateInstance {
	return &templatesv1.TemplateInstance{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo"},
		Spec: templatesv1.TemplateInstanceSpec{
			Delivery:  &templatesv1.Delivery{Type: templatesv1.DeliveryExternalArtifact},
			Requester: &templatesv1.TemplateInstanceRequester{Username: "alice"},
		},
		Status: templatesv1.TemplateInstanceStatus{Artifact: &templatesv1.PublishedArtifact{ExternalArtifact: "web", Digest: digest, Revision: "g1@" + digest}},
	}
}

func storageConfigMap(archive []byte, digest, token string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "web-artifact", "namespace": "demo"},
		"data":       map[string]any{DigestKey: digest, TokenKey: token},
		"binaryData": map[string]any{ArchiveKey: base64.StdEncoding.EncodeToString(archive)},
	}}
}

func TestStore(t *testing.T) {
	archive := []byte("an archive")
	digest := artifact.Digest(archive)
	token, err := artifact.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	notFound := apierrors.NewNotFound(templatesv1.Resource("templateinstances"), "web")
	forbidden := apierrors.NewForbidden(ConfigMaps.GroupResource(), "web-artifact", errors.New("no"))
	for _, tc := range []struct {
		name     string
		instance *templatesv1.TemplateInstance
		getErr   error
		cm       *unstructured.Unstructured
		cmErr    error
		want     bool
		wantErr  bool
	}{
		{"published", publishedInstance(digest), nil, storageConfigMap(archive, digest, token), nil, true, false},
		{"no instance", nil, notFound, nil, nil, false, false},
		{"the instance store fails", nil, errors.New("etcd"), nil, nil, false, true},
		{"applied, not published", func() *templatesv1.TemplateInstance {
			ti := publishedInstance(digest)
			ti.Spec.Delivery = nil
			return ti
		}(),
			nil, storageConfigMap(archive, digest, token), nil, false, false},
		{"nothing published yet", func() *templatesv1.TemplateInstance {
			ti := publishedInstance(digest)
			ti.Status.Artifact = nil
			return ti
		}(),
			nil, storageConfigMap(archive, digest, token), nil, false, false},
		{"the ConfigMap holds another artifact", publishedInstance("sha256:" + "00"), nil, storageConfigMap(archive, digest, token), nil, false, false},
		{"no ConfigMap", publishedInstance(digest), nil, nil, apierrors.NewNotFound(ConfigMaps.GroupResource(), "web-artifact"), false, false},
		{"the requester may not read it", publishedInstance(digest), nil, nil, forbidden, false, false},
		{"the cluster fails", publishedInstance(digest), nil, nil, errors.New("connection refused"), false, true},
		{"no token", publishedInstance(digest), nil, storageConfigMap(archive, digest, ""), nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var readAs string
			s := &Store{
				Instance: func(context.Context, string, string) (*templatesv1.TemplateInstance, error) {
					return tc.instance, tc.getErr
				},
				ConfigMaps: func(_ context.Context, r *templatesv1.TemplateInstanceRequester, ns, name string) (*unstructured.Unstructured, error) {
					readAs = r.Username
					if ns != "demo" || name != "web-artifact" {
						t.Errorf("read %s/%s", ns, name)
					}
					return tc.cm, tc.cmErr
				},
			}
			got, err := s.Artifact(context.Background(), "demo", "web")
			if (err != nil) != tc.wantErr || (got != nil) != tc.want {
				t.Fatalf("Artifact: %+v, %v", got, err)
			}
			if got != nil && (string(got.Archive) != string(archive) || got.Digest != digest || got.Token != token || readAs != "alice") {
				t.Errorf("Artifact: %+v, read as %q", got, readAs)
			}
		})
	}
}
