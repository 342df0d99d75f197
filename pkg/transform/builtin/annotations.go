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

package builtin

import (
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// AnnotationsConfig is the config of AnnotationsTransformer (Kustomize's commonAnnotations).
type AnnotationsConfig struct {
	transform.ConfigMeta
	// Annotations are the annotations to set.
	Annotations map[string]string `json:"annotations,omitempty"`
	// FieldSpecs, when given, replace the default fields (metadata and pod templates).
	FieldSpecs []filters.FieldSpec `json:"fieldSpecs,omitempty"`
}

func newAnnotationsTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c AnnotationsConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	var errs field.ErrorList
	for k := range c.Annotations {
		errs = append(errs, metav1validation.ValidateLabelName(k, fldPath.Child("annotations").Key(k))...)
	}
	specs, specErrs := filters.CompileFieldSpecs(c.FieldSpecs, fldPath.Child("fieldSpecs"))
	errs = append(errs, specErrs...)
	return newMapSetter("annotations", c.Annotations, filters.WithDefaults(defaultAnnotations, specs, c.FieldSpecs != nil)), errs
}
