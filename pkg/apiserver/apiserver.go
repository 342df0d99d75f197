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

// Package apiserver wires the Stencil storage into a generic API server.
package apiserver

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	restclient "k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/install"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance"
	"stencil.dev/stencil/pkg/registry/templates/customtransform"
	"stencil.dev/stencil/pkg/registry/templates/openshiftinstance"
	"stencil.dev/stencil/pkg/registry/templates/openshifttemplate"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	templatestorage "stencil.dev/stencil/pkg/registry/templates/template"
	"stencil.dev/stencil/pkg/registry/templates/templatecheck"
	instancestorage "stencil.dev/stencil/pkg/registry/templates/templateinstance"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
)

var (
	// Scheme holds every type the server encodes or decodes.
	Scheme = runtime.NewScheme()
	// Codecs serializes the types of Scheme.
	Codecs = serializer.NewCodecFactory(Scheme)
	// Served is what the server's groups decode requests and encode answers with: Codecs, with
	// one pass for Templates and Lists, YAML streams of one object and type errors worded
	// about the template (wordedDecodeErrors).
	Served runtime.NegotiatedSerializer = newWordedDecodeErrors(Codecs, Scheme)
)

func init() {
	install.Install(Scheme)

	// The generic server decodes query options such as ListOptions in an empty-group v1.
	metav1.AddToGroupVersion(Scheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Group: "", Version: "v1"}
	Scheme.AddUnversionedTypes(unversioned,
		&metav1.Status{},
		&metav1.APIVersions{},
		&metav1.APIGroupList{},
		&metav1.APIGroup{},
		&metav1.APIResourceList{},
		// Processing answers a v1 List, which belongs to no group version of ours. It is
		// registered here only, not by v1alpha1.AddToScheme: a client's scheme usually holds
		// client-go's v1 List already, and clients decode the answer into v1alpha1.List without
		// a registration.
		&v1alpha1.List{},
	)
	// processedtemplates reports a kind of its own (see processedtemplate.Kind); the endpoint
	// installer makes its request objects by that kind, and they are Templates.
	Scheme.AddKnownTypeWithName(v1alpha1.SchemeGroupVersion.WithKind(processedtemplate.Kind), &v1alpha1.Template{})
}

// The priorities of both groups in discovery, as their APIServices in artifacts/deploy declare
// them. Clients that resolve a resource name served by both groups (kubectl's "templates",
// "template") take the group that discovery lists first; the higher groupPriorityMinimum comes
// first. Through the aggregator the APIServices decide; a local server, which has no
// aggregator, gives its own discovery the same order (the generic server's default, 1000 for
// every group, would sort by name and put template.openshift.io first).
const (
	// GroupPriorityMinimum is templates.stencil.dev's: kubectl's "templates" means ours.
	GroupPriorityMinimum = 1000
	// OpenShiftGroupPriorityMinimum is template.openshift.io's, below ours: its templates are
	// asked for as templates.template.openshift.io.
	OpenShiftGroupPriorityMinimum = 900
	// VersionPriority is the priority of each group's only version.
	VersionPriority = 15
)

// ExtraConfig holds the configuration that is Stencil's own.
type ExtraConfig struct {
	// HashKey keys the hashes of what instances render (templateinstance.Config.HashKey);
	// every replica has the same.
	HashKey []byte
	// OpenShiftTemplates serves template.openshift.io/v1 templates, processedtemplates and
	// templateinstances over the storage of our Templates and TemplateInstances.
	OpenShiftTemplates bool
	// ClusterConfig reaches the hosting cluster's kube-apiserver, for discovery; nil when the
	// server runs without a cluster.
	ClusterConfig *restclient.Config
	// Observer turns processing into metrics; nil for none.
	Observer renderrest.Observer
	// Processing are the renderer's settings (caches, output and per-request limits), given
	// to it as they are; zero fields mean its defaults.
	Processing render.Config
	// ProcessingMemory is the memory processing requests hold together; nil means
	// renderrest.NewProcessingBudget's default.
	ProcessingMemory *renderrest.Budget
	// KustomizeBuilder runs the inline Kustomizations' builds where they stop with their
	// request (the binary's build workers); nil runs them in the request's goroutine.
	KustomizeBuilder transform.Builder
	// Instances configure the TemplateInstance controller, which acts in the cluster of its
	// Target, ClusterConfig when not set; nil runs none. The server fills in the loopback
	// client, storage and renderer.
	Instances *templateinstance.Options
	// Plugins says which plugin providers run in a namespace; nil runs none.
	Plugins plugin.PolicyFunc
	// TemplateRevisionHistory is how many revisions of each Template are kept besides those
	// instances use; 0 means templaterevision.DefaultHistory.
	TemplateRevisionHistory int
	// TemplateTypes type-checks the objects of each Template written against the cluster's
	// kinds (--template-type-check); nil checks none.
	TemplateTypes *templatecheck.Types
	// Artifacts runs the artifact server of published TemplateInstances; nil runs none, and
	// such instances are refused.
	Artifacts *ArtifactConfig
}

// Config is the configuration of a Stencil server.
type Config struct {
	GenericConfig *genericapiserver.RecommendedConfig
	ExtraConfig   ExtraConfig
}

// StencilServer is a running Stencil API server.
type StencilServer struct {
	GenericAPIServer *genericapiserver.GenericAPIServer
	// InnerHandler is what the generic filters (authentication, authorization, audit, priority
	// and fairness, timeouts) hand each request to: Stencil's own filters (memory, provenance)
	// and the API's routes, the processing POSTs first. Requests reach it through
	// GenericAPIServer.Handler; a benchmark calls it to measure a request past the filters every
	// API server runs, with the request information and user those filters set.
	InnerHandler http.Handler
}

type completedConfig struct {
	GenericConfig genericapiserver.CompletedConfig
	ExtraConfig   *ExtraConfig
	// processing serves the processing POSTs, innermost in the handler chain; New adds its
	// routes.
	processing *processingRoutes
	// inner is the handler the generic filters hand requests to (set as the chain is built).
	inner *http.Handler
}

// CompletedConfig is a Config whose defaults are filled in; only Complete makes one.
type CompletedConfig struct {
	*completedConfig
}

// Complete fills in the fields not set.
func (cfg *Config) Complete() CompletedConfig {
	if cfg.ExtraConfig.ProcessingMemory == nil {
		cfg.ExtraConfig.ProcessingMemory = renderrest.NewProcessingBudget(0, nil)
	}
	memory := cfg.ExtraConfig.ProcessingMemory
	processing := &processingRoutes{}
	inner := new(http.Handler)
	if chain := cfg.GenericConfig.BuildHandlerChainFunc; chain != nil {
		cfg.GenericConfig.BuildHandlerChainFunc = func(api http.Handler, c *genericapiserver.Config) http.Handler {
			// Innermost, where the answer is encoded and written: a request's memory (its body,
			// its processing, its answer) is held until then, and the body is read, charged and
			// converted before the API machinery reads it (withBodies); processing POSTs are then
			// decoded in one pass (processingRoutes).
			processing.next = api
			bodies := withBodies(renderrest.ReadProvenanceParameter(processing), c.MaxRequestBodyBytes, Codecs, processing.mayFinish)
			*inner = quietAfterDeadline(memory.HoldUntilWritten(bodies))
			return chain(*inner, c)
		}
	}
	return CompletedConfig{&completedConfig{cfg.GenericConfig.Complete(), &cfg.ExtraConfig, processing, inner}}
}

// New builds the server from a completed configuration.
func (c completedConfig) New() (*StencilServer, error) {
	genericServer, err := c.GenericConfig.New("stencil-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, err
	}
	s := &StencilServer{GenericAPIServer: genericServer, InnerHandler: *c.inner}

	revisionREST, revisions, err := templaterevision.NewREST(Scheme, c.GenericConfig.RESTOptionsGetter, c.ExtraConfig.TemplateRevisionHistory)
	if err != nil {
		return nil, err
	}
	templateREST, err := templatestorage.NewREST(Scheme, c.GenericConfig.RESTOptionsGetter, c.ExtraConfig.Plugins, revisions, c.ExtraConfig.TemplateTypes)
	if err != nil {
		return nil, err
	}
	// Local mode is served by no cluster's garbage collector: the storage deletes a Template's
	// revisions, whatever propagation the deletion asks for.
	noGarbageCollector := c.ExtraConfig.ClusterConfig == nil
	if noGarbageCollector {
		templateREST.WithoutGarbageCollector()
	}
	customTransformREST, err := customtransform.NewREST(Scheme, c.GenericConfig.RESTOptionsGetter)
	if err != nil {
		return nil, err
	}
	noCluster := c.ExtraConfig.ClusterConfig == nil && (c.ExtraConfig.Instances == nil || c.ExtraConfig.Instances.Target == nil)
	guard, err := c.uninstallGuard(noCluster)
	if err != nil {
		return nil, err
	}
	instanceCaps := instancestorage.Capabilities{NoCluster: noCluster, Publishing: c.ExtraConfig.Artifacts != nil && !noCluster}
	instanceREST, instanceStatusREST, err := instancestorage.NewREST(Scheme, c.GenericConfig.RESTOptionsGetter, instanceCaps, guard)
	if err != nil {
		return nil, err
	}
	revisions.SetInstances(instanceREST)
	renderer := renderrest.NewAdapter(renderrest.Sources{
		Templates:      templateREST,
		RemovalRules:   customtransform.NewRules(customTransformREST).Current,
		KindToResource: kindToResource(c.ExtraConfig.ClusterConfig),
		Authorizer:     c.GenericConfig.Authorization.Authorizer,
		Observer:       c.ExtraConfig.Observer,
		Processing:     c.ExtraConfig.Processing,
		Memory:         c.ExtraConfig.ProcessingMemory,
		Plugins:        c.ExtraConfig.Plugins,
		// The controller's renders build the same way, and stop when its pass is cancelled.
		KustomizeBuilder: c.ExtraConfig.KustomizeBuilder,
	})
	previewer, err := c.previewer(templateREST, revisions, instanceREST, renderer, noCluster)
	if err != nil {
		return nil, err
	}
	adoptionREST, err := c.adoptionREST(instance.StorageTemplates{Getter: templateREST, Revisions: revisions}, instanceREST, renderer, noCluster)
	if err != nil {
		return nil, err
	}
	codecs := Served
	processingScope := processingScope{serializer: codecs, admission: c.GenericConfig.AdmissionControl, maxBodyBytes: c.GenericConfig.MaxRequestBodyBytes}
	processedTemplates := processedtemplate.NewREST(renderer)
	if err := c.processing.add(v1alpha1.SchemeGroupVersion, "processedtemplates", processedTemplates, processingScope); err != nil {
		return nil, err
	}
	apiGroupInfo := genericapiserver.NewDefaultAPIGroupInfo(templates.GroupName, Scheme, metav1.ParameterCodec, Codecs)
	apiGroupInfo.NegotiatedSerializer = codecs
	apiGroupInfo.VersionedResourcesStorageMap["v1alpha1"] = map[string]rest.Storage{
		"templates":           templateREST,
		"templates/status":    templateREST.Status(),
		"templates/processed": templatestorage.NewProcessedREST(templateREST, renderer),
		"templates/schema":    templatestorage.NewSchemaREST(templateREST),
		"templates/preview": templatestorage.NewPreviewREST(templateREST, previewer, Scheme, c.ExtraConfig.Plugins,
			c.GenericConfig.Authorization.Authorizer),
		"processedtemplates":       processedTemplates,
		"templaterevisions":        revisionREST,
		"customtransforms":         customTransformREST,
		"templateinstances":        instanceREST,
		"templateinstances/status": instanceStatusREST,
		"adoptions":                adoptionREST,
	}
	groups := []*genericapiserver.APIGroupInfo{&apiGroupInfo}
	if c.ExtraConfig.OpenShiftTemplates {
		openshiftREST, err := openshifttemplate.NewREST(Scheme, c.GenericConfig.RESTOptionsGetter, c.ExtraConfig.Plugins, revisions, c.ExtraConfig.TemplateTypes)
		if err != nil {
			return nil, err
		}
		if noGarbageCollector {
			openshiftREST.WithoutGarbageCollector()
		}
		openshiftInstanceREST, openshiftInstanceStatusREST, err := openshiftinstance.NewREST(Scheme, c.GenericConfig.RESTOptionsGetter, instanceCaps, guard)
		if err != nil {
			return nil, err
		}
		openshiftProcessed := processedtemplate.NewOpenShiftREST(renderer)
		if err := c.processing.add(openshift.SchemeGroupVersion, "processedtemplates", openshiftProcessed, processingScope); err != nil {
			return nil, err
		}
		openshiftGroup := genericapiserver.NewDefaultAPIGroupInfo(openshift.GroupName, Scheme, metav1.ParameterCodec, Codecs)
		openshiftGroup.NegotiatedSerializer = codecs
		openshiftGroup.VersionedResourcesStorageMap[openshift.SchemeGroupVersion.Version] = map[string]rest.Storage{
			"templates":                openshiftREST,
			"processedtemplates":       openshiftProcessed,
			"templateinstances":        openshiftInstanceREST,
			"templateinstances/status": openshiftInstanceStatusREST,
		}
		groups = append(groups, &openshiftGroup)
	}
	// One call for both groups: server-side apply then knows the models of both, which it
	// needs for an object written through one group and applied through the other.
	if err := s.GenericAPIServer.InstallAPIGroups(groups...); err != nil {
		return nil, err
	}
	if discovery := s.GenericAPIServer.AggregatedDiscoveryGroupManager; discovery != nil {
		discovery.SetGroupVersionPriority(metav1.GroupVersion(v1alpha1.SchemeGroupVersion), GroupPriorityMinimum, VersionPriority)
		if c.ExtraConfig.OpenShiftTemplates {
			discovery.SetGroupVersionPriority(metav1.GroupVersion(openshift.SchemeGroupVersion), OpenShiftGroupPriorityMinimum, VersionPriority)
		}
	}
	var artifacts *templateinstance.ArtifactOptions
	if instanceCaps.Publishing {
		handler, err := c.artifactHandler(instanceREST)
		if err != nil {
			return nil, err
		}
		serveArtifacts(s.GenericAPIServer, c.ExtraConfig.Artifacts.Address, handler)
		artifacts = &templateinstance.ArtifactOptions{URL: c.ExtraConfig.Artifacts.URL, Published: handler.Published}
	}
	if opts := c.ExtraConfig.Instances; opts != nil && !noCluster {
		opts := *opts
		if opts.Target == nil {
			opts.Target = c.ExtraConfig.ClusterConfig
		}
		opts.Templates, opts.Revisions, opts.Renderer, opts.Previewer = templateREST, revisions, renderer, previewer
		opts.Artifacts = artifacts
		opts.Authorizer, opts.HashKey = c.GenericConfig.Authorization.Authorizer, c.ExtraConfig.HashKey
		s.GenericAPIServer.AddPostStartHookOrDie("stencil-templateinstance-controller", func(hook genericapiserver.PostStartHookContext) error {
			opts.Loopback = hook.LoopbackClientConfig
			controller, err := templateinstance.New(opts)
			if err != nil {
				return err
			}
			go controller.Run(hook.Context)
			return nil
		})
	}
	return s, nil
}

// uninstallGuard checks that whoever deletes a TemplateInstance may delete what it manages,
// in the cluster its objects are applied in; a server without a cluster needs none.
func (c completedConfig) uninstallGuard(noCluster bool) (*instancestorage.UninstallGuard, error) {
	if noCluster {
		return nil, nil
	}
	target := c.ExtraConfig.ClusterConfig
	if opts := c.ExtraConfig.Instances; opts != nil && opts.Target != nil {
		target = opts.Target
	}
	mapper, err := restMapper(target)
	if err != nil {
		return nil, err
	}
	return &instancestorage.UninstallGuard{Authorizer: c.GenericConfig.Authorization.Authorizer, Mapper: mapper}, nil
}
