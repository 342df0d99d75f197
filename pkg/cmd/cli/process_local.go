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

package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform/remove"
)

// processLocal processes the template file here, with the server's own processing library, and
// the CustomTransforms of the further -f files.
func (o *ProcessOptions) processLocal(req process.Request) ([]byte, error) {
	data, err := o.read(o.Filenames[0])
	if err != nil {
		return nil, err
	}
	t, _, err := process.DecodeTemplate(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", o.Filenames[0], err)
	}
	properties, destinations, err := o.expansion()
	if err != nil {
		return nil, err
	}
	var rules []remove.Rule
	for _, name := range o.Filenames[1:] {
		fileRules, err := o.readRemovalRules(name)
		if err != nil {
			return nil, err
		}
		rules = append(rules, fileRules...)
	}
	out, errs, err := render.NewRenderer(nil).Render(context.Background(), render.Input{
		Template:     t,
		Request:      req,
		Properties:   properties,
		Destinations: destinations,
		RemovalRules: rules,
	})
	if err != nil {
		return nil, err
	}
	if out != nil {
		for _, w := range out.Warnings {
			fmt.Fprintf(o.streams.ErrOut, "Warning: %s\n", w)
		}
	}
	if len(errs) > 0 {
		return nil, &processingError{template: t, errs: errs}
	}
	return out.List(), nil
}

// readRemovalRules reads the CustomTransforms of a YAML or JSON file, one or more documents.
func (o *ProcessOptions) readRemovalRules(name string) ([]remove.Rule, error) {
	data, err := o.read(name)
	if err != nil {
		return nil, err
	}
	var rules []remove.Rule
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var ct v1alpha1.CustomTransform
		if err := yaml.UnmarshalStrict(raw, &ct); err != nil {
			return nil, fmt.Errorf("%s, document %d: %v", name, doc, err)
		}
		if ct.Kind != "CustomTransform" || ct.APIVersion != v1alpha1.SchemeGroupVersion.String() {
			return nil, fmt.Errorf("%s, document %d: want a %s CustomTransform, got %s %s", name, doc, v1alpha1.SchemeGroupVersion, ct.APIVersion, ct.Kind)
		}
		paths, errs := remove.ParsePaths(ct.Spec.Remove, field.NewPath("spec", "remove"))
		if len(errs) > 0 {
			return nil, fmt.Errorf("%s: CustomTransform %q: %v", name, ct.Name, errs.ToAggregate())
		}
		rules = append(rules, remove.Rule{
			Name: ct.Name, APIGroup: ct.Spec.APIGroup, Resource: ct.Spec.Resource, Kind: ct.Spec.Kind, Paths: paths,
		})
	}
	return rules, nil
}
