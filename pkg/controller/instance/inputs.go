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

package instance

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// GeneratedSecretName names the Secret that keeps an instance's generated values.
func GeneratedSecretName(instance string) string { return instance + validation.GeneratedSecretSuffix }

// GeneratedSource is the Secret that keeps instance's generated values, as a source.
func GeneratedSource(instance string) inventory.Source {
	return inventory.Source{Kind: inventory.SecretKind, Name: GeneratedSecretName(instance)}
}

// ReadInputs merges the instance's values as inventory.ReadInputs does, reading its
// parametersFrom sources through read (the requester's Applier, or a cache of it). A source
// the requester may not read, or that does not exist, is the instance's failure
// (ParametersSecret), named without a value.
func ReadInputs(ti *templatesv1.TemplateInstance, t *templates.Template, read inventory.Data) (*inventory.Inputs, error) {
	return inventory.ReadInputs(ti, t, func(src inventory.Source) (map[string][]byte, error) {
		data, err := read(src)
		if err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				return nil, Fail("ParametersSecret", "%s %s/%s of parametersFrom: %s", src.Kind, ti.Namespace, src.Name, StatusMessage(err))
			}
			return nil, err
		}
		return data, nil
	})
}

// ApplierData reads sources of the instance's namespace as a, for ReadInputs.
func ApplierData(ctx context.Context, a Applier, namespace string) inventory.Data {
	return func(src inventory.Source) (map[string][]byte, error) { return a.SourceData(ctx, namespace, src) }
}

// reuseGenerated puts the values kept in the instance's Secret into inputs, but for the
// parameters whose rotation is asked for: those are generated again.
func reuseGenerated(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, names map[string]bool, inputs *inventory.Inputs) error {
	src := GeneratedSource(ti.Name)
	data, err := a.SourceData(ctx, ti.Namespace, src)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if apierrors.IsForbidden(err) {
		return Fail("Forbidden", "reading the generated values in Secret %s/%s: %s", ti.Namespace, src.Name, StatusMessage(err))
	}
	if err != nil {
		return err
	}
	inputs.Keep(src, data, names, RotationRequest(ti))
	return nil
}

// RotationRequest is the set of parameters the rotation annotation names.
func RotationRequest(ti *templatesv1.TemplateInstance) map[string]bool {
	set := map[string]bool{}
	for _, n := range strings.Split(ti.Annotations[templatesv1.AnnotationRotateGeneratedParameters], ",") {
		if n = strings.TrimSpace(n); n != "" {
			set[n] = true
		}
	}
	return set
}
