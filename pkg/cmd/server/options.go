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

// Package server holds the stencil-apiserver command: options, configuration and run.
package server

import (
	"fmt"
	"io"
	"net"

	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/compatibility"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	// The JSON format of --logging-format.
	_ "k8s.io/component-base/logs/json/register"
	netutils "k8s.io/utils/net"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/cmd/options"
	stencilopenapi "stencil.dev/stencil/pkg/generated/openapi"
	"stencil.dev/stencil/pkg/metrics"
)

const defaultEtcdPathPrefix = "/registry/templates.stencil.dev"

// StencilServerOptions holds everything the command line can set: one options struct per
// concern, each with its defaults (NewXOptions), its flags (AddFlags), its checks (Validate)
// and ApplyTo, which writes its values into the configuration the server is built from.
type StencilServerOptions struct {
	RecommendedOptions *genericoptions.RecommendedOptions
	// ComponentGlobalsRegistry holds the effective versions and feature gates of the components.
	ComponentGlobalsRegistry basecompatibility.ComponentGlobalsRegistry
	// Local runs the server stand-alone with embedded etcd; see LocalOptions.
	Local *LocalOptions
	// AlternateDNS are extra names of the self-signed serving certificate, such as the
	// APIService's <service>.<namespace>.svc.
	AlternateDNS []string
	// ServingCert shares one self-made certificate between the replicas in a cluster.
	ServingCert *ServingCertOptions
	// HashKey is the key the replicas share to key the hashes of what instances render.
	HashKey *HashKeyOptions
	// Processing are the renderer's caches, the limits of one request and the memory the
	// processing requests hold together.
	Processing *options.ProcessingOptions
	// Starlark says where Starlark transformers run, none by default, and bounds each run.
	Starlark *options.StarlarkOptions
	// ExecPlugins are the administrator's exec plugins; none by default.
	ExecPlugins *options.ExecPluginOptions
	// Instances configure the TemplateInstance controller.
	Instances *InstanceControllerOptions
	// OpenShift serves template.openshift.io/v1 too.
	OpenShift *OpenShiftOptions
	// Revisions say how many TemplateRevisions are kept.
	Revisions *TemplateRevisionOptions
	// TypeCheck says whether Templates written in cluster mode are type-checked.
	TypeCheck *TypeCheckOptions
	// Artifacts run the artifact server of published TemplateInstances.
	Artifacts *ArtifactOptions
	// Logs configures component-base logging: --logging-format=json, -v, --vmodule.
	Logs *logs.Options

	StdOut io.Writer
	StdErr io.Writer
}

// NewStencilServerOptions returns the defaults of a server in a cluster.
func NewStencilServerOptions(out, errOut io.Writer) *StencilServerOptions {
	o := &StencilServerOptions{
		RecommendedOptions: genericoptions.NewRecommendedOptions(
			defaultEtcdPathPrefix,
			apiserver.Codecs.LegacyCodec(v1alpha1.SchemeGroupVersion),
		),
		ComponentGlobalsRegistry: compatibility.DefaultComponentGlobalsRegistry,
		Local:                    NewLocalOptions(),
		ServingCert:              &ServingCertOptions{},
		HashKey:                  &HashKeyOptions{},
		Processing:               options.NewProcessingOptions(),
		Starlark:                 options.NewStarlarkOptions(),
		ExecPlugins:              options.NewExecPluginOptions(),
		Instances:                NewInstanceControllerOptions(),
		OpenShift:                NewOpenShiftOptions(),
		Revisions:                NewTemplateRevisionOptions(),
		TypeCheck:                NewTypeCheckOptions(),
		Artifacts:                NewArtifactOptions(),
		Logs:                     logs.NewOptions(),
		StdOut:                   out,
		StdErr:                   errOut,
	}
	o.RecommendedOptions.Etcd.StorageConfig.EncodeVersioner = runtime.NewMultiGroupVersioner(
		v1alpha1.SchemeGroupVersion, schema.GroupKind{Group: v1alpha1.GroupName})
	return o
}

// AddFlags adds the flags of every option to fs.
func (o *StencilServerOptions) AddFlags(fs *pflag.FlagSet) {
	o.RecommendedOptions.AddFlags(fs)
	o.Local.AddFlags(fs)
	fs.StringSliceVar(&o.AlternateDNS, "alternate-dns", o.AlternateDNS,
		"Extra DNS names of the self-signed serving certificate, such as stencil-apiserver.stencil-system.svc.")
	o.ServingCert.AddFlags(fs)
	o.HashKey.AddFlags(fs)
	o.Processing.AddFlags(fs)
	o.Instances.AddFlags(fs)
	o.OpenShift.AddFlags(fs)
	o.Revisions.AddFlags(fs)
	o.TypeCheck.AddFlags(fs)
	o.Artifacts.AddFlags(fs)
	o.Starlark.AddFlags(fs)
	o.ExecPlugins.AddFlags(fs)
	logsapi.AddFlags(o.Logs, fs)
	o.ComponentGlobalsRegistry.AddFlags(fs)
}

// Complete fills in what the flags leave open; in local mode it turns the recommended options
// into a stand-alone server.
func (o *StencilServerOptions) Complete() error {
	if o.Local.Enabled {
		return o.Local.Complete(o.RecommendedOptions)
	}
	return nil
}

// Validate reports every invalid option at once.
func (o *StencilServerOptions) Validate() error {
	var errs []error
	errs = append(errs, o.RecommendedOptions.Validate()...)
	errs = append(errs, o.ComponentGlobalsRegistry.Validate()...)
	errs = append(errs, o.Local.Validate()...)
	errs = append(errs, o.ServingCert.Validate(o)...)
	errs = append(errs, o.HashKey.Validate(o.Local.Enabled)...)
	errs = append(errs, o.Processing.Validate()...)
	errs = append(errs, o.Instances.Validate(o.Local.Enabled)...)
	errs = append(errs, o.OpenShift.Validate()...)
	errs = append(errs, o.Starlark.Validate()...)
	errs = append(errs, o.ExecPlugins.Validate()...)
	errs = append(errs, o.Revisions.Validate()...)
	errs = append(errs, o.TypeCheck.Validate()...)
	errs = append(errs, o.Artifacts.Validate()...)
	return utilerrors.NewAggregate(errs)
}

// Config builds the server configuration from the completed options.
func (o *StencilServerOptions) Config() (*apiserver.Config, error) {
	// A certificate from --self-signed-cert-secret is in memory already; writing one to
	// --cert-dir would fail on a read-only root filesystem anyway.
	if o.RecommendedOptions.SecureServing.ServerCert.GeneratedCert == nil {
		if err := o.RecommendedOptions.SecureServing.MaybeDefaultWithSelfSignedCerts(
			"localhost", o.AlternateDNS, []net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
			return nil, fmt.Errorf("creating self-signed certificates: %w", err)
		}
	}

	serverConfig := genericapiserver.NewRecommendedConfig(apiserver.Codecs)
	namer := openapi.NewDefinitionNamer(apiserver.Scheme)
	serverConfig.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(stencilopenapi.GetOpenAPIDefinitions, namer)
	serverConfig.OpenAPIConfig.Info.Title = "Stencil"
	serverConfig.OpenAPIConfig.Info.Version = "v1alpha1"
	serverConfig.OpenAPIConfig.GetOperationIDAndTags = apiserver.OperationIDAndTags
	serverConfig.OpenAPIV3Config = apiserver.OpenAPIV3Config()

	serverConfig.FeatureGate = o.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	serverConfig.EffectiveVersion = stampedVersion{o.ComponentGlobalsRegistry.EffectiveVersionFor(basecompatibility.DefaultKubeComponent)}

	if err := o.RecommendedOptions.ApplyTo(serverConfig); err != nil {
		return nil, err
	}
	config := &apiserver.Config{GenericConfig: serverConfig, ExtraConfig: apiserver.ExtraConfig{ClusterConfig: serverConfig.ClientConfig}}
	if err := o.ApplyTo(&config.ExtraConfig, metrics.NewRecorder()); err != nil {
		return nil, err
	}
	return config, nil
}

// ApplyTo writes Stencil's own configuration into c, each option in turn; recorder turns
// processing into metrics. The processing settings reach the renderer as ApplyTo leaves them,
// with no default added on the way.
func (o *StencilServerOptions) ApplyTo(c *apiserver.ExtraConfig, recorder *metrics.Recorder) error {
	c.Observer = recorder
	if err := o.HashKey.ApplyTo(c); err != nil {
		return err
	}
	o.Processing.ApplyTo(&c.Processing)
	o.Starlark.ApplyTo(&c.Processing)
	plugins, err := options.PluginPolicy(o.Starlark, o.ExecPlugins)
	if err != nil {
		return err
	}
	c.Plugins = plugins
	if err := o.Instances.ApplyTo(c, o.Local.Enabled); err != nil {
		return err
	}
	applyProcessingMemory(o.Processing.MemoryBytes, c, recorder)
	applyKustomizeBuilds(c)
	o.OpenShift.ApplyTo(c)
	o.Revisions.ApplyTo(c)
	o.Artifacts.ApplyTo(c)
	return o.TypeCheck.ApplyTo(c)
}
