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
	"context"
	"encoding/base64"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/redact"
)

// The resources an instance's message is made from.
var (
	instancesResource          = templatesv1.SchemeGroupVersion.WithResource("templateinstances")
	templatesResource          = templatesv1.SchemeGroupVersion.WithResource("templates")
	processedTemplatesResource = templatesv1.SchemeGroupVersion.WithResource("processedtemplates")
	secretsResource            = corev1.SchemeGroupVersion.WithResource("secrets")
)

// instanceMessageRequest names an instance.
type instanceMessageRequest struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// GeneratedValue is one generated parameter's value.
type GeneratedValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// instanceMessage is an instance's message with the values it was rendered with, or the
// generated parameters whose values are not stored yet.
type instanceMessage struct {
	Message   string           `json:"message"`
	Generated []GeneratedValue `json:"generated"`
	Pending   []string         `json:"pending"`
	// Secrets are the values of the secret parameters the message was rendered with (given,
	// defaults and generated): the page masks each of them until the user asks to see it.
	Secrets []GeneratedValue `json:"secrets"`
}

// secretValues are the non-empty values of the secret parameters of a processing answer, by
// redact's rule (marked secret, typed base64, generated, named like a credential). The pages'
// form masks the same names (schema.js SECRET_LIKE).
func secretValues(list *unstructured.Unstructured) []GeneratedValue {
	out := []GeneratedValue{}
	params, _, _ := unstructured.NestedSlice(list.Object, "parameters")
	for _, p := range params {
		param, _ := p.(map[string]any)
		name, _ := param["name"].(string)
		value, _ := param["value"].(string)
		flagged, _ := param["secret"].(bool)
		typ, _ := param["type"].(string)
		generate, _ := param["generate"].(string)
		if value != "" && redact.Secret(name, flagged, templates.ParameterType(typ), generate != "", false) {
			out = append(out, GeneratedValue{Name: name, Value: value})
		}
	}
	return out
}

// serveInstanceMessage answers the message of an instance as its controller renders it: the
// spec's values and the generated values of the Secret the instance keeps them in, processed
// again (dry run) as the user. The pages never read that Secret themselves.
func (a *actions) serveInstanceMessage(w http.ResponseWriter, r *http.Request) {
	var req instanceMessageRequest
	if !decodeBody(w, r, &req) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	answer, err := a.instanceMessage(ctx, req.Namespace, req.Name)
	if err != nil {
		code := http.StatusBadGateway
		if status, ok := err.(apierrors.APIStatus); ok {
			code = int(status.Status().Code)
		}
		writeError(w, code, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, answer)
}

func (a *actions) instanceMessage(ctx context.Context, namespace, name string) (*instanceMessage, error) {
	instance, err := a.dynamic.Resource(instancesResource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	values, _, _ := unstructured.NestedStringMap(instance.Object, "spec", "parameters")
	if values == nil {
		values = map[string]string{}
	}
	template, inline, err := a.instanceTemplate(ctx, instance)
	if err != nil {
		return nil, err
	}
	stored, err := a.generatedValues(ctx, instance)
	if err != nil {
		return nil, err
	}
	answer := &instanceMessage{Generated: []GeneratedValue{}, Pending: []string{}, Secrets: []GeneratedValue{}}
	params, _, _ := unstructured.NestedSlice(template.Object, "parameters")
	for _, p := range params {
		param, _ := p.(map[string]any)
		pname, _ := param["name"].(string)
		if generate, _ := param["generate"].(string); generate == "" || values[pname] != "" {
			continue
		}
		value, ok := stored[pname]
		if !ok {
			answer.Pending = append(answer.Pending, pname)
			continue
		}
		values[pname] = value
		answer.Generated = append(answer.Generated, GeneratedValue{Name: pname, Value: value})
	}
	if len(answer.Pending) > 0 {
		// Processing now would generate other values than the instance's: no message yet.
		return answer, nil
	}
	labels, _, _ := unstructured.NestedStringMap(instance.Object, "spec", "labels")
	list, err := a.process(ctx, namespace, template, inline, values, labels)
	if err != nil {
		return nil, err
	}
	answer.Message, _, _ = unstructured.NestedString(list.Object, "message")
	answer.Secrets = secretValues(list)
	return answer, nil
}

// instanceTemplate is the instance's template: the stored one it references, or its own.
func (a *actions) instanceTemplate(ctx context.Context, instance *unstructured.Unstructured) (*unstructured.Unstructured, bool, error) {
	if ref, found, _ := unstructured.NestedString(instance.Object, "spec", "templateRef", "name"); found && ref != "" {
		t, err := a.dynamic.Resource(templatesResource).Namespace(instance.GetNamespace()).Get(ctx, ref, metav1.GetOptions{})
		return t, false, err
	}
	inline, _, _ := unstructured.NestedMap(instance.Object, "spec", "template")
	return &unstructured.Unstructured{Object: inline}, true, nil
}

// generatedValues reads the Secret in which the controller keeps the instance's generated
// values; none are known while it names none.
func (a *actions) generatedValues(ctx context.Context, instance *unstructured.Unstructured) (map[string]string, error) {
	name, _, _ := unstructured.NestedString(instance.Object, "status", "generatedParametersSecret")
	out := map[string]string{}
	if name == "" {
		return out, nil
	}
	secret, err := a.dynamic.Resource(secretsResource).Namespace(instance.GetNamespace()).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	data, _, _ := unstructured.NestedStringMap(secret.Object, "data")
	for k, v := range data {
		if decoded, err := base64.StdEncoding.DecodeString(v); err == nil {
			out[k] = string(decoded)
		}
	}
	return out, nil
}

// process renders the template with values as a dry run: templates/{name}/processed for a
// stored template, processedtemplates with the values written in for an inline one.
func (a *actions) process(ctx context.Context, namespace string, template *unstructured.Unstructured, inline bool, values, labels map[string]string) (*unstructured.Unstructured, error) {
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	if !inline {
		// The name is the template's: the client puts it in the subresource's path.
		body := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": templatesv1.SchemeGroupVersion.String(), "kind": "TemplateParameters",
			"metadata":   map[string]any{"name": template.GetName()},
			"parameters": toAny(values), "labels": toAny(labels),
		}}
		return a.dynamic.Resource(templatesResource).Namespace(namespace).Create(ctx, body, dryRun, "processed")
	}
	filled := template.DeepCopy()
	params, _, _ := unstructured.NestedSlice(filled.Object, "parameters")
	for _, p := range params {
		if param, ok := p.(map[string]any); ok {
			if v, given := values[param["name"].(string)]; given && v != "" {
				param["value"] = v
			}
		}
	}
	_ = unstructured.SetNestedSlice(filled.Object, params, "parameters")
	if len(labels) > 0 {
		existing, _, _ := unstructured.NestedStringMap(filled.Object, "objectLabels")
		if existing == nil {
			existing = map[string]string{}
		}
		for k, v := range labels {
			existing[k] = v
		}
		_ = unstructured.SetNestedStringMap(filled.Object, existing, "objectLabels")
	}
	return a.dynamic.Resource(processedTemplatesResource).Namespace(namespace).Create(ctx, filled, dryRun)
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
