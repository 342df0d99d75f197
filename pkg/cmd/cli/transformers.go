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
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform"
)

// TransformersOptions are the flags of stencil transformers.
type TransformersOptions struct {
	Name     string
	Filename string
	Local    bool
	Output   string

	config  *ConfigFlags
	streams IOStreams
}

// NewTransformersCommand returns stencil transformers, which prints a template's consolidated,
// ordered transformer list without running it: the Composition KEP's debugging view.
func NewTransformersCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &TransformersOptions{config: config, streams: streams}
	cmd := &cobra.Command{
		Use:   "transformers (NAME | --local -f FILENAME)",
		Short: "Print the consolidated transformer list of a template",
		Long: "Print the transformers a template runs, in the order it runs them: the lists it imports\n" +
			"with transformersFrom (read from the server), its own transformers, its overrides applied\n" +
			"and its transformerOrder. Each config is preceded by where it was written. Nothing runs.",
		Example: "  stencil transformers my-app\n  stencil transformers --local -f app.yaml -o json",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			return o.Run()
		},
	}
	cmd.Flags().StringVarP(&o.Filename, "filename", "f", "", "the template file, or - for standard input (with --local)")
	cmd.Flags().BoolVar(&o.Local, "local", false, "read the template from -f; a template that imports others needs the server")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml or json")
	return cmd
}

// Run consolidates and prints the list.
func (o *TransformersOptions) Run() error {
	if o.Output != "yaml" && o.Output != "json" {
		return fmt.Errorf("--output must be yaml or json, not %q", o.Output)
	}
	var (
		t    *templates.Template
		file *process.TemplateFile
		get  transform.TemplateGetter
	)
	switch {
	case o.Local && o.Filename != "" && o.Name == "":
		read := &ProcessOptions{streams: o.streams, Filenames: []string{o.Filename}}
		f, err := read.decodeTemplateFile()
		if err != nil {
			return err
		}
		t, file = f.Template, f
	case !o.Local && o.Name != "" && o.Filename == "":
		cs, namespace, err := newClient(o.config, o.streams)
		if err != nil {
			return err
		}
		if t, err = getTemplate(cs, namespace, o.Name); err != nil {
			return err
		}
		get = func(name string) (*templates.Template, error) { return getTemplate(cs, namespace, name) }
	default:
		return errors.New("give a stored template's NAME, or --local -f FILENAME")
	}
	configs, errs := transform.Consolidate(t, get)
	if len(errs) > 0 {
		return &processingError{template: t, errs: errs, file: file}
	}
	render := transform.RenderYAML
	if o.Output == "json" {
		render = transform.RenderJSON
	}
	out, err := render(configs)
	if err != nil {
		return err
	}
	_, err = o.streams.Out.Write(out)
	return err
}
