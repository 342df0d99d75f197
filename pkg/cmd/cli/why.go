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
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/provenance"
)

// writeProvenance writes the map to file as indented JSON (docs/provenance.md).
func writeProvenance(file string, m *provenance.Map) error {
	if m == nil {
		m = &provenance.Map{Objects: []provenance.Object{}}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// NewWhyCommand returns stencil why: where one field of a processed template came from.
func NewWhyCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &ProcessOptions{config: config, streams: streams, Local: true, Output: "yaml"}
	cmd := &cobra.Command{
		Use:   "why -f FILENAME KIND/NAME [FIELD] [-p KEY=VALUE]...",
		Short: "Say where a field of a processed template came from",
		Long: "Process the template in FILE here, as stencil process --local does, and say where a field of one of\n" +
			"its objects came from, one line per step: where the template wrote it (file:line:col), the parameters\n" +
			"substituted into it (names, never values), then each transformer, generator or other step that set\n" +
			"or changed it, in order, with its own place. A FIELD that names an object or array answers for\n" +
			"every leaf field under it; no FIELD answers for every field of the object.",
		Example: "  stencil why -f t.yaml Deployment/web 'spec.template.spec.containers[0].image'\n" +
			"  stencil why -f t.yaml -p IMAGE_TAG=1.28 apps/Deployment/web spec.replicas",
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.Filenames) == 0 {
				return errors.New("give the template file with -f (- for standard input)")
			}
			if err := o.Validate(nil); err != nil {
				return err
			}
			path := ""
			if len(args) == 2 {
				path = args[1]
			}
			return o.why(args[0], path)
		},
	}
	flags := cmd.Flags()
	flags.StringArrayVarP(&o.Filenames, "filename", "f", nil, "the template file, or - for standard input; more files of CustomTransforms")
	flags.StringArrayVarP(&o.Params, "param", "p", nil, "a parameter value as KEY=VALUE (repeatable)")
	flags.StringVar(&o.ParamFile, "param-file", "", "a file of KEY=VALUE lines, or - for standard input; -p wins over it")
	flags.StringArrayVarP(&o.Labels, "labels", "l", nil, "object labels to add, as key=value,key2=value2 (repeatable)")
	flags.BoolVar(&o.IgnoreUnknownParameters, "ignore-unknown-parameters", false, "accept values for parameters the template does not declare")
	flags.StringArrayVar(&o.Properties, "property", nil, "a template-expansion property as KEY=VALUE (repeatable)")
	flags.StringArrayVar(&o.Destinations, "destination", nil, "process once for this destination (repeatable)")
	return cmd
}

// why processes the template with provenance and prints the lines of each field found, then
// where the value of each parameter they name came from.
func (o *ProcessOptions) why(object, path string) error {
	req, err := o.request()
	if err != nil {
		return err
	}
	f, err := o.readTemplateFile(true)
	if err != nil {
		return err
	}
	_, m, err := o.renderLocal(f, req, o.provenanceOptions(f))
	if err != nil {
		return err
	}
	matches, err := provenance.Find(m, object, path)
	if err != nil {
		return err
	}
	for i, match := range matches {
		if len(matches) > 1 {
			if i > 0 {
				fmt.Fprintln(o.streams.Out)
			}
			fmt.Fprintf(o.streams.Out, "%s/%s %s:\n", match.Object.Kind, match.Object.Name, match.Path())
		}
		for _, line := range provenance.Explain(m, match) {
			fmt.Fprintln(o.streams.Out, line)
		}
		for _, name := range parametersOf(m, match) {
			fmt.Fprintln(o.streams.Out, o.valueSource(f, req, name))
		}
	}
	return nil
}

// parametersOf names the parameters substituted into the field of match or into the config of
// a step that set or changed it, each once, in the order Explain mentions them.
func parametersOf(m *provenance.Map, match provenance.Match) []string {
	if match.Field == nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	add := func(list []string) {
		for _, n := range list {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	add(match.Field.Parameters)
	for _, i := range match.Field.Steps {
		if i >= 0 && int(i) < len(m.Steps) {
			add(m.Steps[i].Parameters)
		}
	}
	return names
}

// valueSource says where the value of the parameter name came from, starting with its place:
// the values file's line or the command line, the template's default, its generator, or
// nothing. It never prints the value: a parameter may be secret, and the place shows it.
func (o *ProcessOptions) valueSource(f *process.TemplateFile, req process.Request, name string) string {
	if line, ok := o.origins[name]; ok {
		return line
	}
	x := f.Positions()
	for i, p := range f.Template.Parameters {
		if p.Name != name {
			continue
		}
		at := func(field string) string {
			path := fmt.Sprintf("parameters[%d]%s", i, field)
			if place := x.Locate(path); place != "" {
				return place + ": "
			}
			return path + ": "
		}
		switch {
		case p.Value != "":
			return fmt.Sprintf("%s%s is the template's default (parameters[%d].value)", at(".value"), name, i)
		case p.Generate != "":
			return fmt.Sprintf("%s%s is generated by the template's %s generator (parameters[%d].from)", at(".from"), name, p.Generate, i)
		}
		return fmt.Sprintf("%s%s has no value: none is given and the template has no default (parameters[%d])", at(""), name, i)
	}
	if _, given := req.Parameters[name]; given {
		return "request: " + name + " is given with the request"
	}
	return "processing: " + name + " is set by the engine (the element and index of a for-each object)"
}
