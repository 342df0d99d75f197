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
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
)

// ProcessOptions are the flags and inputs of stencil process.
type ProcessOptions struct {
	Filename                string
	Params                  []string
	ParamFile               string
	Labels                  []string
	IgnoreUnknownParameters bool
	Output                  string
	ShowParameters          bool
	Local                   bool

	// Generator replaces crypto/rand for generated values; tests set it.
	Generator process.Generator

	streams IOStreams
}

// errRemoteUnavailable is returned until stencil process can talk to a Stencil server.
var errRemoteUnavailable = errors.New("processing on a Stencil server is not available in this build yet: " +
	"give the template with -f and add --local to process it here")

// NewProcessCommand returns stencil process.
func NewProcessCommand(streams IOStreams) *cobra.Command {
	o := &ProcessOptions{streams: streams}
	cmd := &cobra.Command{
		Use:   "process (-f FILENAME | -f -) --local [-p KEY=VALUE]...",
		Short: "Process a template into a v1 List of objects",
		Long: "Process a Template: substitute its parameters, apply its labels, and print the objects as a\n" +
			"v1 List that kubectl apply -f - accepts. Both templates.stencil.dev Templates and OpenShift\n" +
			"Templates (template.openshift.io/v1, or the legacy v1 Template) are accepted, as JSON or YAML.\n" +
			"With --local the template is processed here, with no server.",
		Example: "  # Process a template locally and apply its objects\n" +
			"  stencil process --local -f mysql.json -p MYSQL_USER=u | kubectl apply -f -\n\n" +
			"  # List a template's parameters\n" +
			"  stencil process --local -f mysql.json --parameters",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return err
			}
			return o.Run()
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.Filename, "filename", "f", "", "the template file, or - for standard input")
	flags.StringArrayVarP(&o.Params, "param", "p", nil, "a parameter value as KEY=VALUE (repeatable)")
	flags.StringVar(&o.ParamFile, "param-file", "", "a file of KEY=VALUE lines, or - for standard input; -p wins over it")
	flags.StringArrayVarP(&o.Labels, "labels", "l", nil, "object labels to add, as key=value,key2=value2 (repeatable)")
	flags.BoolVar(&o.IgnoreUnknownParameters, "ignore-unknown-parameters", false, "accept values for parameters the template does not declare")
	flags.StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml or json")
	flags.BoolVar(&o.ShowParameters, "parameters", false, "print the template's parameters instead of processing it")
	flags.BoolVar(&o.Local, "local", false, "process the template here instead of on a Stencil server")
	return cmd
}

// Validate checks the flags before anything is read.
func (o *ProcessOptions) Validate(args []string) error {
	var problems []string
	if o.Output != "yaml" && o.Output != "json" {
		problems = append(problems, fmt.Sprintf("--output must be yaml or json, not %q", o.Output))
	}
	if o.Local && len(args) > 0 {
		problems = append(problems, fmt.Sprintf("unexpected arguments %q: with --local the template is given by -f", args))
	}
	if o.Local && o.Filename == "" {
		problems = append(problems, "-f is required with --local (use -f - for standard input)")
	}
	if o.Filename == "-" && o.ParamFile == "-" {
		problems = append(problems, "standard input can be read only once: -f - and --param-file - cannot go together")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n       "))
	}
	return nil
}

// Run processes the template and prints the List.
func (o *ProcessOptions) Run() error {
	if !o.Local {
		return errRemoteUnavailable
	}
	data, err := o.read(o.Filename)
	if err != nil {
		return err
	}
	tmpl, dialect, err := process.DecodeTemplate(data)
	if err != nil {
		return fmt.Errorf("%s: %v", o.Filename, err)
	}
	if o.ShowParameters {
		return printParameters(o.streams.Out, tmpl.Parameters)
	}
	req, err := o.request()
	if err != nil {
		return err
	}
	result, errs := process.Process(tmpl, dialect, req)
	if len(errs) > 0 {
		return &processingError{template: tmpl, errs: errs}
	}
	for _, w := range result.Warnings {
		fmt.Fprintf(o.streams.ErrOut, "Warning: %s\n", w)
	}
	return printList(o.streams.Out, result.List(), o.Output)
}

// read returns the contents of a file, or of standard input for "-".
func (o *ProcessOptions) read(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(o.streams.In)
	}
	return os.ReadFile(name)
}

// processingError lists every problem of a template that could not be processed.
type processingError struct {
	template *templates.Template
	errs     field.ErrorList
}

func (e *processingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unable to process template %q:", e.template.Name)
	for _, err := range e.errs {
		fmt.Fprintf(&b, "\n  * %s", err.Error())
	}
	return b.String()
}
