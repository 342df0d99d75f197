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

package v1alpha1

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of Stencil templates.
const GroupName = "templates.stencil.dev"

// SchemeGroupVersion is the group version used to register these objects.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Resource returns the group-qualified resource.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

var (
	// SchemeBuilder collects the functions that add this version to a scheme.
	SchemeBuilder      runtime.SchemeBuilder
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme adds this version's types, conversions and defaults to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func init() {
	// Only hand-written functions are registered here; the generated files register their own,
	// so the package compiles even before code generation has run.
	localSchemeBuilder.Register(addKnownTypes, addDefaultingFuncs)
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&Template{},
		&TemplateList{},
		&TemplateParameters{},
		&CustomTransform{},
		&CustomTransformList{},
		&TemplateInstance{},
		&TemplateInstanceList{},
		&TemplateRevision{},
		&TemplateRevisionList{},
		&TemplatePreview{},
		&Adoption{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	// A Template's revisions are listed by its name: -l templates.stencil.dev/template=NAME,
	// or --field-selector template=NAME.
	return scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind("TemplateRevision"), func(label, value string) (string, string, error) {
		switch label {
		case "metadata.name", "metadata.namespace", "template":
			return label, value, nil
		}
		return "", "", fmt.Errorf("field label not supported: %s", label)
	})
}
