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

package v1alpha1

// Delivery says how an instance's objects reach the cluster.
type Delivery struct {
	// type is Apply (the default): the controller applies the objects as the requester; or
	// ExternalArtifact: the controller publishes the render as a Flux ExternalArtifact of the
	// instance's name and namespace, which a Flux Kustomization applies. It cannot change
	// once the instance exists.
	// +optional
	Type DeliveryType `json:"type,omitempty"`
	// externalArtifact configures the ExternalArtifact delivery; only with type
	// ExternalArtifact.
	// +optional
	ExternalArtifact *ExternalArtifactDelivery `json:"externalArtifact,omitempty"`
}

// DeliveryType is how an instance's objects reach the cluster.
type DeliveryType string

const (
	// DeliveryApply applies the objects as the requester.
	DeliveryApply DeliveryType = "Apply"
	// DeliveryExternalArtifact publishes the render as a Flux ExternalArtifact.
	DeliveryExternalArtifact DeliveryType = "ExternalArtifact"
)

// ExternalArtifactDelivery configures the publishing of an instance's render.
type ExternalArtifactDelivery struct {
	// secrets says what becomes of the Secrets a render holds. Refuse (the default): a render
	// with a Secret is not published, as whoever may read the ExternalArtifact could fetch its
	// values from the artifact server. Apply: the controller applies the Secrets itself, as the
	// requester, as it applies the objects of an Apply instance, and publishes everything else;
	// no Secret value ever reaches the artifact server.
	// +optional
	Secrets SecretsDelivery `json:"secrets,omitempty"`
}

// SecretsDelivery is what becomes of the Secrets of a published render.
type SecretsDelivery string

const (
	// SecretsRefuse publishes no render that holds a Secret.
	SecretsRefuse SecretsDelivery = "Refuse"
	// SecretsApply applies a render's Secrets as the requester and publishes the rest.
	SecretsApply SecretsDelivery = "Apply"
)

// Published tells an instance whose render is published rather than applied.
func (s *TemplateInstanceSpec) Published() bool {
	return s.Delivery != nil && s.Delivery.Type == DeliveryExternalArtifact
}

// PublishesSecrets tells a published instance whose Secrets the controller applies.
func (s *TemplateInstanceSpec) PublishesSecrets() bool {
	return s.Published() && s.Delivery.ExternalArtifact != nil && s.Delivery.ExternalArtifact.Secrets == SecretsApply
}

// PublishedArtifact is the artifact a published instance's ExternalArtifact names.
type PublishedArtifact struct {
	// externalArtifact names the ExternalArtifact (in the instance's namespace).
	ExternalArtifact string `json:"externalArtifact"`
	// revision is the artifact's revision: the Template's revision ("r3") or, for an inline
	// template, the instance's generation ("g5") that first rendered it, "@", and its digest.
	Revision string `json:"revision"`
	// digest is "sha256:" and the hex SHA-256 of the artifact's tarball.
	Digest string `json:"digest"`
	// size is the tarball's size in bytes.
	// +optional
	Size int64 `json:"size,omitempty"`
	// objects is how many objects the artifact holds.
	// +optional
	Objects int32 `json:"objects,omitempty"`
}

// The condition of published instances.
const (
	// TemplateInstanceApplied is True when every Flux Kustomization of the instance's namespace
	// that applies its ExternalArtifact reports the published revision applied; its reason and
	// message name the Kustomizations and what they report otherwise.
	TemplateInstanceApplied = "Applied"
)
