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

package template

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process/jsonschema"
)

// SchemaMIMEType is the content type of the schema's answer. JSON Schema's own type,
// application/schema+json, is not one a Kubernetes client asks for; every client accepts
// application/json.
const SchemaMIMEType = "application/json"

// SchemaREST serves templates/{name}/schema: GET gives the stored template's parameters as a
// JSON Schema document, as it is, the way pods/log gives a log: the document is no Kubernetes
// object (no apiVersion or kind), so that form builders and validators read it unchanged.
type SchemaREST struct {
	templates rest.Getter
}

var _ interface {
	rest.Getter
	rest.Storage
	rest.StorageMetadata
} = &SchemaREST{}

// NewSchemaREST returns the subresource; templates reads the stored template, which needs no
// authorization of its own: get on templates/schema is the permission to read the schema.
func NewSchemaREST(templates rest.Getter) *SchemaREST {
	return &SchemaREST{templates: templates}
}

// New returns the parent's kind, which the API machinery registers the subresource under.
func (*SchemaREST) New() runtime.Object { return &templates.Template{} }

// Destroy releases nothing; the parent storage owns the store.
func (*SchemaREST) Destroy() {}

// ProducesMIMETypes adds nothing to the group's media types, which begin with SchemaMIMEType:
// the endpoint installer appends them to what this returns, and a type listed twice makes
// /openapi/v2 invalid Swagger 2.0 (its produces must hold unique items).
func (*SchemaREST) ProducesMIMETypes(string) []string { return nil }

// ProducesObject declares the answer to OpenAPI as a JSON object of any shape.
func (*SchemaREST) ProducesObject(string) interface{} { return runtime.RawExtension{} }

// Get returns the schema of the stored template name.
func (r *SchemaREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	stored, err := r.templates.Get(ctx, name, options)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(jsonschema.ForTemplate(stored.(*templates.Template)))
	if err != nil {
		return nil, err
	}
	return &schemaDocument{doc: doc}, nil
}

// schemaDocument is the answer: the handler streams its bytes instead of encoding it.
type schemaDocument struct {
	doc []byte
}

var _ rest.ResourceStreamer = &schemaDocument{}

// GetObjectKind has no kind to give: the document is not a Kubernetes object.
func (*schemaDocument) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject copies the document.
func (d *schemaDocument) DeepCopyObject() runtime.Object {
	return &schemaDocument{doc: bytes.Clone(d.doc)}
}

// InputStream gives the document's bytes, whatever the request accepted: negotiation has
// already refused a client that accepts no JSON.
func (d *schemaDocument) InputStream(context.Context, string, string) (io.ReadCloser, bool, string, error) {
	return io.NopCloser(bytes.NewReader(d.doc)), false, SchemaMIMEType, nil
}
