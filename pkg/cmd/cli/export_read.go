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
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/export"
)

// defaultExportKinds are the namespaced kinds of an application that stencil export reads when
// no TYPE is given.
var defaultExportKinds = []string{
	"deployments.apps", "statefulsets.apps", "daemonsets.apps", "cronjobs.batch", "jobs.batch",
	"services", "configmaps", "secrets", "persistentvolumeclaims", "serviceaccounts",
	"roles.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io",
	"ingresses.networking.k8s.io", "networkpolicies.networking.k8s.io",
	"horizontalpodautoscalers.autoscaling", "poddisruptionbudgets.policy",
}

// exportPageSize is how many objects one list request returns, so that a large namespace is
// read in pages rather than in one answer the server has to build at once.
const exportPageSize = 500

// exportConcurrency bounds the list requests in flight.
const exportConcurrency = 4

// objectReader reads the objects of one namespace with the user's credentials through
// discovery and the dynamic client.
type objectReader struct {
	dynamic   dynamic.Interface
	mapper    meta.RESTMapper
	namespace string
	// host is the server's address, for errors that are about the server.
	host    string
	streams IOStreams
}

func newObjectReader(config *ConfigFlags, streams IOStreams) (*objectReader, error) {
	restConfig, err := config.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	restConfig = rest.CopyConfig(restConfig)
	restConfig.WarningHandler = rest.NewWarningWriter(streams.ErrOut, rest.WarningWriterOptions{Deduplicate: true})
	// One list per kind, a few at a time: client-go's default of 5 requests a second would
	// make the reading of the default kinds wait for the rate limiter rather than the server.
	restConfig.QPS, restConfig.Burst = 50, 100
	client, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	mapper, err := config.ToRESTMapper()
	if err != nil {
		return nil, err
	}
	namespace, _, err := config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, err
	}
	return &objectReader{dynamic: client, mapper: mapper, namespace: namespace, host: restConfig.Host, streams: streams}, nil
}

// target is one request: a list of a kind, or one object when name is set.
type target struct {
	mapping *meta.RESTMapping
	name    string
}

// readReport says what a read asked for, for the error that a read of nothing becomes.
type readReport struct {
	// read names the kinds or objects listed or got, forbidden names those the user may not
	// read.
	read, forbidden []string
}

// read returns the objects that the arguments name, in the order of the arguments.
func (r *objectReader) read(ctx context.Context, resources []string, selector string) ([]export.Object, *readReport, error) {
	targets, err := r.targets(resources)
	if err != nil {
		return nil, nil, err
	}
	results := make([][]export.Object, len(targets))
	errs := make([]error, len(targets))
	slots := make(chan struct{}, exportConcurrency)
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			results[i], errs[i] = r.readTarget(ctx, t, selector)
		}()
	}
	wg.Wait()
	var objects []export.Object
	report := &readReport{}
	for i, t := range targets {
		report.read = append(report.read, describeTarget(t))
		switch err := errs[i]; {
		case err == nil:
			objects = append(objects, results[i]...)
		case apierrors.IsForbidden(err):
			report.forbidden = append(report.forbidden, describeTarget(t))
			fmt.Fprintf(r.streams.ErrOut, "warning: you may not %s %s in namespace %s: left out of the export\n",
				verb(t), describeTarget(t), r.namespace)
		default:
			return nil, nil, fmt.Errorf("reading %s: %w", describeTarget(t), err)
		}
	}
	return objects, report, nil
}

func verb(t target) string {
	if t.name != "" {
		return "get"
	}
	return "list"
}

// describeTarget names a target as kubectl does: deployments.apps, or deployments.apps/web.
func describeTarget(t target) string {
	s := t.mapping.Resource.GroupResource().String()
	if t.name != "" {
		s += "/" + t.name
	}
	return s
}

// readTarget lists a kind page by page, or gets one object.
func (r *objectReader) readTarget(ctx context.Context, t target, selector string) ([]export.Object, error) {
	client := r.dynamic.Resource(t.mapping.Resource).Namespace(r.namespace)
	if t.name != "" {
		obj, err := client.Get(ctx, t.name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return []export.Object{obj.Object}, nil
	}
	var objects []export.Object
	opts := metav1.ListOptions{LabelSelector: selector, Limit: exportPageSize}
	for {
		list, err := client.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			objects = append(objects, list.Items[i].Object)
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return objects, nil
		}
	}
}

// targets resolves the arguments through discovery: the default kinds (those the server
// does not serve are left out), the kinds of TYPE[,TYPE...], or the objects of TYPE/NAME.
func (r *objectReader) targets(resources []string) ([]target, error) {
	var targets []target
	if len(resources) == 0 {
		for _, kind := range defaultExportKinds {
			mapping, err := r.mapping(kind)
			if meta.IsNoMatchError(err) {
				continue // an older or smaller server: nothing of that kind to export
			}
			if err != nil {
				return nil, err
			}
			targets = append(targets, target{mapping: mapping})
		}
		if len(targets) == 0 {
			return nil, fmt.Errorf("the server at %s serves none of the kinds stencil export reads (%s)%s",
				r.host, strings.Join(defaultExportKinds, ", "), r.notACluster())
		}
		return targets, nil
	}
	seen := map[string]bool{}
	for _, arg := range resources {
		for _, item := range strings.Split(arg, ",") {
			kind, name, _ := strings.Cut(item, "/")
			mapping, err := r.mapping(kind)
			if meta.IsNoMatchError(err) {
				// kubectl's words for a type that discovery does not know.
				return nil, fmt.Errorf("the server at %s doesn't have a resource type %q%s", r.host, kind, r.notACluster())
			}
			if err != nil {
				return nil, err
			}
			if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
				return nil, fmt.Errorf("%s are not namespaced: a template of a namespace cannot hold them", mapping.Resource.GroupResource())
			}
			t := target{mapping: mapping, name: name}
			if key := describeTarget(t); !seen[key] {
				seen[key] = true
				targets = append(targets, t)
			}
		}
	}
	return targets, nil
}

// namespaceMissing reports whether the namespace read is known not to exist; a user who may
// not read namespaces is told nothing more.
func (r *objectReader) namespaceMissing(ctx context.Context) bool {
	_, err := r.dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(ctx, r.namespace, metav1.GetOptions{})
	return apierrors.IsNotFound(err)
}

// notACluster explains, for a server without the core API (Services, ConfigMaps), what it
// is and where export reads from instead; "" for any other server.
func (r *objectReader) notACluster() string {
	if _, err := r.mapper.KindFor(schema.GroupVersionResource{Resource: "configmaps"}); !meta.IsNoMatchError(err) {
		return ""
	}
	return ": it serves no core API (Services, ConfigMaps), as a Stencil server in local mode serves only Stencil's own " +
		"groups; export reads the namespace of a cluster: give that cluster's kubeconfig (--kubeconfig, --context)"
}

// mapping resolves a type as kubectl does: a resource, a singular or short name, or a kind,
// optionally with its group (deployments.apps) or version and group (deployments.v1.apps).
func (r *objectReader) mapping(arg string) (*meta.RESTMapping, error) {
	if arg == "" {
		return nil, fmt.Errorf("an empty type")
	}
	fullySpecified, groupResource := schema.ParseResourceArg(strings.ToLower(arg))
	var gvk schema.GroupVersionKind
	if fullySpecified != nil {
		gvk, _ = r.mapper.KindFor(*fullySpecified)
	}
	if gvk.Empty() {
		var err error
		if gvk, err = r.mapper.KindFor(groupResource.WithVersion("")); err != nil {
			return nil, err
		}
	}
	return r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
}
