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
	"k8s.io/cli-runtime/pkg/genericclioptions"
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
	streams   IOStreams
}

func newObjectReader(config *genericclioptions.ConfigFlags, streams IOStreams) (*objectReader, error) {
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
	return &objectReader{dynamic: client, mapper: mapper, namespace: namespace, streams: streams}, nil
}

// target is one request: a list of a kind, or one object when name is set.
type target struct {
	mapping *meta.RESTMapping
	name    string
}

// read returns the objects that the arguments name, in the order of the arguments.
func (r *objectReader) read(ctx context.Context, resources []string, selector string) ([]export.Object, error) {
	targets, err := r.targets(resources)
	if err != nil {
		return nil, err
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
	for i, t := range targets {
		switch err := errs[i]; {
		case err == nil:
			objects = append(objects, results[i]...)
		case apierrors.IsForbidden(err):
			fmt.Fprintf(r.streams.ErrOut, "warning: you may not %s %s in namespace %s: left out of the export\n",
				verb(t), describeTarget(t), r.namespace)
		default:
			return nil, fmt.Errorf("reading %s: %w", describeTarget(t), err)
		}
	}
	return objects, nil
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
		return targets, nil
	}
	seen := map[string]bool{}
	for _, arg := range resources {
		for _, item := range strings.Split(arg, ",") {
			kind, name, _ := strings.Cut(item, "/")
			mapping, err := r.mapping(kind)
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
