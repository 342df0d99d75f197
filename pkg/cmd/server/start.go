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

package server

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	genericapiserver "k8s.io/apiserver/pkg/server"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"
	baseversion "k8s.io/component-base/version"
	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/metrics"
	"stencil.dev/stencil/pkg/version"
)

func init() {
	// The logging options consult their feature gates; kube-apiserver registers them the same way.
	utilruntime.Must(logsapi.AddFeatureGates(utilfeature.DefaultMutableFeatureGate))
}

// NewCommandStartStencilServer returns the stencil-apiserver command.
func NewCommandStartStencilServer(ctx context.Context, defaults *StencilServerOptions) *cobra.Command {
	o := *defaults
	cmd := &cobra.Command{
		Use:   "stencil-apiserver",
		Short: "Launch the Stencil templates API server",
		Long: "Launch the Stencil templates API server. In a cluster it is registered as an APIService and " +
			"delegates authentication and authorization to kube-apiserver; with --local it runs alone on " +
			"127.0.0.1 with an embedded etcd and writes a kubeconfig for kubectl.",
		SilenceUsage: true,
		// cobra answers --version before any other flag is acted on.
		Version: version.Get().String(),
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if err := o.ComponentGlobalsRegistry.Set(); err != nil {
				return err
			}
			// Before anything else logs, so that every line has the chosen format.
			return logsapi.ValidateAndApply(o.Logs, o.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent))
		},
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	cmd.SetContext(ctx)
	cmd.SetVersionTemplate("stencil-apiserver {{.Version}}\n")

	// Registering is skipped when a test process already did it.
	_, _ = o.ComponentGlobalsRegistry.ComponentGlobalsOrRegister(basecompatibility.DefaultKubeComponent,
		basecompatibility.NewEffectiveVersionFromString(baseversion.DefaultKubeBinaryVersion, "", ""),
		utilfeature.DefaultMutableFeatureGate)
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run starts the server and blocks until ctx is done and the server has shut down.
func (o *StencilServerOptions) Run(ctx context.Context) error {
	if o.Local.Enabled {
		stop, err := o.Local.Start(ctx)
		if err != nil {
			return err
		}
		defer stop()
	}
	certController, err := o.ServingCert.start(ctx, o.RecommendedOptions, o.AlternateDNS, metrics.NewRecorder())
	if err != nil {
		return err
	}
	localDir := ""
	if o.Local.Enabled {
		localDir = o.Local.Dir
	}
	if err := o.HashKey.load(ctx, o.RecommendedOptions, localDir); err != nil {
		return fmt.Errorf("the hash key: %w", err)
	}
	config, err := o.Config()
	if err != nil {
		return err
	}
	if o.Local.Enabled {
		if err := o.Local.WriteKubeconfig(o.RecommendedOptions); err != nil {
			return fmt.Errorf("writing the local kubeconfig: %w", err)
		}
	}
	server, err := config.Complete().New()
	if err != nil {
		return err
	}
	runServingCertController(server.GenericAPIServer, certController)
	if o.Local.Enabled {
		server.GenericAPIServer.AddPostStartHookOrDie("stencil-local-ready", func(genericapiserver.PostStartHookContext) error {
			klog.Infof("Stencil is serving on https://%s; use it with: kubectl --kubeconfig %s get templates",
				o.Local.serverAddress(o.RecommendedOptions), o.Local.KubeconfigPath())
			// What a newcomer piping a processed List into kubectl apply needs to know: this
			// server has no core API, so the objects belong to a cluster of theirs.
			klog.Infof("Local mode serves Stencil's API only, with no Deployments, Services or namespaces: " +
				"apply what it renders to a cluster with that cluster's kubeconfig (kubectl --kubeconfig ~/.kube/config apply -f -); " +
				"TemplateInstances create their objects only with --target-kubeconfig")
			return nil
		})
	}
	return server.GenericAPIServer.PrepareRun().RunWithContext(ctx)
}
