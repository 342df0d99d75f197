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
	"fmt"

	"github.com/spf13/cobra"

	"stencil.dev/stencil/pkg/version"
)

// NewVersionCommand returns `stencil version`: the build of the CLI itself. It asks no server,
// so it works where no kubeconfig exists.
func NewVersionCommand(streams IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of the stencil CLI",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			info := version.Get()
			switch output {
			case "":
				_, err := fmt.Fprintf(streams.Out, "stencil %s\n", info)
				return err
			case "json":
				b, err := json.MarshalIndent(info, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(streams.Out, "%s\n", b)
				return err
			}
			return fmt.Errorf("--output must be json or empty, not %q", output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: json, or empty for one line.")
	return cmd
}
