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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact/server"
)

// ReadAs reads an object of the target cluster as a requester.
type ReadAs func(ctx context.Context, requester *templatesv1.TemplateInstanceRequester, namespace, name string) (*unstructured.Unstructured, error)

// GetInstance reads a TemplateInstance; a missing one is a NotFound error.
type GetInstance func(ctx context.Context, namespace, name string) (*templatesv1.TemplateInstance, error)

// Store finds an instance's artifact for the artifact server: the one its status names, in its
// ConfigMap, read as its requester. Anything else (no such instance, one that publishes
// nothing, a ConfigMap that holds another digest, or one the requester may not read) is no
// artifact.
type Store struct {
	// Instance reads the TemplateInstances from this server's storage.
	Instance GetInstance
	// ConfigMaps reads a ConfigMap as a requester.
	ConfigMaps ReadAs
}

var _ server.Store = (*Store)(nil)

// Artifact implements server.Store.
func (s *Store) Artifact(ctx context.Context, namespace, name string) (*server.Stored, error) {
	ti, err := s.Instance(ctx, namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	published := ti.Status.Artifact
	if d := ti.Spec.Delivery; d == nil || d.Type != templatesv1.DeliveryExternalArtifact || published == nil || ti.Spec.Requester == nil {
		return nil, nil
	}
	cm, err := s.ConfigMaps(ctx, ti.Spec.Requester, namespace, StorageName(name))
	if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	stored := storedIn(cm)
	if stored == nil || stored.Digest != published.Digest {
		return nil, nil
	}
	return stored, nil
}

// storedIn reads the artifact a ConfigMap holds; nil when it holds none.
func storedIn(cm *unstructured.Unstructured) *server.Stored {
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	encoded, _, _ := unstructured.NestedString(cm.Object, "binaryData", ArchiveKey)
	archive, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || len(archive) == 0 || data[DigestKey] == "" || data[TokenKey] == "" {
		return nil
	}
	return &server.Stored{Digest: data[DigestKey], Token: data[TokenKey], Archive: archive}
}
