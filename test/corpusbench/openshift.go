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

package corpusbench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"

	templatev1 "github.com/openshift/api/template/v1"
	"github.com/openshift/library-go/pkg/template/generator"
	"github.com/openshift/library-go/pkg/template/templateprocessing"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// OpenShift decodes and processes template files as `oc process --local -f FILE -p ...` does:
// the file read by the YAMLOrJSONDecoder of cli-runtime's resource builder (empty documents
// skipped), the document decoded by the universal decoder of a scheme that knows
// template.openshift.io/v1 (the legacy "v1" spelling too), the -p values set on the
// parameters, and library-go's Processor with its expression generator.
type OpenShift struct {
	decoder   runtime.Decoder
	processor *templateprocessing.Processor
}

// NewOpenShift returns OpenShift's processor.
func NewOpenShift() (*OpenShift, error) {
	scheme := runtime.NewScheme()
	if err := templatev1.Install(scheme); err != nil {
		return nil, err
	}
	// oc's scheme reads the legacy spelling (apiVersion: v1, kind: Template) as the same type.
	if err := templatev1.DeprecatedInstallWithoutGroup(scheme); err != nil {
		return nil, err
	}
	codecs := serializer.NewCodecFactory(scheme)
	gvs := []schema.GroupVersion{templatev1.GroupVersion, {Version: "v1"}}
	return &OpenShift{
		decoder: codecs.UniversalDecoder(gvs...),
		processor: templateprocessing.NewProcessor(map[string]generator.Generator{
			"expression": generator.NewExpressionValueGenerator(rand.New(rand.NewSource(1))),
		}),
	}, nil
}

// Process decodes file and processes it with values; it fails when OpenShift reports a
// problem, so that a benchmark never measures a path that gave up early.
func (o *OpenShift) Process(file []byte, values []Value) (*templatev1.Template, error) {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(file), 4096)
	var t *templatev1.Template
	for t == nil {
		var ext runtime.RawExtension
		if err := decoder.Decode(&ext); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("no template in the file")
			}
			return nil, err
		}
		ext.Raw = bytes.TrimSpace(ext.Raw)
		if len(ext.Raw) == 0 || bytes.Equal(ext.Raw, []byte("null")) {
			continue
		}
		obj, _, err := o.decoder.Decode(ext.Raw, nil, nil)
		if err != nil {
			return nil, err
		}
		var ok bool
		if t, ok = obj.(*templatev1.Template); !ok {
			return nil, fmt.Errorf("the file holds a %T", obj)
		}
	}
	for _, v := range values {
		for i := range t.Parameters {
			if t.Parameters[i].Name == v.Name {
				t.Parameters[i].Value = v.Value
			}
		}
	}
	if errs := o.processor.Process(t); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return t, nil
}
