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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/cmd/options"
	"stencil.dev/stencil/pkg/gitops"
	"stencil.dev/stencil/pkg/gitops/argocd"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// SeedFileVariable names the file of the secret seed generated values are derived from, when
// --generate-seed-file is not given: the sidecar's manifest sets it to the mounted Secret.
const SeedFileVariable = "STENCIL_GENERATE_SEED_FILE"

// RenderOptions are the flags of stencil render and stencil argocd generate.
type RenderOptions struct {
	// Filename is the render file; its directory is the application's, which every file the
	// render reads must stay in.
	Filename   string
	Output     string
	SeedFile   string
	MaxObjects int
	// EnableStarlark runs the template's Starlark transformers: always on the user's machine
	// (stencil render, as stencil process --local), only when the administrator says so in
	// the plugin's sidecar (stencil argocd generate), where anyone who can push to a
	// repository writes the template.
	EnableStarlark bool

	config  *ConfigFlags
	streams IOStreams
}

// NewRenderCommand returns stencil render.
func NewRenderCommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := newRenderOptions(config, streams, "yaml")
	o.EnableStarlark = true
	cmd := &cobra.Command{
		Use:   "render [-f stencil-render.yaml]",
		Short: "Render a render file (a TemplateRender kept in git) as a GitOps tool does",
		Long: "Render the TemplateRender in FILE: its template (a file beside it, inline, or a revision stored\n" +
			"on the cluster) with the values of its values files and spec.parameters, processed here exactly\n" +
			"as stencil process --local processes it, every object annotated with the render's digest\n" +
			"(" + v1alpha1.AnnotationRenderDigest + "). It is what the Argo CD plugin runs\n" +
			"(stencil argocd generate), without Argo CD's parameters. Every file it reads stays inside FILE's\n" +
			"directory; $(VAR) in the render file reads Argo CD's build environment (ARGOCD_APP_NAME, ...);\n" +
			"a generated value is derived from the seed of --generate-seed-file (docs/gitops.md).",
		Example: "  # Render the render file of the current directory\n" +
			"  stencil render\n\n" +
			"  # As Argo CD would for the application shop in namespace prod\n" +
			"  ARGOCD_APP_NAME=shop ARGOCD_APP_NAMESPACE=prod stencil render -f apps/shop/stencil-render.yaml",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context(), nil)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func newRenderOptions(config *ConfigFlags, streams IOStreams, output string) *RenderOptions {
	return &RenderOptions{Filename: gitops.FileName, Output: output, config: config, streams: streams}
}

func (o *RenderOptions) addFlags(cmd *cobra.Command) {
	flags := cmd.Flags()
	flags.StringVarP(&o.Filename, "filename", "f", o.Filename, "the render file; its directory holds every file the render reads")
	flags.StringVarP(&o.Output, "output", "o", o.Output, "output format: yaml or json")
	flags.StringVar(&o.SeedFile, "generate-seed-file", "", "the file of the secret seed generated values are derived from (default $"+SeedFileVariable+")")
	flags.IntVar(&o.MaxObjects, "max-objects", gitops.DefaultMaxObjects, "the most objects a render may make")
	flags.BoolVar(&o.EnableStarlark, "enable-starlark", o.EnableStarlark, "run the template's Starlark transformers (in-process, with the server's limits)")
}

func (o *RenderOptions) validate() error {
	var problems []string
	if o.Output != "yaml" && o.Output != "json" {
		problems = append(problems, fmt.Sprintf("--output must be yaml or json, not %q", o.Output))
	}
	if o.MaxObjects <= 0 {
		problems = append(problems, "--max-objects must be positive")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n       "))
	}
	return nil
}

// dir is the directory of the render file, as given: diagnostics name the files in it by it.
func (o *RenderOptions) dir() string {
	return filepath.Dir(o.Filename)
}

// prepare opens the application's directory and reads the render file, its template and its
// values files; keepUnset keeps $(VAR) of unset build variables as written.
func (o *RenderOptions) prepare(ctx context.Context, keepUnset bool) (*gitops.Prepared, string, error) {
	name := filepath.Base(o.Filename)
	abs, err := filepath.Abs(o.dir())
	if err != nil {
		return nil, "", err
	}
	dir, err := gitops.OpenDir(abs)
	if err != nil {
		return nil, "", err
	}
	defer dir.Close()
	env := gitops.EnvironmentFrom(os.LookupEnv)
	p, err := gitops.Prepare(ctx, dir, name, env, keepUnset, &clusterRevisions{config: o.config, streams: o.streams})
	if err != nil {
		return nil, "", gitopsError(err, o.dir())
	}
	return p, abs, nil
}

// run renders the render file, with the tool's parameters (Argo CD's) over its values.
func (o *RenderOptions) run(ctx context.Context, parameters func(*gitops.Prepared) (map[string]string, string, error)) error {
	if ctx == nil {
		ctx = context.Background()
	}
	p, dir, err := o.prepare(ctx, false)
	if err != nil {
		return err
	}
	var config render.Config
	options.NewProcessingOptions().ApplyTo(&config)
	options.NewStarlarkOptions().ApplyTo(&config)
	opts := gitops.Options{
		Environment: gitops.EnvironmentFrom(os.LookupEnv),
		Seed:        o.seed,
		Config:      config,
		Plugins:     plugin.Policy{Starlark: o.EnableStarlark, LocalFiles: true, LocalDir: dir},
		MaxObjects:  o.MaxObjects,
	}
	if parameters != nil {
		if opts.Parameters, opts.ParametersFrom, err = parameters(p); err != nil {
			return err
		}
	}
	out, err := p.Render(ctx, opts)
	if err != nil {
		return gitopsError(err, o.dir())
	}
	for _, w := range out.Warnings {
		fmt.Fprintln(o.streams.ErrOut, strings.ReplaceAll(problemsText(w, o.dir()), ": error: ", ": warning: "))
	}
	return writeList(o.streams.Out, jsonbytes.Compacted(process.ListBytes(out.Objects)), o.Output)
}

// seed reads the secret seed of generated values, when a render needs one.
func (o *RenderOptions) seed() (gitops.Seed, error) {
	file := o.SeedFile
	if file == "" {
		file = os.Getenv(SeedFileVariable)
	}
	if file == "" {
		return nil, fmt.Errorf("no seed is installed (--generate-seed-file, or $%s)", SeedFileVariable)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the seed: %v", err)
	}
	seed := gitops.Seed(strings.TrimSpace(string(data)))
	return seed, gitops.CheckSeed(seed)
}

// gitopsError writes the problems of a render as diagnostics, one line each, placed in their
// files: FILE:LINE:COL: error: message, the files named by their paths under dir (the render
// file's directory, as given).
func gitopsError(err error, dir string) error {
	var list gitops.ProblemList
	var one *gitops.Problems
	switch {
	case errors.As(err, &list):
		texts := make([]string, len(list))
		for i, p := range list {
			texts[i] = problemsText(p, dir)
		}
		return &placedError{strings.Join(texts, "\n")}
	case errors.As(err, &one):
		return &placedError{problemsText(one, dir)}
	}
	return err
}

// problemsText writes each problem of p at its place in p's file.
func problemsText(p *gitops.Problems, dir string) string {
	file := p.File
	if p.File != argocd.ParametersVariable {
		file = filepath.Join(dir, p.File)
	}
	var placed []error
	var lines []string
	for _, err := range p.Errors {
		var at *gitops.LineError
		if errors.As(err, &at) {
			lines = append(lines, fmt.Sprintf("%s:%d:1: error: %v", file, at.Line, at.Err))
			continue
		}
		placed = append(placed, err)
	}
	if len(placed) > 0 {
		lines = append(lines, placedErrors(p.Positions, file, placed))
	}
	return strings.Join(lines, "\n")
}

// clusterRevisions reads stored TemplateRevisions for a render file's templateRef, as the
// user of the kubeconfig (in a sidecar, its service account): only when one is named.
type clusterRevisions struct {
	config  *ConfigFlags
	streams IOStreams
}

// RevisionContent returns the content of the revision of namespace/name whose hash is hash.
func (c *clusterRevisions) RevisionContent(ctx context.Context, namespace, name, hash string) ([]byte, error) {
	// Without a kubeconfig or a service account, client-go would try http://localhost:8080.
	raw, err := c.config.ToRawKubeConfigLoader().RawConfig()
	if err == nil && len(raw.Clusters) == 0 && os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
		return nil, fmt.Errorf("reading Template %s/%s needs access to its cluster, and this render has none (no kubeconfig, no service account token): see docs/gitops.md, Templates stored on the cluster", namespace, name)
	}
	cs, _, err := newClient(c.config, c.streams)
	if err != nil {
		return nil, err
	}
	// The revisions of every Template of the namespace whose content's hash starts so (the
	// hash label: a Template's name may be too long for a label), then the one asked for.
	short := strings.TrimPrefix(hash, "sha256:")[:12]
	list, err := cs.TemplateRevisions(namespace).List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelRevisionHash + "=" + short})
	if err != nil {
		return nil, fmt.Errorf("reading the revisions of Template %s/%s: %v", namespace, name, err)
	}
	for i := range list.Items {
		rev := &list.Items[i]
		if rev.Template != name || rev.Hash != hash {
			continue
		}
		// A revision its Template's garbage collection left behind is nobody's any more.
		if owner := metav1.GetControllerOfNoCopy(rev); owner == nil || owner.Kind != "Template" || owner.Name != name {
			return nil, fmt.Errorf("the revision %s of hash %s is no longer owned by Template %s/%s (it was deleted)", rev.Name, hash, namespace, name)
		}
		return rev.Content.Raw, nil
	}
	return nil, fmt.Errorf("Template %s/%s has no revision of hash %s", namespace, name, hash)
}
