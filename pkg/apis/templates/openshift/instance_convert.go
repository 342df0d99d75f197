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

package openshift

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// instanceFields is the value of StencilFieldsAnnotation on a TemplateInstance: what our
// TemplateInstance has and OpenShift's cannot hold, in v1alpha1's spelling. Where OpenShift's
// shape holds a lossy form of a field (the inline template, the conditions, the objects), the
// exact value is kept only when the lossy form does not give it back, and it is used again only
// while the lossy form still says what it said: a client that changes spec.template through
// template.openshift.io changes the template.
// +k8s:openapi-gen=false
type instanceFields struct {
	TemplateRef *v1alpha1.TemplateReference `json:"templateRef,omitempty"`
	// Template is the inline template's exact text.
	Template   *string           `json:"template,omitempty"`
	Parameters map[string]string `json:"parameters,omitempty"`
	// ParametersFrom are the sources before the one spec.secret names; all of them when the
	// last source names no Secret.
	ParametersFrom []v1alpha1.ParametersSource        `json:"parametersFrom,omitempty"`
	Labels         map[string]string                  `json:"labels,omitempty"`
	Properties     map[string]string                  `json:"properties,omitempty"`
	UpdatePolicy   v1alpha1.UpdatePolicy              `json:"updatePolicy,omitempty"`
	Delivery       *v1alpha1.Delivery                 `json:"delivery,omitempty"`
	Adoption       *v1alpha1.TemplateInstanceAdoption `json:"adoption,omitempty"`
	Status         *instanceStatusFields              `json:"status,omitempty"`
}

// instanceStatusFields is the part of instanceFields that describes the status.
// +k8s:openapi-gen=false
type instanceStatusFields struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are exact, with Progressing and each condition's observedGeneration.
	Conditions                []metav1.Condition                `json:"conditions,omitempty"`
	TemplateResourceVersion   string                            `json:"templateResourceVersion,omitempty"`
	Objects                   []v1alpha1.TemplateInstanceObject `json:"objects,omitempty"`
	GeneratedParametersSecret string                            `json:"generatedParametersSecret,omitempty"`
	TemplateRevision          *v1alpha1.AppliedRevision         `json:"templateRevision,omitempty"`
	Artifact                  *v1alpha1.PublishedArtifact       `json:"artifact,omitempty"`
	Adoption                  *v1alpha1.AdoptionStatus          `json:"adoption,omitempty"`
}

// InstanceFromInternal writes the internal TemplateInstance in OpenShift's form; what that form
// cannot hold goes into StencilFieldsAnnotation, so that InstanceToInternal gives the same
// instance back.
func InstanceFromInternal(in *templates.TemplateInstance, out *TemplateInstance) error {
	*out = TemplateInstance{
		TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: "TemplateInstance"},
		ObjectMeta: in.ObjectMeta,
	}
	var fields instanceFields
	if ref := in.Spec.TemplateRef; ref != nil {
		fields.TemplateRef = &v1alpha1.TemplateReference{Name: ref.Name, Revision: ref.Revision}
	}
	if in.Spec.Template != nil {
		shown, exact := templateOf(in.Spec.Template.Raw)
		out.Spec.Template = shown
		if !exact {
			raw := string(in.Spec.Template.Raw)
			fields.Template = &raw
		}
	}
	fields.Parameters, fields.Labels, fields.Properties = in.Spec.Parameters, in.Spec.Labels, in.Spec.Properties
	fields.UpdatePolicy = v1alpha1.UpdatePolicy(in.Spec.UpdatePolicy)
	if d := in.Spec.Delivery; d != nil {
		fields.Delivery = &v1alpha1.Delivery{}
		if err := v1alpha1.Convert_templates_Delivery_To_v1alpha1_Delivery(d, fields.Delivery, nil); err != nil {
			return err
		}
	}
	if a := in.Spec.Adoption; a != nil {
		fields.Adoption = &v1alpha1.TemplateInstanceAdoption{}
		if err := v1alpha1.Convert_templates_TemplateInstanceAdoption_To_v1alpha1_TemplateInstanceAdoption(a, fields.Adoption, nil); err != nil {
			return err
		}
	}
	sources := in.Spec.ParametersFrom
	if n := len(sources); n > 0 && sources[n-1].SecretRef != nil && sources[n-1].ConfigMapRef == nil {
		out.Spec.Secret = &LocalObjectReference{Name: sources[n-1].SecretRef.Name}
		sources = sources[:n-1]
	}
	for i := range sources {
		var s v1alpha1.ParametersSource
		if err := v1alpha1.Convert_templates_ParametersSource_To_v1alpha1_ParametersSource(&sources[i], &s, nil); err != nil {
			return err
		}
		fields.ParametersFrom = append(fields.ParametersFrom, s)
	}
	if r := in.Spec.Requester; r != nil {
		out.Spec.Requester = &TemplateInstanceRequester{Username: r.Username, UID: r.UID, Groups: r.Groups}
		if r.Extra != nil {
			out.Spec.Requester.Extra = make(map[string]ExtraValue, len(r.Extra))
			for k, v := range r.Extra {
				out.Spec.Requester.Extra[k] = v
			}
		}
	}
	status, err := statusFromInternal(&in.Status, &out.Status)
	if err != nil {
		return err
	}
	fields.Status = status
	if fields.TemplateRef == nil && fields.Template == nil && fields.Parameters == nil && fields.ParametersFrom == nil &&
		fields.Labels == nil && fields.Properties == nil && fields.UpdatePolicy == "" && fields.Delivery == nil && fields.Adoption == nil && fields.Status == nil {
		return nil
	}
	value, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("cannot write the fields OpenShift's TemplateInstance has not: %v", err)
	}
	out.Annotations = withStencilFields(in.Annotations, value)
	return nil
}

// statusFromInternal writes the status in OpenShift's form: Ready is Ready, Failed is
// InstantiateFailure, and Progressing, which OpenShift has no counterpart for, is kept with the
// rest in the returned fields; nil when OpenShift's form loses nothing.
func statusFromInternal(in *templates.TemplateInstanceStatus, out *TemplateInstanceStatus) (*instanceStatusFields, error) {
	for _, c := range in.Conditions {
		if t, ok := openshiftCondition[c.Type]; ok {
			out.Conditions = append(out.Conditions, TemplateInstanceCondition{Type: t, Status: c.Status,
				LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
		}
	}
	for _, o := range in.Objects {
		out.Objects = append(out.Objects, TemplateInstanceObject{Ref: ObjectReference{APIVersion: o.APIVersion, Kind: o.Kind,
			Namespace: o.Namespace, Name: o.Name, UID: o.UID}})
	}
	fields := instanceStatusFields{ObservedGeneration: in.ObservedGeneration, TemplateResourceVersion: in.TemplateResourceVersion,
		GeneratedParametersSecret: in.GeneratedParametersSecret}
	if r := in.TemplateRevision; r != nil {
		fields.TemplateRevision = &v1alpha1.AppliedRevision{Number: r.Number, AppliedHash: r.AppliedHash, Generation: r.Generation}
	}
	if a := in.Artifact; a != nil {
		fields.Artifact = &v1alpha1.PublishedArtifact{}
		if err := v1alpha1.Convert_templates_PublishedArtifact_To_v1alpha1_PublishedArtifact(a, fields.Artifact, nil); err != nil {
			return nil, err
		}
	}
	if a := in.Adoption; a != nil {
		fields.Adoption = &v1alpha1.AdoptionStatus{}
		if err := v1alpha1.Convert_templates_AdoptionStatus_To_v1alpha1_AdoptionStatus(a, fields.Adoption, nil); err != nil {
			return nil, err
		}
	}
	if len(in.Conditions) > 0 && !equalJSON(conditionsToInternal(out.Conditions), in.Conditions) {
		fields.Conditions = in.Conditions
	}
	if len(in.Objects) > 0 && !equalJSON(objectsToInternal(out.Objects), in.Objects) {
		for i := range in.Objects {
			var o v1alpha1.TemplateInstanceObject
			if err := v1alpha1.Convert_templates_TemplateInstanceObject_To_v1alpha1_TemplateInstanceObject(&in.Objects[i], &o, nil); err != nil {
				return nil, err
			}
			fields.Objects = append(fields.Objects, o)
		}
	}
	if fields.ObservedGeneration == 0 && fields.Conditions == nil && fields.TemplateResourceVersion == "" &&
		fields.Objects == nil && fields.GeneratedParametersSecret == "" && fields.TemplateRevision == nil && fields.Artifact == nil && fields.Adoption == nil {
		return nil, nil
	}
	return &fields, nil
}

// openshiftCondition maps our condition types to OpenShift's.
var openshiftCondition = map[string]TemplateInstanceConditionType{
	v1alpha1.TemplateInstanceReady:  TemplateInstanceReady,
	v1alpha1.TemplateInstanceFailed: TemplateInstanceInstantiateFailure,
}

// conditionsToInternal reads OpenShift's conditions as ours; a type OpenShift does not define
// keeps its name.
func conditionsToInternal(in []TemplateInstanceCondition) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range in {
		t := string(c.Type)
		switch c.Type {
		case TemplateInstanceReady:
			t = v1alpha1.TemplateInstanceReady
		case TemplateInstanceInstantiateFailure:
			t = v1alpha1.TemplateInstanceFailed
		}
		out = append(out, metav1.Condition{Type: t, Status: c.Status, LastTransitionTime: c.LastTransitionTime,
			Reason: c.Reason, Message: c.Message})
	}
	return out
}

// objectsToInternal reads OpenShift's object references as ours; resourceVersion and fieldPath,
// which Stencil never sets, are dropped.
func objectsToInternal(in []TemplateInstanceObject) []templates.TemplateInstanceObject {
	var out []templates.TemplateInstanceObject
	for _, o := range in {
		out = append(out, templates.TemplateInstanceObject{APIVersion: o.Ref.APIVersion, Kind: o.Ref.Kind,
			Namespace: o.Ref.Namespace, Name: o.Ref.Name, UID: o.Ref.UID})
	}
	return out
}

// templateOf is the inline template raw in OpenShift's form, and whether writing that form
// gives raw back byte for byte. A template of Stencil's form is shown converted, its Stencil
// fields in its own StencilFieldsAnnotation; one that neither form reads is shown empty.
func templateOf(raw []byte) (Template, bool) {
	// One decoding serves the common case, OpenShift's form; a template of Stencil's form
	// may not fit OpenShift's fields, so its kind is read on its own.
	var t Template
	err := json.Unmarshal(raw, &t)
	head := t.TypeMeta
	if err != nil && json.Unmarshal(raw, &head) != nil || head.Kind != "Template" {
		return Template{}, false
	}
	switch head.APIVersion {
	case SchemeGroupVersion.String(), LegacyGroupVersion.String():
		if err != nil {
			return Template{}, false
		}
		again, err := json.Marshal(&t)
		return t, err == nil && bytes.Equal(again, raw)
	case v1alpha1.SchemeGroupVersion.String():
		var (
			v        v1alpha1.Template
			internal templates.Template
		)
		if json.Unmarshal(raw, &v) != nil {
			return Template{}, false
		}
		v1alpha1.SetObjectDefaults_Template(&v)
		if v1alpha1.Convert_v1alpha1_Template_To_templates_Template(&v, &internal, nil) != nil || FromInternal(&internal, &t) != nil {
			return Template{}, false
		}
		return t, false
	}
	return Template{}, false
}

// InstanceToInternal reads an OpenShift TemplateInstance into ours, restoring what
// InstanceFromInternal kept in StencilFieldsAnnotation; the annotation is not kept.
func InstanceToInternal(in *TemplateInstance, out *templates.TemplateInstance) error {
	*out = templates.TemplateInstance{ObjectMeta: in.ObjectMeta}
	var fields instanceFields
	if value, ok := in.Annotations[StencilFieldsAnnotation]; ok {
		if err := json.Unmarshal([]byte(value), &fields); err != nil {
			path := field.NewPath("metadata", "annotations").Key(StencilFieldsAnnotation)
			// Go's message names Go types; a member of the wrong type is told at its path.
			if errs := templates.JSONTypeErrors([]byte(value), reflect.TypeOf(fields), path); len(errs) > 0 {
				return errs.ToAggregate()
			}
			return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("must be the JSON of Stencil's fields: %v", err))}.ToAggregate()
		}
		out.Annotations = nil
		for k, v := range in.Annotations {
			if k == StencilFieldsAnnotation {
				continue
			}
			if out.Annotations == nil {
				out.Annotations = make(map[string]string, len(in.Annotations)-1)
			}
			out.Annotations[k] = v
		}
	}
	raw, err := instanceTemplate(&in.Spec.Template, fields.Template)
	if err != nil {
		return err
	}
	if raw != nil {
		out.Spec.Template = &runtime.RawExtension{Raw: raw}
	}
	if ref := fields.TemplateRef; ref != nil {
		out.Spec.TemplateRef = &templates.TemplateReference{Name: ref.Name, Revision: ref.Revision}
	}
	out.Spec.Parameters, out.Spec.Labels, out.Spec.Properties = fields.Parameters, fields.Labels, fields.Properties
	out.Spec.UpdatePolicy = templates.UpdatePolicy(fields.UpdatePolicy)
	if d := fields.Delivery; d != nil {
		out.Spec.Delivery = &templates.Delivery{}
		if err := v1alpha1.Convert_v1alpha1_Delivery_To_templates_Delivery(d, out.Spec.Delivery, nil); err != nil {
			return err
		}
	}
	if a := fields.Adoption; a != nil {
		out.Spec.Adoption = &templates.TemplateInstanceAdoption{}
		if err := v1alpha1.Convert_v1alpha1_TemplateInstanceAdoption_To_templates_TemplateInstanceAdoption(a, out.Spec.Adoption, nil); err != nil {
			return err
		}
	}
	for i := range fields.ParametersFrom {
		var s templates.ParametersSource
		if err := v1alpha1.Convert_v1alpha1_ParametersSource_To_templates_ParametersSource(&fields.ParametersFrom[i], &s, nil); err != nil {
			return err
		}
		out.Spec.ParametersFrom = append(out.Spec.ParametersFrom, s)
	}
	if in.Spec.Secret != nil {
		out.Spec.ParametersFrom = append(out.Spec.ParametersFrom, templates.ParametersSource{SecretRef: &templates.SecretReference{Name: in.Spec.Secret.Name}})
	}
	if r := in.Spec.Requester; r != nil {
		out.Spec.Requester = &templates.TemplateInstanceRequester{Username: r.Username, UID: r.UID, Groups: r.Groups}
		if r.Extra != nil {
			out.Spec.Requester.Extra = make(map[string][]string, len(r.Extra))
			for k, v := range r.Extra {
				out.Spec.Requester.Extra[k] = v
			}
		}
	}
	return statusToInternal(&in.Status, fields.Status, &out.Status)
}

// instanceTemplate is the inline template to store: the exact text kept in the annotation
// while spec.template still shows it, else spec.template written in OpenShift's form; nil when
// spec.template is empty and no text was kept.
func instanceTemplate(shown *Template, kept *string) ([]byte, error) {
	if kept != nil {
		if keptShown, _ := templateOf([]byte(*kept)); equalJSON(&keptShown, shown) {
			return []byte(*kept), nil
		}
	}
	if equalJSON(shown, &Template{}) {
		return nil, nil
	}
	t := *shown
	if t.APIVersion == "" && t.Kind == "" {
		t.APIVersion, t.Kind = SchemeGroupVersion.String(), "Template"
	}
	raw, err := json.Marshal(&t)
	if err != nil {
		return nil, fmt.Errorf("cannot write spec.template: %v", err)
	}
	return raw, nil
}

// statusToInternal reads the status, with the exact conditions and objects kept in fields
// while OpenShift's form still shows them.
func statusToInternal(in *TemplateInstanceStatus, fields *instanceStatusFields, out *templates.TemplateInstanceStatus) error {
	out.Conditions, out.Objects = conditionsToInternal(in.Conditions), objectsToInternal(in.Objects)
	if fields == nil {
		return nil
	}
	out.ObservedGeneration, out.TemplateResourceVersion = fields.ObservedGeneration, fields.TemplateResourceVersion
	out.GeneratedParametersSecret = fields.GeneratedParametersSecret
	if r := fields.TemplateRevision; r != nil {
		out.TemplateRevision = &templates.AppliedRevision{Number: r.Number, AppliedHash: r.AppliedHash, Generation: r.Generation}
	}
	if a := fields.Artifact; a != nil {
		out.Artifact = &templates.PublishedArtifact{}
		if err := v1alpha1.Convert_v1alpha1_PublishedArtifact_To_templates_PublishedArtifact(a, out.Artifact, nil); err != nil {
			return err
		}
	}
	if a := fields.Adoption; a != nil {
		out.Adoption = &templates.AdoptionStatus{}
		if err := v1alpha1.Convert_v1alpha1_AdoptionStatus_To_templates_AdoptionStatus(a, out.Adoption, nil); err != nil {
			return err
		}
	}
	if fields.Conditions != nil {
		var shown TemplateInstanceStatus
		if _, err := statusFromInternal(&templates.TemplateInstanceStatus{Conditions: fields.Conditions}, &shown); err == nil && equalJSON(shown.Conditions, in.Conditions) {
			out.Conditions = fields.Conditions
		}
	}
	if fields.Objects != nil {
		objects := make([]templates.TemplateInstanceObject, len(fields.Objects))
		for i := range fields.Objects {
			if err := v1alpha1.Convert_v1alpha1_TemplateInstanceObject_To_templates_TemplateInstanceObject(&fields.Objects[i], &objects[i], nil); err != nil {
				return err
			}
		}
		var shown TemplateInstanceStatus
		if _, err := statusFromInternal(&templates.TemplateInstanceStatus{Objects: objects}, &shown); err == nil && equalJSON(shown.Objects, in.Objects) {
			out.Objects = objects
		}
	}
	return nil
}

// equalJSON says whether a and b write the same JSON: what a client reads of them is the same.
func equalJSON(a, b interface{}) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
