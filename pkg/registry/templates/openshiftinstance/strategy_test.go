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
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/install"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/registry/templates/templateinstance"
)

// TestValidateNamesOpenShiftFields checks that our validation's errors name the fields an
// OpenShift client wrote: the Secret as spec.secret, a missing template as spec.template.
func TestValidateNamesOpenShiftFields(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	s := newStrategy(templateinstance.NewStrategy(scheme, templateinstance.Capabilities{NoCluster: true}))
	ti := &templates.TemplateInstance{Spec: templates.TemplateInstanceSpec{ParametersFrom: []templates.ParametersSource{
		{SecretRef: &templates.SecretReference{Name: "first"}}, {SecretRef: &templates.SecretReference{Name: "Not_A_Name"}}}}}
	ti.Name, ti.Namespace = "x", "default"
	errs := s.Validate(genericapirequest.NewDefaultContext(), ti)
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field)
	}
	if got := strings.Join(fields, " "); got != "spec.secret.name spec.template" {
		t.Errorf("fields %q: %v", got, errs)
	}
	if errs := openshiftPaths(ti, field.ErrorList{field.Invalid(field.NewPath("spec", "parametersFrom").Index(0).Child("secretRef", "name"), "", "")}); errs[0].Field != "spec.parametersFrom[0].secretRef.name" {
		t.Errorf("an earlier source was renamed: %s", errs[0].Field)
	}
	if _, ok := s.GetResetFields()["template.openshift.io/v1"]; !ok {
		t.Error("no reset fields for template.openshift.io/v1")
	}
}

// TestTemplateName checks the TEMPLATE column: the stored template's name or the inline one's.
func TestTemplateName(t *testing.T) {
	for _, tc := range []struct {
		spec templates.TemplateInstanceSpec
		want string
	}{
		{templates.TemplateInstanceSpec{TemplateRef: &templates.TemplateReference{Name: "stored"}}, "stored"},
		{templates.TemplateInstanceSpec{Template: &runtime.RawExtension{Raw: []byte(`{"kind":"Template","metadata":{"name":"inline"}}`)}}, "inline"},
		{templates.TemplateInstanceSpec{Template: &runtime.RawExtension{Raw: []byte(`not json`)}}, ""},
	} {
		if got := templateName(&tc.spec); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.spec, got, tc.want)
		}
	}
}

// TestSizeLimit checks that template.openshift.io's instances get our 422 for an instance
// etcd would refuse, at OpenShift's spec.template, and our limit on parametersFrom.
func TestSizeLimit(t *testing.T) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	s := newStrategy(templateinstance.NewStrategy(scheme, templateinstance.Capabilities{NoCluster: true}))
	ti := &templates.TemplateInstance{Spec: templates.TemplateInstanceSpec{Template: &runtime.RawExtension{Raw: []byte(
		`{"apiVersion":"template.openshift.io/v1","kind":"Template","objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"` +
			strings.Repeat("v", 2_000_000) + `"}}]}`)}}}
	ti.Name, ti.Namespace, ti.ResourceVersion = "x", "default", "1"
	for i := range validation.MaxParametersFrom + 1 {
		ti.Spec.ParametersFrom = append(ti.Spec.ParametersFrom, templates.ParametersSource{SecretRef: &templates.SecretReference{Name: fmt.Sprint("s", i)}})
	}
	for _, errs := range []field.ErrorList{s.Validate(genericapirequest.NewDefaultContext(), ti), s.ValidateUpdate(genericapirequest.NewDefaultContext(), ti, ti.DeepCopy())} {
		var got []string
		for _, e := range errs {
			got = append(got, e.Field+" "+string(e.Type))
		}
		if strings.Join(got, ", ") != "spec.parametersFrom FieldValueTooMany, spec.template FieldValueTooLong" {
			t.Errorf("errors %q: %v", got, errs)
		}
	}
}
