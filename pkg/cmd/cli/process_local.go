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
	"path/filepath"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/cmd/options"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/provenance"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/remove"
)

// processLocal processes the template file here, with the server's own processing library, and
// the CustomTransforms of the further -f files; withProvenance also returns where every field
// came from.
func (o *ProcessOptions) processLocal(req process.Request, withProvenance bool) (jsonbytes.Compacted, *provenance.Map, error) {
	f, err := o.readTemplateFile(withProvenance)
	if err != nil {
		return nil, nil, err
	}
	var trace *render.ProvenanceOptions
	if withProvenance {
		trace = o.provenanceOptions(f)
	}
	return o.renderLocal(f, req, trace)
}

// provenanceOptions ask for the provenance of the template of f, placed in its file.
func (o *ProcessOptions) provenanceOptions(f *process.TemplateFile) *render.ProvenanceOptions {
	trace := &render.ProvenanceOptions{Annotate: o.ProvenanceAnnotations, Source: o.Filenames[0]}
	if x := f.Positions(); x != nil {
		trace.Positions = x
	}
	return trace
}

// renderLocal processes the template of f here.
func (o *ProcessOptions) renderLocal(f *process.TemplateFile, req process.Request, trace *render.ProvenanceOptions) (jsonbytes.Compacted, *provenance.Map, error) {
	t := f.Template
	properties, destinations, err := o.expansion()
	if err != nil {
		return nil, nil, err
	}
	var rules []remove.Rule
	for _, name := range o.Filenames[1:] {
		fileRules, err := o.readRemovalRules(name)
		if err != nil {
			return nil, nil, err
		}
		rules = append(rules, fileRules...)
	}
	config, plugins, err := o.localProcessing()
	if err != nil {
		return nil, nil, err
	}
	out, errs, err := render.NewRenderer(render.Options{Config: config}).Render(context.Background(), render.Input{
		Template:     t,
		Request:      req,
		Properties:   properties,
		Destinations: destinations,
		RemovalRules: rules,
		Plugins:      plugins,
		Provenance:   trace,
	})
	if err != nil {
		return nil, nil, err
	}
	if out != nil {
		for _, w := range out.Warnings {
			fmt.Fprintln(o.streams.ErrOut, placedWarning(f.Positions(), w))
		}
	}
	if len(errs) > 0 {
		return nil, nil, &processingError{template: t, errs: errs, file: f}
	}
	// The engine writes valid, compact JSON, and so does the transformers' encoder.
	return jsonbytes.Compacted(out.List()), out.Provenance, nil
}

// localProcessing returns the settings and plugins of --local processing: the server's
// defaults, from the same options, with Starlark always on (provider.starlark.path read beside
// the template file) and, with --enable-exec, the plugins of --plugin-dir under the server's
// default bounds.
func (o *ProcessOptions) localProcessing() (render.Config, plugin.Policy, error) {
	var config render.Config
	starlark := options.NewStarlarkOptions()
	options.NewProcessingOptions().ApplyTo(&config)
	starlark.ApplyTo(&config)
	plugins := plugin.Policy{Starlark: true, LocalFiles: true}
	if name := o.Filenames[0]; name != "-" {
		abs, err := filepath.Abs(name)
		if err != nil {
			return config, plugins, err
		}
		plugins.LocalDir = filepath.Dir(abs)
	}
	if o.EnableExec {
		execPlugins := options.NewExecPluginOptions()
		execPlugins.Dir = o.PluginDir
		policy, err := execPlugins.Policy()
		if err != nil {
			return config, plugins, err
		}
		plugins.Exec = policy
	}
	return config, plugins, nil
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
		rule, err := removalRule(&ct)
		if err != nil {
			return nil, fmt.Errorf("%s, document %d: %w", name, doc, err)
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// removalRule builds the rule of a CustomTransform read from a file, refusing it, with the
// server's field paths and message, when the server would refuse to store it.
func removalRule(versioned *v1alpha1.CustomTransform) (remove.Rule, error) {
	var ct templates.CustomTransform
	if err := v1alpha1.Convert_v1alpha1_CustomTransform_To_templates_CustomTransform(versioned, &ct, nil); err != nil {
		return remove.Rule{}, err
	}
	// The server names the object before validating it.
	if ct.Name == "" && ct.GenerateName != "" {
		ct.Name = names.SimpleNameGenerator.GenerateName(ct.GenerateName)
	}
	errs := validation.ValidateCustomTransform(&ct)
	rule, pathErrs := remove.RuleFor(&ct)
	if errs = append(errs, pathErrs...); len(errs) > 0 {
		return remove.Rule{}, apierrors.NewInvalid(templates.Kind("CustomTransform"), ct.Name, errs)
	}
	return rule, nil
}
