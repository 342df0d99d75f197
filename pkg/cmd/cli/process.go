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
	// Filenames are the template (first) and, with --local, files of CustomTransforms.
	Filenames               []string
	Params                  []string
	ParamFile               string
	Labels                  []string
	IgnoreUnknownParameters bool
	Properties              []string
	Destinations            []string
	Output                  string
	OutputDir               string
	ShowParameters          bool
	ShowSecrets             bool
	Local                   bool
	// PluginDir and EnableExec run exec plugins from the user's own directory with --local,
	// as kustomize --enable-alpha-plugins --enable-exec does.
	PluginDir  string
	EnableExec bool
	// Provenance names the file the provenance of every output field is written to (JSON,
	// docs/provenance.md); ProvenanceAnnotations adds Kustomize's origin annotations.
	Provenance            string
	ProvenanceAnnotations bool

	// Name is the stored template to process, the positional argument.
	Name string
	// Generator replaces crypto/rand for generated values; tests set it.
	Generator process.Generator
	// origins say where the values of the request's parameters came from (why.go), by name.
	origins map[string]string

	config  *ConfigFlags
	streams IOStreams
}

// NewProcessCommand returns stencil process.
func NewProcessCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &ProcessOptions{config: config, streams: streams}
	cmd := &cobra.Command{
		Use:   "process (NAME | -f FILENAME) [-p KEY=VALUE]...",
		Short: "Process a template into a v1 List of objects",
		Long: "Process a Template: substitute its parameters, apply its labels, run its transformers, and\n" +
			"print the objects as a v1 List that kubectl apply -f - accepts.\n\n" +
			"  NAME        processes the Template stored on the Stencil server (templates/NAME/processed)\n" +
			"  -f FILE     sends the template in FILE to the server (processedtemplates)\n" +
			"  --local     processes the template in FILE here, with no server; further -f files may\n" +
			"              hold the CustomTransforms to apply\n\n" +
			"Both templates.stencil.dev Templates and OpenShift Templates (template.openshift.io/v1, or\n" +
			"the legacy v1 Template) are accepted, as JSON or YAML. The server is found as kubectl finds\n" +
			"it: --kubeconfig, --context, -n.",
		Example: "  # Process a stored template and apply its objects\n" +
			"  stencil process mysql -p MYSQL_USER=u | kubectl apply -f -\n\n" +
			"  # The same as a kubectl plugin\n" +
			"  kubectl stencil process mysql -p MYSQL_USER=u\n\n" +
			"  # Process a file locally, for two destinations, one file each\n" +
			"  stencil process --local -f app.yaml --destination virgo --destination leo --output-dir out/",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return err
			}
			return o.Run()
		},
	}
	flags := cmd.Flags()
	flags.StringArrayVarP(&o.Filenames, "filename", "f", nil, "the template file, or - for standard input; with --local, more files of CustomTransforms")
	flags.StringArrayVarP(&o.Params, "param", "p", nil, "a parameter value as KEY=VALUE (repeatable)")
	flags.StringVar(&o.ParamFile, "param-file", "", "a file of KEY=VALUE lines, or - for standard input; -p wins over it")
	flags.StringArrayVarP(&o.Labels, "labels", "l", nil, "object labels to add, as key=value,key2=value2 (repeatable)")
	flags.BoolVar(&o.IgnoreUnknownParameters, "ignore-unknown-parameters", false, "accept values for parameters the template does not declare")
	flags.StringArrayVar(&o.Properties, "property", nil, "a template-expansion property as KEY=VALUE (repeatable)")
	flags.StringArrayVar(&o.Destinations, "destination", nil, "process once for this destination (repeatable); its objects are annotated with it")
	flags.StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml or json")
	flags.StringVar(&o.OutputDir, "output-dir", "", "write one file per destination into this directory instead of printing")
	flags.BoolVar(&o.ShowParameters, "parameters", false, "print the template's parameters instead of processing it")
	flags.BoolVar(&o.ShowSecrets, "show-secrets", false, "with --parameters, print the values of secret parameters instead of (masked)")
	flags.BoolVar(&o.Local, "local", false, "process the template here instead of on a Stencil server (Starlark transformers always run; provider.starlark.path is read)")
	flags.StringVar(&o.PluginDir, "plugin-dir", "", "with --local and --enable-exec, the directory of exec plugins to run")
	flags.BoolVar(&o.EnableExec, "enable-exec", false, "with --local, run exec plugins from --plugin-dir (your own code, on your machine)")
	flags.StringVar(&o.Provenance, "provenance", "", "write where every output field came from (template place, parameters, steps) to this JSON file; a server is asked with ?provenance=true")
	flags.BoolVar(&o.ProvenanceAnnotations, "provenance-annotations", false, "with --local, add Kustomize's "+
		"config.kubernetes.io/origin and alpha.config.kubernetes.io/transformations annotations to every object")
	return cmd
}

// Validate checks the flags before anything is read.
func (o *ProcessOptions) Validate(args []string) error {
	var problems []string
	if len(args) == 1 {
		o.Name = args[0]
	}
	if o.Output != "yaml" && o.Output != "json" {
		problems = append(problems, fmt.Sprintf("--output must be yaml or json, not %q", o.Output))
	}
	switch {
	case o.Name != "" && len(o.Filenames) > 0:
		problems = append(problems, "give a stored template's NAME or a file with -f, not both")
	case o.Name == "" && len(o.Filenames) == 0:
		problems = append(problems, "give a stored template's NAME, or a file with -f (- for standard input)")
	case o.Local && o.Name != "":
		problems = append(problems, "--local processes a file: give it with -f instead of NAME")
	case !o.Local && len(o.Filenames) > 1:
		problems = append(problems, "more than one -f needs --local: the server applies its own CustomTransforms")
	}
	if !o.Local && o.Name == "" && (len(o.Properties) > 0 || len(o.Destinations) > 0) {
		problems = append(problems, "--property and --destination need a stored template's NAME or --local")
	}
	if (o.PluginDir != "" || o.EnableExec) && (!o.Local || o.PluginDir == "" || !o.EnableExec) {
		problems = append(problems, "exec plugins run only with --local --enable-exec --plugin-dir DIR (a server runs what its administrator allows)")
	}
	if o.ProvenanceAnnotations && !o.Local {
		problems = append(problems, "--provenance-annotations needs --local: a server's items are answered as they are")
	}
	if o.OutputDir != "" && len(o.Destinations) == 0 {
		problems = append(problems, "--output-dir writes one file per destination: give --destination")
	}
	stdin := 0
	for _, f := range append(append([]string{}, o.Filenames...), o.ParamFile) {
		if f == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		problems = append(problems, "standard input can be read only once: give - to one of -f and --param-file")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n       "))
	}
	return nil
}

// Run processes the template and prints the List, or writes one file per destination.
func (o *ProcessOptions) Run() error {
	if o.ShowParameters {
		t, err := o.parametersOf()
		if err != nil {
			return err
		}
		return printParameters(o.streams.Out, t, o.ShowSecrets)
	}
	req, err := o.request()
	if err != nil {
		return err
	}
	if o.Local {
		list, prov, err := o.processLocal(req, o.Provenance != "" || o.ProvenanceAnnotations)
		if err != nil {
			return err
		}
		if o.Provenance != "" {
			if err := writeProvenance(o.Provenance, prov); err != nil {
				return err
			}
		}
		if o.OutputDir != "" {
			return writeDestinations(o.OutputDir, list, o.Output)
		}
		return writeList(o.streams.Out, list, o.Output)
	}
	var list []byte
	switch {
	case o.Name != "":
		list, err = o.processStored(req)
	default:
		list, err = o.processFile(req)
	}
	if err != nil {
		return err
	}
	if o.OutputDir != "" {
		return writeDestinations(o.OutputDir, list, o.Output)
	}
	return printList(o.streams.Out, list, o.Output)
}

// parametersOf returns the template whose parameters are listed, stored or in the file.
func (o *ProcessOptions) parametersOf() (*templates.Template, error) {
	if o.Name != "" {
		return o.getStored(o.Name)
	}
	f, err := o.decodeTemplateFile()
	if err != nil {
		return nil, err
	}
	return f.Template, nil
}

// decodeTemplateFile reads the template of the first -f. Its problems are placed in the file
// (diagnostics.go); the places of its fields are read only when something is placed.
func (o *ProcessOptions) decodeTemplateFile() (*process.TemplateFile, error) {
	return o.readTemplateFile(false)
}

// readTemplateFile reads the template of the first -f; withPositions reads where each of its
// fields was written in the same pass (provenance places every field).
func (o *ProcessOptions) readTemplateFile(withPositions bool) (*process.TemplateFile, error) {
	data, err := o.read(o.Filenames[0])
	if err != nil {
		return nil, err
	}
	name := fileName(o.Filenames[0])
	f, err := process.ReadTemplateFile(name, data, withPositions)
	if err != nil {
		return nil, fileError(name, data, err)
	}
	for _, w := range f.Warnings {
		// About the document read: placed at its start.
		at := f.Positions().Locate("")
		if at == "" {
			at = name
		}
		fmt.Fprintf(o.streams.ErrOut, "%s: warning: %s\n", at, w)
	}
	for _, w := range skippedDocuments(name, data, f.Skipped()) {
		fmt.Fprintln(o.streams.ErrOut, w)
	}
	return f, nil
}

// maxFileBytes bounds a file stencil reads (a template, its CustomTransforms): 64 MiB, twenty
// times the largest request the server takes, and the most JSON one processing may make. What
// is larger (a runaway generator, an endless standard input) is refused having read no more.
const maxFileBytes = 64 << 20

// read returns the contents of a file, or of standard input for "-".
func (o *ProcessOptions) read(name string) ([]byte, error) {
	in := o.streams.In
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(io.LimitReader(in, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", fileName(name), err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: the file is larger than %d MiB, more than any template: not read", fileName(name), maxFileBytes>>20)
	}
	return data, nil
}

// processingError lists every problem of a template that could not be processed, each at
// its place in the template's file when it was read from one.
type processingError struct {
	template *templates.Template
	errs     field.ErrorList
	// file is the file the template was read from; nil for a stored template.
	file *process.TemplateFile
}

func (e *processingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unable to process template %q", e.template.Name)
	if e.file != nil {
		errs := make([]error, len(e.errs))
		for i, err := range e.errs {
			errs[i] = err
		}
		fmt.Fprintf(&b, " (%s):\n%s", problems(len(errs)), placedErrors(e.file.Positions(), e.file.Name(), errs))
		return b.String()
	}
	b.WriteByte(':')
	for _, err := range e.errs {
		fmt.Fprintf(&b, "\n  * %s", err.Error())
	}
	return b.String()
}
