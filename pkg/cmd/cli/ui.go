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
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/ui"
)

// UIOptions are the flags of `stencil ui`.
type UIOptions struct {
	config  *ConfigFlags
	streams IOStreams

	// Port is the loopback port to serve on; 0 picks a free one.
	Port int
	// Open opens the catalog in the user's browser.
	Open bool
	// CatalogNamespaces are shared namespaces listed beside the current one.
	CatalogNamespaces []string
}

// NewUICommand returns `stencil ui`: the web catalog on 127.0.0.1, reaching the cluster as the
// user through a proxy limited to the API paths the pages need.
func NewUICommand(config *ConfigFlags, streams IOStreams) *cobra.Command {
	o := &UIOptions{config: config, streams: streams}
	cmd := &cobra.Command{
		Use:   "ui [--port PORT] [--open] [--catalog-namespace NS]...",
		Short: "Serve the template catalog in a browser, on this machine only",
		Long: "Serve a web catalog of the Templates of the current namespace and of catalog namespaces:\n" +
			"browse, fill a form built from each template's parameters, preview the objects, create them,\n" +
			"and follow or uninstall what was created. It listens on 127.0.0.1 only and talks to the\n" +
			"cluster with your kubeconfig's credentials, which never reach the page; the printed URL\n" +
			"carries a token that this run's pages need.",
		Example: "  # Serve on a free port and open the browser\n" +
			"  stencil ui --open\n\n" +
			"  # Also list the templates of the shared namespace 'openshift'\n" +
			"  kubectl stencil ui --catalog-namespace openshift",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	flags := cmd.Flags()
	flags.IntVar(&o.Port, "port", 0, "the port on 127.0.0.1 to serve on; 0 picks a free port")
	flags.BoolVar(&o.Open, "open", false, "open the catalog in the default browser")
	flags.StringArrayVar(&o.CatalogNamespaces, "catalog-namespace", nil, "a namespace whose templates are listed beside the current namespace's (repeatable)")
	return cmd
}

// Validate checks the flags.
func (o *UIOptions) Validate() error {
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("--port must be between 0 and 65535, not %d", o.Port)
	}
	for _, ns := range o.CatalogNamespaces {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return fmt.Errorf("--catalog-namespace %q: %s", ns, errs[0])
		}
	}
	return nil
}

// Run serves until interrupted.
func (o *UIOptions) Run(ctx context.Context) error {
	restConfig, err := o.config.ToRESTConfig()
	if err != nil {
		return err
	}
	restConfig = rest.CopyConfig(restConfig)
	restConfig.WarningHandler = rest.NewWarningWriter(o.streams.ErrOut, rest.WarningWriterOptions{Deduplicate: true})
	namespace, _, err := o.config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	server, err := ui.NewServer(ui.Options{RESTConfig: restConfig, Namespace: namespace, CatalogNamespaces: o.CatalogNamespaces}, o.Port)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		server.Close()
	}()
	fmt.Fprintf(o.streams.Out, "Serving the Stencil catalog at %s\nPress Ctrl-C to stop.\n", server.URL())
	if o.Open {
		if err := openBrowser(server.URL()); err != nil {
			fmt.Fprintf(o.streams.ErrOut, "could not open a browser (%v): open the URL above yourself\n", err)
		}
	}
	return server.Serve()
}

// openBrowser asks the desktop to open url, without waiting for the browser to exit.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
