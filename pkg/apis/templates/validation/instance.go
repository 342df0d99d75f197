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

package validation

import (
	"encoding/json"
	"strconv"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// GeneratedSecretSuffix ends the name of an instance's generated-values Secret, so an
// instance's name must leave room for it within a Secret name's 253 characters.
const GeneratedSecretSuffix = "-generated"

// MaxParametersFrom bounds an instance's parametersFrom. Each source is a Secret the
// controller reads as the requester on every reconcile (a request to the cluster each), and
// its watch re-renders the instance when any of them changes, so the list multiplies the
// work one instance causes; real instances read one to a few Secrets (OpenShift's have one,
// spec.secret), and a Secret holds as many values as a template has parameters.
const MaxParametersFrom = 16

// maxInstanceNameLength keeps <name>-generated a valid Secret name.
const maxInstanceNameLength = 253 - len(GeneratedSecretSuffix)

// ValidateTemplateInstance validates a TemplateInstance on create: its metadata and the shape
// of its spec. The inline template's content and the property names are the engine's to judge
// (the registry strategy adds those checks).
func ValidateTemplateInstance(ti *templates.TemplateInstance) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&ti.ObjectMeta, true, instanceName, field.NewPath("metadata"))
	return append(allErrs, validateTemplateInstanceSpec(&ti.Spec, field.NewPath("spec"))...)
}

// ValidateTemplateInstanceUpdate validates a TemplateInstance on update; the whole spec but the
// delivery's type may change, as a change is an upgrade.
func ValidateTemplateInstanceUpdate(ti, old *templates.TemplateInstance) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&ti.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateDeliveryUpdate(&ti.Spec, &old.Spec, field.NewPath("spec", "delivery"))...)
	allErrs = append(allErrs, validateAdoptionUpdate(&ti.Spec, &old.Spec, field.NewPath("spec"))...)
	return append(allErrs, validateTemplateInstanceSpec(&ti.Spec, field.NewPath("spec"))...)
}

// ValidateTemplateInstanceStatusUpdate validates what the controller writes to status.
func ValidateTemplateInstanceStatusUpdate(ti, old *templates.TemplateInstance) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&ti.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	path := field.NewPath("status")
	if ti.Status.ObservedGeneration < 0 {
		allErrs = append(allErrs, field.Invalid(path.Child("observedGeneration"), ti.Status.ObservedGeneration, "must not be negative"))
	}
	allErrs = append(allErrs, metav1validation.ValidateConditions(ti.Status.Conditions, path.Child("conditions"))...)
	if r := ti.Status.TemplateRevision; r != nil && r.Number < 1 {
		allErrs = append(allErrs, field.Invalid(path.Child("templateRevision", "number"), r.Number, "must be at least 1"))
	}
	for i, o := range ti.Status.Objects {
		p := path.Child("objects").Index(i)
		switch o.Lifecycle {
		case "", templates.LifecycleRetain:
		default:
			allErrs = append(allErrs, field.NotSupported(p.Child("lifecycle"), o.Lifecycle, []string{templates.LifecycleRetain}))
		}
		for _, f := range []struct{ name, value string }{{"apiVersion", o.APIVersion}, {"kind", o.Kind}, {"name", o.Name}} {
			if f.value == "" {
				allErrs = append(allErrs, field.Required(p.Child(f.name), ""))
			}
		}
	}
	if a := ti.Status.Artifact; a != nil {
		p := path.Child("artifact")
		for _, f := range []struct{ name, value string }{{"externalArtifact", a.ExternalArtifact}, {"revision", a.Revision}, {"digest", a.Digest}} {
			if f.value == "" {
				allErrs = append(allErrs, field.Required(p.Child(f.name), ""))
			}
		}
	}
	if s := ti.Status.GeneratedParametersSecret; s != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s, false) {
			allErrs = append(allErrs, field.Invalid(path.Child("generatedParametersSecret"), s, msg))
		}
	}
	return allErrs
}

// instanceName is a DNS subdomain short enough for the generated-values Secret's name.
func instanceName(name string, prefix bool) []string {
	msgs := apimachineryvalidation.NameIsDNSSubdomain(name, prefix)
	if len(name) > maxInstanceNameLength {
		msgs = append(msgs, "must be no more than "+strconv.Itoa(maxInstanceNameLength)+" characters, so that the Secret "+name+GeneratedSecretSuffix+" can hold its generated values")
	}
	return msgs
}

func validateTemplateInstanceSpec(spec *templates.TemplateInstanceSpec, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case spec.TemplateRef == nil && spec.Template == nil:
		allErrs = append(allErrs, field.Required(path.Child("templateRef"), "exactly one of templateRef and template is required"))
	case spec.TemplateRef != nil && spec.Template != nil:
		allErrs = append(allErrs, field.Forbidden(path.Child("template"), "exactly one of templateRef and template may be set"))
	}
	if ref := spec.TemplateRef; ref != nil {
		allErrs = append(allErrs, validateLocalName(ref.Name, path.Child("templateRef", "name"))...)
		if ref.Revision < 0 {
			allErrs = append(allErrs, field.Invalid(path.Child("templateRef", "revision"), ref.Revision,
				"must be the number of a revision of the Template (1 or more), or left out to follow spec.updatePolicy"))
		}
	}
	switch spec.UpdatePolicy {
	case "", templates.UpdatePolicyAutomatic, templates.UpdatePolicyManual:
	default:
		allErrs = append(allErrs, field.NotSupported(path.Child("updatePolicy"), spec.UpdatePolicy,
			[]templates.UpdatePolicy{templates.UpdatePolicyAutomatic, templates.UpdatePolicyManual}))
	}
	if t := spec.Template; t != nil {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(t.Raw, &fields); err != nil || fields == nil {
			allErrs = append(allErrs, field.Invalid(path.Child("template"), "", "must be a Template object"))
		}
	}
	sources := spec.ParametersFrom
	if len(sources) > MaxParametersFrom {
		// The entries beyond the limit are not checked one by one: the instance cannot keep them.
		allErrs = append(allErrs, field.TooMany(path.Child("parametersFrom"), len(sources), MaxParametersFrom))
		sources = sources[:MaxParametersFrom]
	}
	for i, from := range sources {
		p := path.Child("parametersFrom").Index(i)
		switch {
		case from.SecretRef != nil && from.ConfigMapRef != nil:
			allErrs = append(allErrs, field.Forbidden(p.Child("configMapRef"), "exactly one of secretRef and configMapRef"))
		case from.SecretRef != nil:
			allErrs = append(allErrs, validateLocalName(from.SecretRef.Name, p.Child("secretRef", "name"))...)
		case from.ConfigMapRef != nil:
			allErrs = append(allErrs, validateLocalName(from.ConfigMapRef.Name, p.Child("configMapRef", "name"))...)
		default:
			allErrs = append(allErrs, field.Required(p.Child("secretRef"), "exactly one of secretRef and configMapRef"))
		}
	}
	if a := spec.Adoption; a != nil {
		allErrs = append(allErrs, validateAdoption(a, path.Child("adoption"))...)
		if spec.Published() {
			allErrs = append(allErrs, field.Forbidden(path.Child("adoption"), "an instance published for Flux applies nothing itself, so it takes nothing over: adopt with delivery Apply"))
		}
	}
	for name := range spec.Parameters {
		if name == "" {
			allErrs = append(allErrs, field.Invalid(path.Child("parameters"), name, "a parameter name must not be empty"))
		}
	}
	allErrs = append(allErrs, validateDelivery(spec.Delivery, path.Child("delivery"))...)
	return append(allErrs, metav1validation.ValidateLabels(spec.Labels, path.Child("labels"))...)
}

// validateDelivery checks the delivery's type and that its options belong to it.
func validateDelivery(d *templates.Delivery, path *field.Path) field.ErrorList {
	if d == nil {
		return nil
	}
	var allErrs field.ErrorList
	switch d.Type {
	case "", templates.DeliveryApply:
		if d.ExternalArtifact != nil {
			allErrs = append(allErrs, field.Forbidden(path.Child("externalArtifact"), "may be set only when type is ExternalArtifact"))
		}
	case templates.DeliveryExternalArtifact:
	default:
		allErrs = append(allErrs, field.NotSupported(path.Child("type"), d.Type,
			[]templates.DeliveryType{templates.DeliveryApply, templates.DeliveryExternalArtifact}))
	}
	if ea := d.ExternalArtifact; ea != nil {
		switch ea.Secrets {
		case "", templates.SecretsRefuse, templates.SecretsApply:
		default:
			allErrs = append(allErrs, field.NotSupported(path.Child("externalArtifact", "secrets"), ea.Secrets,
				[]templates.SecretsDelivery{templates.SecretsRefuse, templates.SecretsApply}))
		}
	}
	return allErrs
}

// validateDeliveryUpdate keeps the delivery's type: an instance whose objects one controller
// applied cannot hand them to another by an edit (they would be pruned by one and adopted by
// the other), so a change is made by deleting the instance (with the Orphan deletion policy to
// keep the objects) and creating it anew.
func validateDeliveryUpdate(spec, old *templates.TemplateInstanceSpec, path *field.Path) field.ErrorList {
	if spec.Published() == old.Published() {
		return nil
	}
	return field.ErrorList{field.Invalid(path.Child("type"), deliveryType(spec.Delivery), "field is immutable")}
}

func deliveryType(d *templates.Delivery) templates.DeliveryType {
	if d == nil || d.Type == "" {
		return templates.DeliveryApply
	}
	return d.Type
}

// validateLocalName checks the name of an object of the same namespace.
func validateLocalName(name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var allErrs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		allErrs = append(allErrs, field.Invalid(path, name, msg))
	}
	return allErrs
}
