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

package templates

// Delivery says how an instance's objects reach the cluster.
type Delivery struct {
	// Type is Apply (also when empty) or ExternalArtifact; it cannot change.
	Type DeliveryType
	// ExternalArtifact configures the ExternalArtifact delivery.
	ExternalArtifact *ExternalArtifactDelivery
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
	// Secrets is Refuse (also when empty) or Apply.
	Secrets SecretsDelivery
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

// PublishedArtifact is the artifact a published instance's ExternalArtifact names.
type PublishedArtifact struct {
	ExternalArtifact string
	Revision         string
	Digest           string
	Size             int64
	Objects          int32
}
