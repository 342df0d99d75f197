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

// Package fuzzer fills the internal types of the templates group with random values that a
// round trip through every served version must keep.
package fuzzer

import (
	"encoding/json"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeserializer "k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
)

// Funcs returns the fuzzer functions of the templates group, for
// k8s.io/apimachinery/pkg/api/apitesting/roundtrip.
var Funcs = func(runtimeserializer.CodecFactory) []interface{} {
	return []interface{}{
		func(i *templates.TransformerImport, c randfill.Continue) {
			c.FillNoCustom(i)
			// Decoding defaults an empty mode to prepend, so an empty one would not come back.
			if c.Bool() {
				i.ImportMode = templates.ImportModePrepend
			} else {
				i.ImportMode = templates.ImportModeAppend
			}
		},
		rawObject,
		instanceSpec,
		bound,
	}
}

// bound fills a Bound as a decoder makes one: a number as written, or a string holding any
// text (validation, not decoding, judges it).
func bound(b *templates.Bound, c randfill.Continue) {
	switch c.Intn(3) {
	case 0:
		*b = templates.Bound(strconv.FormatInt(c.Int63()-c.Int63(), 10))
	case 1:
		*b = templates.Bound(strconv.FormatFloat(c.Float64()*1000, 'g', -1, 64))
	default:
		*b = templates.NewBound(c.String(0))
	}
}

// instanceSpec fills a TemplateInstanceSpec whose inline template is, in turn, one that
// template.openshift.io shows exactly (written as that group writes it), one of Stencil's form
// (shown converted, its text kept aside), or any raw object.
func instanceSpec(s *templates.TemplateInstanceSpec, c randfill.Continue) {
	c.FillNoCustom(s)
	objects := make([]runtime.RawExtension, c.Intn(3))
	for i := range objects {
		rawObject(&objects[i], c)
	}
	var (
		raw []byte
		err error
	)
	switch c.Intn(3) {
	case 0:
		raw, err = json.Marshal(&openshift.Template{
			TypeMeta:   metav1.TypeMeta{APIVersion: openshift.SchemeGroupVersion.String(), Kind: "Template"},
			ObjectMeta: metav1.ObjectMeta{Name: randomName(c)},
			Message:    c.String(0),
			Objects:    objects,
			Parameters: []openshift.Parameter{{Name: randomName(c), Value: c.String(0), Required: c.Bool()}},
		})
	case 1:
		raw, err = json.Marshal(map[string]interface{}{
			"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template",
			"metadata": map[string]interface{}{"name": randomName(c)},
			"objects":  objects, "parameters": []interface{}{map[string]interface{}{"name": randomName(c), "type": "integer"}},
		})
	default:
		return
	}
	if err != nil {
		panic(err)
	}
	s.Template = &runtime.RawExtension{Raw: raw}
}

// rawObject fills a RawExtension as a template holds one: a Kubernetes object (or a
// transformer config), whose strings may refer to parameters. The bytes are what encoding/json
// writes for a map, compact with sorted keys, as serializers write them back; Object stays nil,
// since only Raw is serialized.
func rawObject(r *runtime.RawExtension, c randfill.Continue) {
	data := map[string]interface{}{}
	for n := c.Intn(4); n > 0; n-- {
		value := c.String(0)
		if c.Bool() {
			value = fmt.Sprintf("${%s}-%s", randomName(c), value)
		}
		data[c.String(0)] = value
	}
	obj := map[string]interface{}{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]interface{}{
			"name":   randomName(c),
			"labels": map[string]interface{}{"app": "${{" + randomName(c) + "}}"},
		},
		"data":     data,
		"replicas": c.Intn(1000),
		"enabled":  c.Bool(),
		"items":    []interface{}{c.String(0), nil, c.Intn(10)},
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	*r = runtime.RawExtension{Raw: raw}
}

// randomName returns a parameter name: letters, digits and underscores, not starting with a
// digit.
func randomName(c randfill.Continue) string {
	const first = "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"
	const rest = first + "0123456789"
	b := []byte{first[c.Intn(len(first))]}
	for n := c.Intn(12); n > 0; n-- {
		b = append(b, rest[c.Intn(len(rest))])
	}
	return string(b)
}
