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
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/process/jsonschema"
)

// The formats of stencil parameters -o.
const (
	parametersTable      = "table"
	parametersJSONSchema = "json-schema"
)

// NewParametersCommand returns stencil parameters, which lists a template's parameters.
func NewParametersCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &ProcessOptions{config: config, streams: streams, ShowParameters: true, Output: "yaml"}
	output := parametersTable
	cmd := &cobra.Command{
		Use:   "parameters (NAME | -f FILENAME)",
		Short: "List the parameters of a template",
		Long: "List the parameters of a stored template, or of the template in a file, with their\n" +
			"descriptions, generators, default values and whether they are required. The value of a\n" +
			"secret parameter shows as (masked) unless --show-secrets is given. The template's rules,\n" +
			"which values must satisfy together, follow the table.\n\n" +
			"-o json-schema prints the parameters as the JSON Schema (draft 2020-12) that forms and\n" +
			"validators read: the server's templates/NAME/schema for a stored template, the same\n" +
			"document made here for a file. It never holds a secret parameter's default.",
		Example: "  stencil parameters mysql\n  stencil parameters -f mysql.json\n  stencil parameters mysql -o json-schema",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			if err := o.Validate(args); err != nil {
				return err
			}
			switch output {
			case parametersTable:
				return o.Run()
			case parametersJSONSchema:
				return o.printSchema()
			}
			return fmt.Errorf("--output must be %s or %s, not %q", parametersTable, parametersJSONSchema, output)
		},
	}
	cmd.Flags().BoolVar(&o.ShowSecrets, "show-secrets", false, "print the values of secret parameters instead of (masked)")
	cmd.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "the template file, or - for standard input")
	cmd.Flags().StringVarP(&output, "output", "o", parametersTable, "output format: table or json-schema")
	return cmd
}

// printSchema prints the template's parameters as JSON Schema, indented.
func (o *ProcessOptions) printSchema() error {
	var doc []byte
	if o.Name != "" {
		cs, namespace, err := newClient(o.config, o.streams)
		if err != nil {
			return err
		}
		if doc, err = client.TemplateSchema(context.Background(), cs.RESTClient(), namespace, o.Name); err != nil {
			return err
		}
	} else {
		f, err := o.decodeTemplateFile()
		if err != nil {
			return err
		}
		if doc, err = json.Marshal(jsonschema.ForTemplate(f.Template)); err != nil {
			return err
		}
	}
	out, err := jsonbytes.Indent(doc, "  ")
	if err != nil {
		return err
	}
	_, err = o.streams.Out.Write(append(out, '\n'))
	return err
}
