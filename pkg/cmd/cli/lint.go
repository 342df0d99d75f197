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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	stencilclient "stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/lint"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/typecheck"
	"stencil.dev/stencil/pkg/typecheck/kubeschemas"
	"stencil.dev/stencil/pkg/version"
)

// maxLintFileBytes bounds one template file, as the server's request body limit bounds a
// template it is sent.
const maxLintFileBytes = 3 << 20

// LintOptions are the flags of stencil lint.
type LintOptions struct {
	// Output is text, json or sarif.
	Output string
	// SchemaDirs hold CRDs and OpenAPI documents of the kinds the core schemas do not have.
	SchemaDirs []string
	// Cluster asks the kubeconfig's cluster for its /openapi/v3 (also when --server,
	// --kubeconfig or --context is given).
	Cluster bool
	// SchemaTimeout bounds the whole of what the cluster is asked.
	SchemaTimeout time.Duration

	config  *ConfigFlags
	streams IOStreams
}

// errLintFound is the error of a run that found errors: the diagnostics say what they are.
type errLintFound struct{ errors, files int }

func (e errLintFound) Error() string {
	return fmt.Sprintf("stencil lint: %d error(s) in %d file(s)", e.errors, e.files)
}

// NewLintCommand returns stencil lint.
func NewLintCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &LintOptions{config: config, streams: streams, Output: "text", SchemaTimeout: 30 * time.Second}
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check template files as the server does, and type-check their objects against their kinds' schemas",
		Long: "Run on each template file every check the server makes when the template is created (the\n" +
			"same code: validation, the engine's compile, CEL rules, transformer configs, the stored size),\n" +
			"and a type check of every object against its kind's OpenAPI schema before any value is given:\n" +
			"unknown fields, values of the wrong type (as written, or as parameter substitution makes\n" +
			"them), required fields left out, values outside an enum. Core kinds are checked with the\n" +
			"schemas of Kubernetes " + kubeschemas.Version + " that stencil carries; CRDs with --schema-dir, or with the\n" +
			"cluster's /openapi/v3 (--cluster, --server, --kubeconfig or --context).\n\n" +
			"Findings are written as path:line:col: severity: message (-o text), JSON or SARIF 2.1.0.\n" +
			"The exit code is 1 when any file has an error. See docs/lint.md.",
		Example: "  stencil lint web.yaml\n  stencil lint -o sarif templates/*.yaml > lint.sarif\n" +
			"  stencil lint --schema-dir crds/ app.yaml\n  stencil lint --cluster app.yaml",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, name := range []string{"server", "kubeconfig", "context"} {
				if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
					o.Cluster = true
				}
			}
			return o.Run(cmd.Context(), args)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", o.Output, "output format: text, json or sarif")
	cmd.Flags().StringSliceVar(&o.SchemaDirs, "schema-dir", nil,
		"a directory of CRD manifests and OpenAPI v3 documents (YAML or JSON) for kinds the core schemas do not have; may be repeated")
	cmd.Flags().BoolVar(&o.Cluster, "cluster", false, "type-check with the kubeconfig's cluster's /openapi/v3 too")
	cmd.Flags().DurationVar(&o.SchemaTimeout, "schema-timeout", o.SchemaTimeout, "how long the cluster's OpenAPI may take to read, all documents together")
	return cmd
}

// Run lints the files and writes the diagnostics.
func (o *LintOptions) Run(ctx context.Context, files []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	switch o.Output {
	case "text", "json", "sarif":
	default:
		return fmt.Errorf("--output must be text, json or sarif, not %q", o.Output)
	}
	checkCtx := ctx
	if o.Cluster {
		var cancel context.CancelFunc
		checkCtx, cancel = context.WithTimeout(ctx, o.SchemaTimeout)
		defer cancel()
	}
	checker, err := o.checker(checkCtx)
	if err != nil {
		return err
	}
	own, err := kubeschemas.TemplateChecker()
	if err != nil {
		return err
	}
	var all []lint.Diagnostic
	for _, name := range files {
		data, err := o.readFile(name)
		if err != nil {
			return err
		}
		plugins := plugin.Policy{Starlark: true, LocalFiles: true}
		if name != "-" {
			if abs, err := filepath.Abs(name); err == nil {
				plugins.LocalDir = filepath.Dir(abs)
			}
		}
		all = append(all, lint.File(checkCtx, name, data, lint.Options{Checker: checker, Template: own, Plugins: plugins})...)
	}
	switch o.Output {
	case "json":
		err = lint.WriteJSON(o.streams.Out, len(files), all)
	case "sarif":
		err = lint.WriteSARIF(o.streams.Out, version.Get().GitVersion, all)
	default:
		err = lint.WriteText(o.streams.Out, all)
	}
	if err != nil {
		return err
	}
	if s := lint.Summarize(len(files), all); s.Errors > 0 {
		return errLintFound{errors: s.Errors, files: len(files)}
	}
	return nil
}

// checker is the type check of the run: a cluster's schemas and the schema directories
// before the core kinds' that the binary carries.
func (o *LintOptions) checker(ctx context.Context) (*typecheck.Checker, error) {
	var chain typecheck.Chain
	if o.Cluster {
		config, err := o.config.ToRESTConfig()
		if err != nil {
			return nil, err
		}
		cluster, err := ClusterSchemas(config)
		if err != nil {
			return nil, err
		}
		if err := cluster.Index(ctx); err != nil {
			return nil, err
		}
		chain = append(chain, cluster)
	}
	if len(o.SchemaDirs) > 0 {
		set, err := typecheck.LoadDir(o.SchemaDirs...)
		if err != nil {
			return nil, fmt.Errorf("--schema-dir: %w", err)
		}
		chain = append(chain, typecheck.Static{Set: set, Source: "--schema-dir"})
	}
	if len(chain) == 0 {
		return kubeschemas.Checker(nil)
	}
	return kubeschemas.Checker(chain)
}

// ClusterSchemas is the cluster of config's /openapi/v3 as a type check's resolver.
func ClusterSchemas(config *rest.Config) (*typecheck.Cluster, error) {
	client, err := stencilclient.NewDiscoveryForConfig(config)
	if err != nil {
		return nil, err
	}
	return &typecheck.Cluster{Fetch: typecheck.RESTFetch(client.RESTClient()), Source: "the cluster at " + config.Host}, nil
}

// readFile reads one template file, or standard input for -, up to maxLintFileBytes.
func (o *LintOptions) readFile(name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = o.streams.In
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxLintFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxLintFileBytes {
		return nil, fmt.Errorf("%s: over %d MiB, the most the server takes in a request", name, maxLintFileBytes>>20)
	}
	return data, nil
}
