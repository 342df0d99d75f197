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
	"k8s.io/client-go/tools/clientcmd"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	// The JSON format of --logging-format.
	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/klog/v2"
	netutils "k8s.io/utils/net"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/controller/templateinstance"
	stencilopenapi "stencil.dev/stencil/pkg/generated/openapi"
	"stencil.dev/stencil/pkg/metrics"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

const defaultEtcdPathPrefix = "/registry/templates.stencil.dev"

// StencilServerOptions holds everything the command line can set.
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
	// Processing bounds what processing keeps between requests.
	Processing *ProcessingOptions
	// Instances configure the TemplateInstance controller.
	Instances *InstanceOptions
	// OpenShiftTemplates serves template.openshift.io/v1 too (off by default: on OpenShift the
	// group belongs to openshift-apiserver).
	OpenShiftTemplates bool
	// TemplateRevisionHistory is how many revisions of each Template are kept besides those
	// instances use.
	TemplateRevisionHistory int
	// TypeCheck says whether Templates written in cluster mode are type-checked.
	TypeCheck *TypeCheckOptions
	// Plugins says which plugins run; none by default.
	Plugins *PluginOptions
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
		Processing:               NewProcessingOptions(),
		Instances:                NewInstanceOptions(),
		TemplateRevisionHistory:  templaterevision.DefaultHistory,
		Plugins:                  NewPluginOptions(),
		TypeCheck:                NewTypeCheckOptions(),
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
	o.Processing.AddFlags(fs)
	o.Instances.AddFlags(fs)
	fs.BoolVar(&o.OpenShiftTemplates, "openshift-templates", o.OpenShiftTemplates,
		"also serve OpenShift's template.openshift.io/v1 (templates, processedtemplates, templateinstances) over the same storage, for oc and "+
			"OpenShift clients on clusters without OpenShift; never on OpenShift, where openshift-apiserver serves that group")
	fs.IntVar(&o.TemplateRevisionHistory, "template-revision-history", o.TemplateRevisionHistory,
		"How many revisions (TemplateRevisions) of each Template are kept besides those a TemplateInstance pins or runs; older ones are deleted when a new one is stored.")
	o.TypeCheck.AddFlags(fs)
	o.Plugins.AddFlags(fs)
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
	errs = append(errs, o.Processing.Validate()...)
	errs = append(errs, o.Instances.Validate(o.Local.Enabled)...)
	errs = append(errs, o.Plugins.Validate()...)
	errs = append(errs, o.TypeCheck.Validate()...)
	if o.TemplateRevisionHistory < 1 {
		errs = append(errs, fmt.Errorf("--template-revision-history must be at least 1: the Template's current revision is always kept"))
	}
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
	plugins, err := o.Plugins.Policy()
	if err != nil {
		return nil, err
	}
	instances, err := o.instanceControllerOptions()
	if err != nil {
		return nil, err
	}
	types, err := o.TypeCheck.Types(serverConfig.ClientConfig)
	if err != nil {
		return nil, err
	}
	recorder := metrics.NewRecorder()
	memory, from := processingMemory(o.Processing.MemoryBytes)
	klog.Infof("Processing may hold %d MiB (%s); requests that may run plugins %d MiB of it", memory>>20, from, memory/2>>20)
	recorder.MemoryCapacity(memory, memory/2)
	return &apiserver.Config{
		GenericConfig: serverConfig,
		ExtraConfig: apiserver.ExtraConfig{ClusterConfig: serverConfig.ClientConfig, Observer: recorder,
			PlanCacheBytes: o.Processing.PlanCacheBytes, PipelineCacheBytes: o.Processing.PipelineCacheBytes,
			MaxOutputBytes: o.Processing.MaxOutputBytes, ProcessingMemory: renderrest.NewBudget(memory, memory/2, recorder.MemoryHeld),
			ProcessingLimits: o.Plugins.Limits(o.Processing.Limits), Plugins: plugins, Instances: instances,
			OpenShiftTemplates: o.OpenShiftTemplates, TemplateRevisionHistory: o.TemplateRevisionHistory, TemplateTypes: types},
	}, nil
}

// instanceControllerOptions are the controller's options, or nil when it does not run: turned
// off, or in local mode, where there is no cluster.
func (o *StencilServerOptions) instanceControllerOptions() (*templateinstance.Options, error) {
	if !o.Instances.Enabled || (o.Local.Enabled && o.Instances.TargetKubeconfig == "") {
		return nil, nil
	}
	opts := &templateinstance.Options{LeaseNamespace: o.Instances.LeaseNamespace,
		LeaseDuration: o.Instances.LeaseDuration, RenewDeadline: o.Instances.RenewDeadline, RetryPeriod: o.Instances.RetryPeriod,
		Workers: o.Instances.Workers}
	if o.Local.Enabled {
		// One process: no election; the kubeconfig's user acts, and authorizes, as itself.
		target, err := clientcmd.BuildConfigFromFlags("", o.Instances.TargetKubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--target-kubeconfig: %w", err)
		}
		opts.Target, opts.ActAsSelf, opts.LeaseNamespace = target, true, ""
	}
	return opts, nil
}
