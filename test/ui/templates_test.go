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

package ui

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func ptr[T any](v T) *T { return &v }

// typedTemplate declares one parameter of each input kind the form offers, in a catalog
// namespace, with Stencil's own annotations.
func typedTemplate() *templatesv1.Template {
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "web-cache", Namespace: "shared", Annotations: map[string]string{
			"templates.stencil.dev/display-name":          "Web cache",
			"templates.stencil.dev/description":           "A caching proxy in front of a web application.",
			"templates.stencil.dev/tags":                  "cache,web",
			"templates.stencil.dev/icon":                  "redis",
			"templates.stencil.dev/provider-display-name": "Stencil examples",
		}},
		Message: "Cache ${NAME} with ${REPLICAS} replicas.",
		Parameters: []templatesv1.Parameter{
			{Name: "NAME", DisplayName: "Name", Description: "The name of every object.", Value: "cache", Required: true,
				Pattern: "^[a-z][a-z0-9-]*$", MaxLength: ptr(templatesv1.NewLength(30))},
			{Name: "REPLICAS", DisplayName: "Replicas", Description: "How many copies run.", Type: templatesv1.ParameterTypeInt,
				Value: "2", Minimum: ptr(templatesv1.NumberBound("1")), Maximum: ptr(templatesv1.NumberBound("5"))},
			{Name: "TIER", DisplayName: "Tier", Description: "The size of each copy.", Value: "small", Enum: []string{"small", "medium", "large"}},
			{Name: "DEBUG", DisplayName: "Debug logging", Description: "Log every request.", Type: templatesv1.ParameterTypeBool, Value: "false"},
			{Name: "API_KEY", DisplayName: "API key", Description: "The key of the upstream API.", Secret: true,
				Generate: "expression", From: "[a-f0-9]{24}"},
			{Name: "CONFIG", DisplayName: "Extra configuration", Description: "Lines appended to the cache's configuration.", Multiline: true},
		},
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"tier":"${TIER}","debug":"${DEBUG}","config":"${CONFIG}"}}`)},
			{Raw: []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${NAME}"},"stringData":{"key":"${API_KEY}"}}`)},
			{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${NAME}"},"spec":{"replicas":"${{REPLICAS}}"}}`)},
		},
	}
}

// hiddenTemplate is tagged hidden: stored, processable, and left out of the catalog.
func hiddenTemplate() *templatesv1.Template {
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "internal-base", Namespace: namespace, Annotations: map[string]string{
			"openshift.io/display-name": "Internal base", "tags": "base,hidden",
		}},
		Objects: []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"base"}}`)}},
	}
}
