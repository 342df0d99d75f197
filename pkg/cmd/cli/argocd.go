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
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"stencil.dev/stencil/pkg/gitops"
	"stencil.dev/stencil/pkg/gitops/argocd"
)

// NewArgoCDCommand returns stencil argocd: the commands of the Argo CD Config Management Plugin
// (artifacts/argocd/plugin.yaml), which argocd-cmp-server runs in the application's directory.
func NewArgoCDCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "argocd",
		Short: "The commands of Stencil's Argo CD Config Management Plugin",
		Long: "The commands Argo CD's argocd-cmp-server runs for the Stencil plugin, in an application's\n" +
			"directory, with Argo CD's build environment and the application's parameters in the environment.\n" +
			"They render the directory's " + gitops.FileName + " as stencil render does (docs/gitops.md).",
	}
	cmd.AddCommand(newArgoCDGenerateCommand(config, streams), newArgoCDParametersCommand(config, streams))
	return cmd
}

// newArgoCDGenerateCommand returns stencil argocd generate: plugin.yaml's generate command.
func newArgoCDGenerateCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := newRenderOptions(config, streams, "json")
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Render the application's render file with its Argo CD parameters (the plugin's generate command)",
		Long: "Render " + gitops.FileName + " of the current directory as stencil render does, with the\n" +
			"application's parameters (ARGOCD_APP_PARAMETERS, else PARAM_<NAME>) over the render file's values.\n" +
			"The List is written as JSON, which Argo CD reads without a YAML parse. Any problem exits non-zero\n" +
			"with FILE:LINE:COL: error: lines on standard error, which Argo CD shows; nothing is written to\n" +
			"standard output then, and an empty render is a problem unless the render file allows it, so a\n" +
			"failed render never makes Argo CD prune the application. Starlark transformers run only with\n" +
			"--enable-starlark: whoever writes to an application's repository writes its template.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			// argocd-cmp-server sends SIGTERM at its timeout (ARGOCD_EXEC_TIMEOUT): stop
			// processing then rather than at the SIGKILL that follows.
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return o.run(ctx, argoCDParameters)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// argoCDParameters reads the application's parameters for the prepared render.
func argoCDParameters(p *gitops.Prepared) (map[string]string, string, error) {
	values, errs := argocd.Values(p.Template, os.LookupEnv)
	if len(errs) > 0 {
		out := make([]error, len(errs))
		for i, err := range errs {
			out[i] = err
		}
		return nil, "", gitopsError(&gitops.Problems{File: argocd.ParametersVariable, Summary: "unable to read the application's parameters", Errors: out}, ".")
	}
	return values, argocd.ParametersVariable, nil
}

// newArgoCDParametersCommand returns stencil argocd parameters: plugin.yaml's
// parameters.dynamic command.
func newArgoCDParametersCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := newRenderOptions(config, streams, "json")
	cmd := &cobra.Command{
		Use:   "parameters",
		Short: "Announce the template's parameters to Argo CD's Parameters tab (parameters.dynamic)",
		Long: "Print, as the JSON list Argo CD reads, one announcement per parameter of the template that\n" +
			gitops.FileName + " names: title and tooltip from displayName and description, required, the\n" +
			"type as itemType and collectionType (a json parameter with items an array, with properties a\n" +
			"map), and the value a render uses when the application sets none (the render file's, else the\n" +
			"template's default). A secret parameter never announces its value.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Argo CD asks without the destination or the revision: $(VAR) of those stays as written.
			p, _, err := o.prepare(context.Background(), true)
			if err != nil {
				return err
			}
			out, err := json.Marshal(argocd.Announce(p.Template, p.Values))
			if err != nil {
				return err
			}
			_, err = o.streams.Out.Write(append(out, '\n'))
			return err
		},
	}
	cmd.Flags().StringVarP(&o.Filename, "filename", "f", o.Filename, "the render file")
	return cmd
}
