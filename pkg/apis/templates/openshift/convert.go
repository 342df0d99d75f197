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
	"encoding/json"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// StencilFieldsAnnotation holds, in a Template of OpenShift's form, what Stencil's form has and
// OpenShift's cannot: the generators and transformers, the parameters' types and constraints, the
// dialect, and the author and revision the server records.
// Kubernetes keeps the fields of one version that another lacks the same way (as HPA v1 keeps
// v2's metrics in an annotation), so that reading and writing through either group loses
// nothing. Its value is JSON in Stencil's v1alpha1 spelling. A Template of OpenShift's
// dialect without such fields has no annotation; one of Stencil's dialect always has it, so
// that a Stencil Template read through template.openshift.io and posted back is still
// processed by Stencil's rules.
const StencilFieldsAnnotation = "templates.stencil.dev/stencil-fields"

// stencilFields is the value of StencilFieldsAnnotation.
// +k8s:openapi-gen=false
type stencilFields struct {
	// Dialect is empty for Stencil's dialect, as in v1alpha1.
	Dialect v1alpha1.Dialect `json:"dialect,omitempty"`
	// Parameters hold each parameter's name and the fields OpenShift's Parameter lacks, in the
	// order of the template's parameters; absent when no parameter has such fields.
	Parameters           []v1alpha1.Parameter            `json:"parameters,omitempty"`
	Rules                []v1alpha1.ParameterRule        `json:"rules,omitempty"`
	Generators           []runtime.RawExtension          `json:"generators,omitempty"`
	Transformers         []runtime.RawExtension          `json:"transformers,omitempty"`
	TransformersFrom     []v1alpha1.TransformerImport    `json:"transformersFrom,omitempty"`
	TransformerOverrides []runtime.RawExtension          `json:"transformerOverrides,omitempty"`
	TransformerOrder     []v1alpha1.TransformerReference `json:"transformerOrder,omitempty"`
	// Author is the Template's last writer, which the server records in either form.
	Author *v1alpha1.TemplateAuthor `json:"author,omitempty"`
	// Revision is the Template's revision, which the server records in either form.
	Revision *v1alpha1.RevisionStamp `json:"revision,omitempty"`
	// Rollout is how the Template's instances move to a new revision.
	Rollout *v1alpha1.Rollout `json:"rollout,omitempty"`
	// RolloutAuthor is the rollout's last writer, which the server records in either form.
	RolloutAuthor *v1alpha1.TemplateAuthor `json:"rolloutAuthor,omitempty"`
	// Status is the controller's: the progress of the last rollout (read only: a write
	// through either group keeps the stored one).
	Status *v1alpha1.TemplateStatus `json:"status,omitempty"`
}

// FromInternal writes the internal Template in OpenShift's form. What that form has no field
// for goes into StencilFieldsAnnotation, so that ToInternal gives the same Template back.
// It is the one writer of OpenShift Templates: the API, stencil convert and stencil export use
// it.
func FromInternal(in *templates.Template, out *Template) error {
	*out = Template{
		TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: "Template"},
		ObjectMeta: in.ObjectMeta,
		Message:    in.Message,
		Objects:    in.Objects,
		Labels:     in.ObjectLabels,
	}
	if in.Parameters != nil {
		out.Parameters = make([]Parameter, len(in.Parameters))
	}
	extraParameters := false
	for i, p := range in.Parameters {
		out.Parameters[i] = Parameter{Name: p.Name, DisplayName: p.DisplayName, Description: p.Description,
			Value: p.Value, Generate: p.Generate, From: p.From, Required: p.Required}
		extraParameters = extraParameters || hasStencilFields(&p)
	}
	fields := stencilFields{Generators: in.Generators, Transformers: in.Transformers, TransformerOverrides: in.TransformerOverrides}
	if in.OpenShift {
		fields.Dialect = v1alpha1.DialectOpenShift
	}
	if extraParameters {
		fields.Parameters = make([]v1alpha1.Parameter, len(in.Parameters))
		for i := range in.Parameters {
			p := stencilOnly(&in.Parameters[i])
			if err := v1alpha1.Convert_templates_Parameter_To_v1alpha1_Parameter(&p, &fields.Parameters[i], nil); err != nil {
				return err
			}
		}
	}
	for _, r := range in.Rules {
		fields.Rules = append(fields.Rules, v1alpha1.ParameterRule{Rule: r.Rule, Message: r.Message, FieldPath: r.FieldPath})
	}
	for _, imp := range in.TransformersFrom {
		fields.TransformersFrom = append(fields.TransformersFrom, v1alpha1.TransformerImport{Name: imp.Name, ImportMode: v1alpha1.ImportMode(imp.ImportMode)})
	}
	for _, ref := range in.TransformerOrder {
		fields.TransformerOrder = append(fields.TransformerOrder, v1alpha1.TransformerReference{Name: ref.Name})
	}
	if in.Author != nil {
		fields.Author = &v1alpha1.TemplateAuthor{}
		if err := v1alpha1.Convert_templates_TemplateAuthor_To_v1alpha1_TemplateAuthor(in.Author, fields.Author, nil); err != nil {
			return err
		}
	}
	if in.Revision != nil {
		fields.Revision = &v1alpha1.RevisionStamp{Number: in.Revision.Number, Hash: in.Revision.Hash}
	}
	if in.Rollout != nil {
		fields.Rollout = &v1alpha1.Rollout{}
		if err := v1alpha1.Convert_templates_Rollout_To_v1alpha1_Rollout(in.Rollout, fields.Rollout, nil); err != nil {
			return err
		}
	}
	if in.RolloutAuthor != nil {
		fields.RolloutAuthor = &v1alpha1.TemplateAuthor{}
		if err := v1alpha1.Convert_templates_TemplateAuthor_To_v1alpha1_TemplateAuthor(in.RolloutAuthor, fields.RolloutAuthor, nil); err != nil {
			return err
		}
	}
	if in.Status != nil {
		fields.Status = &v1alpha1.TemplateStatus{}
		if err := v1alpha1.Convert_templates_TemplateStatus_To_v1alpha1_TemplateStatus(in.Status, fields.Status, nil); err != nil {
			return err
		}
	}
	if in.OpenShift && !extraParameters && fields.Author == nil && fields.Revision == nil && fields.Rollout == nil && fields.RolloutAuthor == nil && fields.Status == nil && len(fields.Rules)+len(fields.Generators)+len(fields.Transformers)+len(fields.TransformersFrom)+len(fields.TransformerOverrides)+len(fields.TransformerOrder) == 0 {
		return nil
	}
	value, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("cannot write the fields OpenShift's Template has not: %v", err)
	}
	out.Annotations = withStencilFields(in.Annotations, value)
	return nil
}

// withStencilFields returns a copy of annotations with StencilFieldsAnnotation set to value:
// the object being converted keeps its own map.
func withStencilFields(annotations map[string]string, value []byte) map[string]string {
	out := make(map[string]string, len(annotations)+1)
	for k, v := range annotations {
		out[k] = v
	}
	out[StencilFieldsAnnotation] = string(value)
	return out
}

// ToInternal reads an OpenShift Template into the internal Template: one of OpenShift's
// dialect, unless StencilFieldsAnnotation says otherwise and restores what FromInternal kept
// there. The annotation is not kept in the internal Template.
func ToInternal(in *Template, out *templates.Template) error {
	var params []templates.Parameter
	if in.Parameters != nil {
		params = make([]templates.Parameter, len(in.Parameters))
	}
	for i, p := range in.Parameters {
		params[i] = templates.Parameter{Name: p.Name, DisplayName: p.DisplayName, Description: p.Description,
			Value: p.Value, Required: p.Required, Generate: p.Generate, From: p.From}
	}
	return ToInternalWithParameters(in, params, out)
}

// ToInternalWithParameters is ToInternal of a Template whose parameters were read straight
// into the internal type, params (as ToInternal would have copied them: each member of
// OpenShift's Parameter in the internal field of its name, nil for no parameters member),
// instead of into in.Parameters, which it does not read. The engine's reader of OpenShift
// templates reads them so (pkg/process): a template's parameters are then made once, not
// read and copied, and they were a fifth of what processing a template allocated. params
// become out's, changed in place by what StencilFieldsAnnotation holds: the caller gives
// them up.
func ToInternalWithParameters(in *Template, params []templates.Parameter, out *templates.Template) error {
	*out = templates.Template{
		ObjectMeta:   in.ObjectMeta,
		Message:      in.Message,
		Parameters:   params,
		Objects:      in.Objects,
		ObjectLabels: in.Labels,
		OpenShift:    true,
	}
	value, ok := in.Annotations[StencilFieldsAnnotation]
	if !ok {
		return nil
	}
	annotations := make(map[string]string, len(in.Annotations)-1)
	for k, v := range in.Annotations {
		if k != StencilFieldsAnnotation {
			annotations[k] = v
		}
	}
	out.Annotations = nil
	if len(annotations) > 0 {
		out.Annotations = annotations
	}
	return restoreStencilFields(value, out)
}

// restoreStencilFields applies the value of StencilFieldsAnnotation to out.
func restoreStencilFields(value string, out *templates.Template) error {
	path := field.NewPath("metadata", "annotations").Key(StencilFieldsAnnotation)
	var fields stencilFields
	if err := json.Unmarshal([]byte(value), &fields); err != nil {
		// Go's message names Go types; a member of the wrong type is told at its path.
		if errs := templates.JSONTypeErrors([]byte(value), reflect.TypeOf(fields), path); len(errs) > 0 {
			return errs.ToAggregate()
		}
		return field.ErrorList{field.Invalid(path, value, fmt.Sprintf("must be the JSON of Stencil's fields: %v", err))}.ToAggregate()
	}
	switch fields.Dialect {
	case "", v1alpha1.DialectStencil:
		out.OpenShift = false
	case v1alpha1.DialectOpenShift:
	default:
		return field.ErrorList{field.NotSupported(path.Child("dialect"), fields.Dialect,
			[]v1alpha1.Dialect{v1alpha1.DialectStencil, v1alpha1.DialectOpenShift})}.ToAggregate()
	}
	if errs := templates.RawNumberErrors(templates.RawList{Name: "generators", Raws: fields.Generators},
		templates.RawList{Name: "transformers", Raws: fields.Transformers},
		templates.RawList{Name: "transformerOverrides", Raws: fields.TransformerOverrides}); len(errs) > 0 {
		return errs.ToAggregate()
	}
	out.Generators, out.Transformers, out.TransformerOverrides = fields.Generators, fields.Transformers, fields.TransformerOverrides
	for _, imp := range fields.TransformersFrom {
		v1alpha1.SetDefaults_TransformerImport(&imp)
		out.TransformersFrom = append(out.TransformersFrom, templates.TransformerImport{Name: imp.Name, ImportMode: templates.ImportMode(imp.ImportMode)})
	}
	for _, ref := range fields.TransformerOrder {
		out.TransformerOrder = append(out.TransformerOrder, templates.TransformerReference{Name: ref.Name})
	}
	for _, r := range fields.Rules {
		out.Rules = append(out.Rules, templates.ParameterRule{Rule: r.Rule, Message: r.Message, FieldPath: r.FieldPath})
	}
	if fields.Author != nil {
		out.Author = &templates.TemplateAuthor{}
		if err := v1alpha1.Convert_v1alpha1_TemplateAuthor_To_templates_TemplateAuthor(fields.Author, out.Author, nil); err != nil {
			return err
		}
	}
	if fields.Revision != nil {
		out.Revision = &templates.RevisionStamp{Number: fields.Revision.Number, Hash: fields.Revision.Hash}
	}
	if fields.Rollout != nil {
		out.Rollout = &templates.Rollout{}
		if err := v1alpha1.Convert_v1alpha1_Rollout_To_templates_Rollout(fields.Rollout, out.Rollout, nil); err != nil {
			return err
		}
	}
	if fields.RolloutAuthor != nil {
		out.RolloutAuthor = &templates.TemplateAuthor{}
		if err := v1alpha1.Convert_v1alpha1_TemplateAuthor_To_templates_TemplateAuthor(fields.RolloutAuthor, out.RolloutAuthor, nil); err != nil {
			return err
		}
	}
	if fields.Status != nil {
		out.Status = &templates.TemplateStatus{}
		if err := v1alpha1.Convert_v1alpha1_TemplateStatus_To_templates_TemplateStatus(fields.Status, out.Status, nil); err != nil {
			return err
		}
	}
	if len(fields.Parameters) == 0 {
		return nil
	}
	// The parameters are matched by position and name; a parameter added, removed or renamed
	// through OpenShift's form since is matched by name, or keeps no Stencil fields.
	byName := map[string]int{}
	for i := len(fields.Parameters) - 1; i >= 0; i-- {
		byName[fields.Parameters[i].Name] = i
	}
	for i := range out.Parameters {
		p := &out.Parameters[i]
		j, ok := i, i < len(fields.Parameters) && fields.Parameters[i].Name == p.Name
		if !ok {
			if j, ok = byName[p.Name]; !ok {
				continue
			}
		}
		var extra templates.Parameter
		if err := v1alpha1.Convert_v1alpha1_Parameter_To_templates_Parameter(&fields.Parameters[j], &extra, nil); err != nil {
			return err
		}
		p.Type, p.Enum, p.Pattern, p.Minimum, p.Maximum = extra.Type, extra.Enum, extra.Pattern, extra.Minimum, extra.Maximum
		p.MinLength, p.MaxLength, p.Multiline, p.Secret = extra.MinLength, extra.MaxLength, extra.Multiline, extra.Secret
		p.Items, p.MaxItems, p.Properties = extra.Items, extra.MaxItems, extra.Properties
	}
	return nil
}

// stencilOnly is p with only its name and the fields OpenShift's Parameter lacks.
func stencilOnly(p *templates.Parameter) templates.Parameter {
	out := *p
	out.DisplayName, out.Description, out.Value, out.Required, out.Generate, out.From = "", "", "", false, "", ""
	return out
}

// hasStencilFields says whether p has a field OpenShift's Parameter lacks.
func hasStencilFields(p *templates.Parameter) bool {
	return p.Type != "" || len(p.Enum) > 0 || p.Pattern != "" || p.Minimum != nil || p.Maximum != nil ||
		p.MinLength != nil || p.MaxLength != nil || p.Multiline || p.Secret || p.Items != nil || p.MaxItems != nil || len(p.Properties) > 0
}
