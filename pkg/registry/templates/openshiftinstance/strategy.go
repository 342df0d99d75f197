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

package openshiftinstance

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/validation"
)

// instanceStrategy is what our TemplateInstances' strategy implements.
type instanceStrategy interface {
	rest.RESTCreateUpdateStrategy
	rest.RESTDeleteStrategy
	rest.ResetFieldsStrategy
}

// strategy is our TemplateInstances' strategy, so that the requester is always the caller and
// validation and the finalizer are ours; its errors name OpenShift's fields where an
// OpenShift client wrote them (spec.secret, spec.template).
type strategy struct {
	instanceStrategy
}

var _ instanceStrategy = strategy{}

func newStrategy(s instanceStrategy) strategy { return strategy{s} }

// GetResetFields says status is the controller's in OpenShift's version too.
func (s strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	fields := map[fieldpath.APIVersion]*fieldpath.Set{}
	for version, set := range s.instanceStrategy.GetResetFields() {
		fields[version] = set
	}
	fields[fieldpath.APIVersion(openshift.SchemeGroupVersion.String())] = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	return fields
}

// Validate is ours, its errors in OpenShift's field names.
func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return openshiftPaths(obj, s.instanceStrategy.Validate(ctx, obj))
}

// ValidateUpdate is ours, its errors in OpenShift's field names.
func (s strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return openshiftPaths(obj, s.instanceStrategy.ValidateUpdate(ctx, obj, old))
}

// openshiftPaths renames the fields of errs that an OpenShift client wrote under another name:
// the last parametersFrom source is spec.secret, and a missing template is spec.template's;
// the list is then ordered by the new names, as every 422 of ours is.
func openshiftPaths(obj runtime.Object, errs field.ErrorList) field.ErrorList {
	ti := obj.(*templates.TemplateInstance)
	secret := fmt.Sprintf("spec.parametersFrom[%d].secretRef", len(ti.Spec.ParametersFrom)-1)
	for _, e := range errs {
		switch {
		case strings.HasPrefix(e.Field, secret):
			e.Field = "spec.secret" + strings.TrimPrefix(e.Field, secret)
		case e.Field == "spec.templateRef" && e.Type == field.ErrorTypeRequired && ti.Spec.TemplateRef == nil:
			e.Field = "spec.template"
		}
	}
	return validation.SortByField(errs)
}
