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

package process

import (
	"bytes"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/install"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// scheme converts our versioned Template to the internal one, with defaults applied.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	install.Install(s)
	return s
}()

// DecodeTemplate reads a Template from JSON or YAML: ours (templates.stencil.dev/v1alpha1), an
// OpenShift template.openshift.io/v1 Template, or the legacy "apiVersion: v1, kind: Template"
// that oc also accepts. It returns the Template and the dialect to process it by. Of a YAML
// stream only the first document is read, as oc does.
func DecodeTemplate(data []byte) (t *templates.Template, d Dialect, err error) {
	// No input may panic this function; the YAML library is the only part not written here.
	defer func() {
		if r := recover(); r != nil {
			t, d, err = nil, Stencil, fmt.Errorf("cannot read the template: %v", r)
		}
	}()
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, Stencil, fmt.Errorf("the input is empty")
	}
	if trimmed[0] != '{' {
		// JSON input keeps its exact bytes (and big numbers); YAML is converted as kubectl does.
		if data, err = yaml.YAMLToJSON(data); err != nil {
			return nil, Stencil, fmt.Errorf("cannot read the template as YAML: %v", err)
		}
	}
	var header metav1.TypeMeta
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &header); err != nil {
		return nil, Stencil, fmt.Errorf("cannot read the template: %v", err)
	}
	if header.Kind != "Template" {
		return nil, Stencil, fmt.Errorf("not a Template: the input is kind %q, apiVersion %q", header.Kind, header.APIVersion)
	}
	switch header.APIVersion {
	case v1alpha1.SchemeGroupVersion.String():
		t, err := decodeStencil(data)
		return t, Stencil, err
	case openshift.SchemeGroupVersion.String(), openshift.LegacyGroupVersion.String():
		t, err := decodeOpenShift(data)
		return t, OpenShift, err
	}
	return nil, Stencil, fmt.Errorf("unsupported Template apiVersion %q: use %s, %s or %s",
		header.APIVersion, v1alpha1.SchemeGroupVersion, openshift.SchemeGroupVersion, openshift.LegacyGroupVersion)
}

func decodeStencil(data []byte) (*templates.Template, error) {
	var versioned v1alpha1.Template
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &versioned); err != nil {
		return nil, fmt.Errorf("cannot read the template: %v", err)
	}
	scheme.Default(&versioned)
	t := &templates.Template{}
	if err := scheme.Convert(&versioned, t, nil); err != nil {
		return nil, fmt.Errorf("cannot convert the template: %v", err)
	}
	return t, nil
}

func decodeOpenShift(data []byte) (*templates.Template, error) {
	var in openshift.Template
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &in); err != nil {
		return nil, fmt.Errorf("cannot read the OpenShift template: %v", err)
	}
	t := &templates.Template{}
	openshift.ToInternal(&in, t)
	return t, nil
}
