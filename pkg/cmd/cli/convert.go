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
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// The forms stencil convert writes.
const (
	formStencil   = "stencil"
	formOpenShift = "openshift"
)

// ConvertOptions are the flags of stencil convert.
type ConvertOptions struct {
	// Filename is the template file, or - for standard input.
	Filename string
	// To is the form to write: stencil or openshift; empty means the other form than the input's.
	To string
	// Output is yaml or json.
	Output string

	streams IOStreams
}

// NewConvertCommand returns stencil convert, which rewrites a Template in the other API's form.
func NewConvertCommand(streams IOStreams) *cobra.Command {
	o := &ConvertOptions{streams: streams, Output: "yaml"}
	cmd := &cobra.Command{
		Use:   "convert -f FILENAME [--to stencil|openshift]",
		Short: "Rewrite a template as a templates.stencil.dev or a template.openshift.io Template",
		Long: "Rewrite a Template in the form of the other API group, without loss: converting back gives\n" +
			"the same Template. An OpenShift template becomes a templates.stencil.dev/v1alpha1 Template\n" +
			"with dialect OpenShift, which Stencil processes exactly as before; what OpenShift's form has\n" +
			"no field for (transformers, parameter types and constraints) is kept in the annotation\n" +
			openshift.StencilFieldsAnnotation + ". Objects are copied byte for byte.",
		Example: "  stencil convert -f mysql-persistent.json > mysql.yaml\n  stencil convert -f mysql.yaml --to openshift -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	cmd.Flags().StringVarP(&o.Filename, "filename", "f", "", "the template file, or - for standard input")
	cmd.Flags().StringVar(&o.To, "to", "", "the form to write: stencil or openshift (default: the other one)")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml or json")
	return cmd
}

// Validate checks the flags before anything is read.
func (o *ConvertOptions) Validate() error {
	switch {
	case o.Filename == "":
		return fmt.Errorf("give the template file with -f (- for standard input)")
	case o.To != "" && o.To != formStencil && o.To != formOpenShift:
		return fmt.Errorf("--to must be stencil or openshift, not %q", o.To)
	case o.Output != "yaml" && o.Output != "json":
		return fmt.Errorf("--output must be yaml or json, not %q", o.Output)
	}
	return nil
}

// Run reads the template and writes it in the asked form.
func (o *ConvertOptions) Run() error {
	read := &ProcessOptions{streams: o.streams, Filenames: []string{o.Filename}}
	f, err := read.decodeTemplateFile()
	if err != nil {
		return err
	}
	t := f.Template
	to := o.To
	if to == "" {
		to = formOpenShift
		if t.APIVersion != v1alpha1.SchemeGroupVersion.String() {
			to = formStencil
		}
	}
	out, err := ConvertTemplate(t, to)
	if err != nil {
		return err
	}
	if o.Output == "yaml" {
		if out, err = jsonbytes.ToYAML(out); err != nil {
			return err
		}
	} else {
		if out, err = jsonbytes.Indent(out, "    "); err != nil {
			return err
		}
		out = append(out, '\n')
	}
	_, err = o.streams.Out.Write(out)
	return err
}

// ConvertTemplate writes t as JSON in the given form, stencil or openshift, with its objects as
// they are.
func ConvertTemplate(t *templates.Template, form string) ([]byte, error) {
	var versioned interface{}
	var meta interface{}
	switch form {
	case formOpenShift:
		var out openshift.Template
		if err := openshift.FromInternal(t, &out); err != nil {
			return nil, err
		}
		versioned, meta = &out, &out.ObjectMeta
	case formStencil:
		var out v1alpha1.Template
		if err := v1alpha1.Convert_templates_Template_To_v1alpha1_Template(t, &out, nil); err != nil {
			return nil, err
		}
		out.APIVersion, out.Kind = v1alpha1.SchemeGroupVersion.String(), "Template"
		versioned, meta = &out, &out.ObjectMeta
	default:
		return nil, fmt.Errorf("unknown form %q: stencil or openshift", form)
	}
	data, err := json.Marshal(versioned)
	if err != nil {
		return nil, err
	}
	// A file written for people has no "creationTimestamp: null"; only the template's own
	// metadata loses it, never an object's.
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	cleaned := metaJSON
	for _, null := range []string{`,"creationTimestamp":null`, `"creationTimestamp":null,`, `"creationTimestamp":null`} {
		if bytes.Contains(cleaned, []byte(null)) {
			cleaned = bytes.Replace(cleaned, []byte(null), nil, 1)
			break
		}
	}
	prefix := []byte(`"metadata":`)
	return bytes.Replace(data, append(prefix, metaJSON...), append(prefix, cleaned...), 1), nil
}
