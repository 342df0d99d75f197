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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	stencilclient "stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/provenance"
)

// processStored processes a stored template through templates/NAME/processed.
func (o *ProcessOptions) processStored(req process.Request) ([]byte, error) {
	cs, namespace, err := newClient(o.config, o.streams)
	if err != nil {
		return nil, err
	}
	properties, destinations, err := o.expansion()
	if err != nil {
		return nil, err
	}
	params := &v1alpha1.TemplateParameters{
		Parameters:              req.Parameters,
		Labels:                  req.Labels,
		IgnoreUnknownParameters: req.IgnoreUnknownParameters,
		Properties:              properties,
	}
	for _, d := range destinations {
		params.Destinations = append(params.Destinations, v1alpha1.Destination{Name: d.Name})
	}
	var list *v1alpha1.List
	if o.Provenance != "" {
		list = &v1alpha1.List{}
		err = cs.RESTClient().Post().Namespace(namespace).Resource("templates").Name(o.Name).SubResource("processed").
			Param(provenanceParameter, "true").Body(params).Do(context.Background()).Into(list)
	} else {
		list, err = cs.Templates(namespace).Process(context.Background(), o.Name, params, metav1.CreateOptions{})
	}
	if err != nil {
		return nil, err
	}
	if err := o.writeServerProvenance(list, nil); err != nil {
		return nil, err
	}
	return listBytes(list)
}

// writeServerProvenance writes the provenance a server answered to --provenance's file,
// placing the fields of a template read from a file at its lines (the server saw a body
// without a name, and a stored template has no file).
func (o *ProcessOptions) writeServerProvenance(list *v1alpha1.List, f *process.TemplateFile) error {
	if o.Provenance == "" {
		return nil
	}
	m := list.Provenance
	if m == nil {
		return fmt.Errorf("the server answered no provenance: it is older than ?provenance=true")
	}
	if f != nil {
		x := f.Positions()
		for i := range m.Steps {
			if s := m.Steps[i].Source; s != nil && s.Line == 0 {
				located := provenance.Locate(*s, x)
				m.Steps[i].Source = &located
			}
		}
		for i := range m.Objects {
			o := &m.Objects[i]
			o.Source = provenance.Locate(o.Source, x)
			for j := range o.Fields {
				o.Fields[j].Source = provenance.Locate(o.Fields[j].Source, x)
			}
		}
	}
	return writeProvenance(o.Provenance, m)
}

// processFile sends the template file to processedtemplates, with the values of -p written
// into its parameters and the labels of -l into its labels, as oc process does.
func (o *ProcessOptions) processFile(req process.Request) ([]byte, error) {
	f, err := o.decodeTemplateFile()
	if err != nil {
		return nil, err
	}
	t := f.Template
	body, err := o.fillTemplate(t, req)
	if err != nil {
		return nil, err
	}
	cs, namespace, err := newClient(o.config, o.streams)
	if err != nil {
		return nil, err
	}
	var list *v1alpha1.List
	if o.Provenance != "" {
		list = &v1alpha1.List{}
		err = cs.RESTClient().Post().Namespace(namespace).Resource("processedtemplates").
			Param(provenanceParameter, "true").SetHeader("Content-Type", "application/json").Body(body).Do(context.Background()).Into(list)
	} else {
		list, err = stencilclient.ProcessTemplate(context.Background(), cs.RESTClient(), namespace, body, metav1.CreateOptions{})
	}
	if err != nil {
		return nil, placedRefusal(f, err)
	}
	if err := o.writeServerProvenance(list, f); err != nil {
		return nil, err
	}
	return listBytes(list)
}

// fillTemplate returns the template as JSON with the caller's values and labels in it. Values
// for parameters the template does not declare are an error unless they may be ignored. In an
// OpenShift template a value sets only the first declaration of its name, as oc sets it.
func (o *ProcessOptions) fillTemplate(t *templates.Template, req process.Request) ([]byte, error) {
	declared := map[string]bool{}
	for _, p := range t.Parameters {
		declared[p.Name] = true
	}
	var unknown []string
	for name := range req.Parameters {
		if !declared[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 && !req.IgnoreUnknownParameters {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown parameter name %s: the template does not declare it (add --ignore-unknown-parameters to ignore)",
			strings.Join(unknown, ", "))
	}
	form := formStencil
	if t.APIVersion != v1alpha1.SchemeGroupVersion.String() {
		form = formOpenShift
	}
	data, err := ConvertTemplate(t, form)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	params, _ := doc["parameters"].([]any)
	set := map[string]bool{}
	for i, p := range params {
		if param, ok := p.(map[string]any); ok {
			if name, _ := param["name"].(string); name != "" {
				v, given := req.Parameters[name]
				if given && set[name] {
					fmt.Fprintf(o.streams.ErrOut, "Warning: parameters[%d]: %s is declared again; as oc does, the value given set only its first declaration, and OpenShift substitutes the last\n", i, name)
					continue
				}
				// An empty value leaves a generator to generate one, as on every other path.
				if given && v != "" {
					param["value"] = v
				}
				set[name] = t.OpenShift
			}
		}
	}
	if len(req.Labels) > 0 {
		key := "objectLabels"
		if t.OpenShift {
			key = "labels"
		}
		labels, _ := doc[key].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
		}
		for k, v := range req.Labels {
			labels[k] = v
		}
		doc[key] = labels
	}
	return json.Marshal(doc)
}

// getStored reads a stored template.
func (o *ProcessOptions) getStored(name string) (*templates.Template, error) {
	cs, namespace, err := newClient(o.config, o.streams)
	if err != nil {
		return nil, err
	}
	return getTemplate(cs, namespace, name)
}

func getTemplate(cs stencilclient.Interface, namespace, name string) (*templates.Template, error) {
	versioned, err := cs.Templates(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	t := &templates.Template{}
	if err := v1alpha1.Convert_v1alpha1_Template_To_templates_Template(versioned, t, nil); err != nil {
		return nil, err
	}
	return t, nil
}

// listBytes keeps only what kubectl apply reads of the server's answer: a v1 List of items.
func listBytes(list *v1alpha1.List) ([]byte, error) {
	objects := make([]json.RawMessage, len(list.Items))
	for i, item := range list.Items {
		objects[i] = item.Raw
	}
	return process.ListBytes(objects), nil
}

// provenanceParameter asks a server for the provenance of the List's items
// (renderrest.ProvenanceParameter, which the CLI does not import: it is server code).
const provenanceParameter = "provenance"
