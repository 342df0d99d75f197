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
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// NewParametersCommand returns stencil parameters, which lists a template's parameters.
func NewParametersCommand(config *genericclioptions.ConfigFlags, streams IOStreams) *cobra.Command {
	o := &ProcessOptions{config: config, streams: streams, ShowParameters: true, Output: "yaml"}
	cmd := &cobra.Command{
		Use:   "parameters (NAME | -f FILENAME)",
		Short: "List the parameters of a template",
		Long: "List the parameters of a stored template, or of the template in a file, with their\n" +
			"descriptions, generators, default values and whether they are required. The value of a\n" +
			"secret parameter shows as <secret> unless --show-secrets is given.",
		Example: "  stencil parameters mysql\n  stencil parameters -f mysql.json",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			if err := o.Validate(args); err != nil {
				return err
			}
			return o.Run()
		},
	}
	cmd.Flags().BoolVar(&o.ShowSecrets, "show-secrets", false, "print the values of secret parameters instead of <secret>")
	cmd.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "the template file, or - for standard input")
	return cmd
}
