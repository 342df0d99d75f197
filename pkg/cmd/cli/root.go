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

// Package cli is the stencil command line: the cobra root and its subcommands. It also runs as
// the kubectl plugin kubectl-stencil.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// IOStreams are where a command reads its input and writes its output and errors, so that
// tests can run commands in memory.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// StandardStreams returns the process's stdin, stdout and stderr.
func StandardStreams() IOStreams {
	return IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
}

// NewStencilCommand returns the root command with every subcommand. Subcommands print their
// own errors through Run, so cobra is told to stay quiet about them.
func NewStencilCommand(streams IOStreams) *cobra.Command {
	use := "stencil"
	// kubectl runs kubectl-stencil for "kubectl stencil"; help should show what users type.
	if strings.HasPrefix(filepath.Base(os.Args[0]), "kubectl-") {
		use = "kubectl stencil"
	}
	root := &cobra.Command{
		Use:   use,
		Short: "Process Kubernetes templates, on a Stencil server or locally",
		Long: "stencil processes Templates (templates.stencil.dev, and OpenShift's template.openshift.io)\n" +
			"into a v1 List ready for kubectl apply -f -. It also runs as the kubectl plugin kubectl-stencil.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	// The flags of kubectl that say which server, user and namespace to use.
	config := NewConfigFlags()
	config.AddFlags(root.PersistentFlags())
	root.AddCommand(
		NewProcessCommand(config, streams),
		NewRenderCommand(config, streams),
		NewArgoCDCommand(config, streams),
		NewExportCommand(config, streams),
		NewParametersCommand(config, streams),
		NewInstantiateCommand(config, streams),
		NewAdoptCommand(config, streams),
		NewDiffCommand(config, streams),
		NewRolloutCommand(config, streams),
		NewTransformersCommand(config, streams),
		NewWhyCommand(config, streams),
		NewConvertCommand(streams),
		NewLintCommand(config, streams),
		NewUICommand(config, streams),
		NewVersionCommand(streams),
	)
	return root
}

// Run executes the stencil command line with args and returns the process exit code, after
// printing any error to streams.ErrOut.
func Run(streams IOStreams, args []string) int {
	cmd := NewStencilCommand(streams)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		var placed *placedError
		if errors.As(err, &placed) {
			fmt.Fprintln(streams.ErrOut, placed.text)
			return 1
		}
		fmt.Fprintf(streams.ErrOut, "error: %v\n", err)
		return 1
	}
	return 0
}
