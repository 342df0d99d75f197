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

// Package templateinstance holds the storage of TemplateInstances: the strategies that set the
// requester from the authenticated user and keep spec and status apart, and the table.
package templateinstance

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry"
	"stencil.dev/stencil/pkg/transform/expand"
)

// strategy implements create, update and delete of TemplateInstances.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	caps Capabilities
}

// Capabilities are what the server does with the instances it stores.
type Capabilities struct {
	// NoCluster marks a server with no cluster to create objects in: new instances say so in
	// their status, as no controller will ever write it.
	NoCluster bool
	// Publishing says the server serves published artifacts: without it, an instance whose
	// delivery is ExternalArtifact is refused, as nothing could ever fetch what it publishes.
	Publishing bool
}

var _ rest.RESTCreateUpdateStrategy = strategy{}
var _ rest.ResetFieldsStrategy = strategy{}

// NewStrategy returns the strategy of TemplateInstances on a server that can do caps.
func NewStrategy(typer runtime.ObjectTyper, caps Capabilities) strategy {
	return strategy{typer, names.SimpleNameGenerator, caps}
}

// GetAttrs returns the labels and selectable fields of a TemplateInstance.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	ti, ok := obj.(*templates.TemplateInstance)
	if !ok {
		return nil, nil, fmt.Errorf("not a TemplateInstance: %T", obj)
	}
	return labels.Set(ti.Labels), generic.ObjectMetaFieldsSet(&ti.ObjectMeta, true), nil
}

// Match is the filter of list and watch requests.
func Match(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs}
}

// NamespaceScoped is true: an instance creates its objects in its own namespace.
func (strategy) NamespaceScoped() bool { return true }

// GetResetFields says status is the controller's: a client's apply never manages it.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"templates.stencil.dev/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

// NoClusterReason is the reason of the conditions of an instance on a server without a
// cluster.
const NoClusterReason = v1alpha1.ReasonNoCluster

// PrepareForCreate sets the requester from the authenticated user, drops a client's status
// and starts the generation.
func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	ti := obj.(*templates.TemplateInstance)
	ti.Generation = 1
	ti.Spec.Requester = requesterFrom(ctx)
	ti.Status = templates.TemplateInstanceStatus{}
	keepServerAnnotations(ctx, ti, nil)
	if s.caps.NoCluster {
		message := "this server runs without a cluster (local mode): the instance is stored but nothing is created"
		for _, t := range []string{v1alpha1.TemplateInstanceReady, v1alpha1.TemplateInstanceProgressing} {
			meta.SetStatusCondition(&ti.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionFalse,
				ObservedGeneration: 1, Reason: NoClusterReason, Message: message})
		}
		ti.Status.ObservedGeneration = 1
	}
}

// PrepareForUpdate keeps the status, counts spec changes in the generation, and makes the
// updating user the requester on every spec change, rotation request and consent to apply an
// instance created without a cluster: the controller always acts as the last person who asked
// for a change, so edit rights on an instance never borrow the rights of whoever created it.
// Other updates (labels, finalizers) keep the requester.
func (strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	ti, oldTI := obj.(*templates.TemplateInstance), old.(*templates.TemplateInstance)
	ti.Status = oldTI.Status
	ti.Generation = oldTI.Generation
	keepServerAnnotations(ctx, ti, oldTI)
	specChanged := !apiequality.Semantic.DeepEqual(withoutRequester(ti.Spec), withoutRequester(oldTI.Spec))
	if specChanged {
		ti.Generation++
	}
	asked := func(annotation string) bool {
		v := ti.Annotations[annotation]
		return v != "" && v != oldTI.Annotations[annotation]
	}
	if specChanged || asked(v1alpha1.AnnotationRotateGeneratedParameters) || asked(v1alpha1.AnnotationApplyCreatedWithoutCluster) {
		ti.Spec.Requester = requesterFrom(ctx)
	} else {
		ti.Spec.Requester = oldTI.Spec.Requester
	}
}

// serverAnnotations are written by the server alone: the mark of the rollout's wave that
// moved the instance. A client's create or update keeps the stored value (none on a create), as
// it keeps the status: nobody moves an instance ahead of its wave by writing the mark, nor
// drops a mark with a replace. The server's own writes come through its loopback, as
// system:apiserver.
var serverAnnotations = []string{v1alpha1.AnnotationRolloutMoved}

func keepServerAnnotations(ctx context.Context, ti, old *templates.TemplateInstance) {
	if u, ok := genericapirequest.UserFrom(ctx); ok && u.GetName() == user.APIServerUser {
		return
	}
	for _, a := range serverAnnotations {
		var stored string
		var had bool
		if old != nil {
			stored, had = old.Annotations[a]
		}
		switch {
		case had && ti.Annotations == nil:
			ti.Annotations = map[string]string{a: stored}
		case had:
			ti.Annotations[a] = stored
		default:
			delete(ti.Annotations, a)
		}
	}
}

func withoutRequester(spec templates.TemplateInstanceSpec) templates.TemplateInstanceSpec {
	spec.Requester = nil
	return spec
}

// requesterFrom is the authenticated user of the request; nil when there is none (a request
// the server makes to itself has one).
func requesterFrom(ctx context.Context) *templates.TemplateInstanceRequester {
	id, ok := registry.IdentityFrom(ctx)
	if !ok {
		return nil
	}
	return &templates.TemplateInstanceRequester{Username: id.Username, UID: id.UID, Groups: id.Groups, Extra: id.Extra}
}

// Validate reports every problem of a new instance in one list: the API's checks, the inline
// template as the engine decodes it, the property names, and a size etcd would refuse.
func (s strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	ti := obj.(*templates.TemplateInstance)
	errs := append(append(validation.ValidateTemplateInstance(ti), engineErrors(&ti.Spec)...), sizeErrors(ti)...)
	return validation.SortByField(append(errs, s.deliveryErrors(&ti.Spec)...))
}

// deliveryErrors refuses a published instance on a server that serves no artifacts.
func (s strategy) deliveryErrors(spec *templates.TemplateInstanceSpec) field.ErrorList {
	if !spec.Published() || s.caps.Publishing {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec", "delivery", "type"),
		"this server serves no artifacts: an administrator starts it with --artifact-port and --artifact-url for instances "+
			"whose delivery is ExternalArtifact (docs/gitops.md)")}
}

// engineErrors are the problems only the engine can judge: whether the inline template
// decodes, and the names of the expansion properties.
func engineErrors(spec *templates.TemplateInstanceSpec) field.ErrorList {
	errs := expand.ValidateProperties(spec.Properties, field.NewPath("spec", "properties"))
	if spec.Template != nil && len(spec.Template.Raw) > 0 {
		if _, _, err := process.DecodeTemplate(spec.Template.Raw); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "template"), "", err.Error()))
		}
	}
	return errs
}

// WarningsOnCreate says when spec.updatePolicy has no effect; every problem found at write
// time refuses the object.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return policyWarnings(&obj.(*templates.TemplateInstance).Spec)
}

// policyWarnings tells that Automatic does not move a pinned instance: the pin wins.
func policyWarnings(spec *templates.TemplateInstanceSpec) []string {
	if ref := spec.TemplateRef; ref != nil && ref.Revision > 0 && spec.UpdatePolicy == templates.UpdatePolicyAutomatic {
		return []string{fmt.Sprintf("spec.updatePolicy Automatic has no effect while spec.templateRef.revision pins revision %d: "+
			"the instance stays on it until the pin is removed", ref.Revision)}
	}
	return nil
}

// AllowCreateOnUpdate is false: an instance is created with POST (kubectl apply does so).
func (strategy) AllowCreateOnUpdate(context.Context) bool { return false }

// AllowUnconditionalUpdate lets kubectl replace work without a resourceVersion.
func (strategy) AllowUnconditionalUpdate(context.Context) bool { return true }

// Canonicalize leaves the object as the client wrote it.
func (strategy) Canonicalize(runtime.Object) {}

// ValidateUpdate checks an update as Validate checks a create, with the metadata rules of
// updates.
func (s strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ti := obj.(*templates.TemplateInstance)
	errs := append(append(validation.ValidateTemplateInstanceUpdate(ti, old.(*templates.TemplateInstance)), engineErrors(&ti.Spec)...), sizeErrors(ti)...)
	return validation.SortByField(append(errs, s.deliveryErrors(&ti.Spec)...))
}

// WarningsOnUpdate warns as WarningsOnCreate.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return policyWarnings(&obj.(*templates.TemplateInstance).Spec)
}

// statusStrategy implements updates of the status subresource: only status changes.
type statusStrategy struct {
	strategy
}

// NewStatusStrategy returns the strategy of templateinstances/status.
func NewStatusStrategy(s strategy) statusStrategy { return statusStrategy{s} }

// GetResetFields says spec and metadata are not the status writer's.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"templates.stencil.dev/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata")),
	}
}

// PrepareForUpdate keeps everything but the status as stored.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ti, oldTI := obj.(*templates.TemplateInstance), old.(*templates.TemplateInstance)
	ti.Spec = oldTI.Spec
	metav1.ResetObjectMetaForStatus(&ti.ObjectMeta, &oldTI.ObjectMeta)
}

// ValidateUpdate checks the status.
func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.SortByField(validation.ValidateTemplateInstanceStatusUpdate(obj.(*templates.TemplateInstance), old.(*templates.TemplateInstance)))
}

// WarningsOnUpdate has none.
func (statusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
