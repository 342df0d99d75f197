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
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakedynamic "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	stencilclient "stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/client/clienttest"
)

// clusterResources is the discovery of a small cluster: what kubectl's short names and
// stencil export's default kinds resolve against.
var clusterResources = []*metav1.APIResourceList{
	{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "services", SingularName: "service", Namespaced: true, Kind: "Service", ShortNames: []string{"svc"}, Verbs: []string{"list", "get"}},
		{Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap", ShortNames: []string{"cm"}, Verbs: []string{"list", "get"}},
		{Name: "namespaces", SingularName: "namespace", Namespaced: false, Kind: "Namespace", ShortNames: []string{"ns"}, Verbs: []string{"list", "get"}},
	}},
	{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
		{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", ShortNames: []string{"deploy"}, Verbs: []string{"list", "get"}},
	}},
}

// localModeResources is the discovery of a Stencil server in local mode: its own group only.
var localModeResources = []*metav1.APIResourceList{
	{GroupVersion: "templates.stencil.dev/v1alpha1", APIResources: []metav1.APIResource{
		{Name: "templates", SingularName: "template", Namespaced: true, Kind: "Template", ShortNames: []string{"tpl"}, Verbs: []string{"list", "get"}},
	}},
}

// testReader is an objectReader of namespace prod on a server with these resources and
// objects. Its mapper is the CLI's own (ConfigFlags.ToRESTMapper's), over a server that
// serves the resources' discovery.
func testReader(t *testing.T, resources []*metav1.APIResourceList, objects ...runtime.Object) (*objectReader, *bytes.Buffer) {
	d, err := stencilclient.NewDiscoveryForConfig(clienttest.NewDiscoveryServer(t, resources).Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper := stencilclient.NewMapper(d)
	listKinds := map[schema.GroupVersionResource]string{
		{Version: "v1", Resource: "services"}:                                        "ServiceList",
		{Version: "v1", Resource: "configmaps"}:                                      "ConfigMapList",
		{Version: "v1", Resource: "namespaces"}:                                      "NamespaceList",
		{Group: "apps", Version: "v1", Resource: "deployments"}:                      "DeploymentList",
		{Group: "templates.stencil.dev", Version: "v1alpha1", Resource: "templates"}: "TemplateList",
	}
	client := fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, objects...)
	var errOut bytes.Buffer
	return &objectReader{dynamic: client, mapper: mapper, namespace: "prod", host: "https://test:6443",
		streams: IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut}}, &errOut
}

func object(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// TestExportTypesResolveAsKubectl: TYPE arguments are resolved as kubectl resolves them:
// discovery's short names, singular names and kinds, with or without the group.
func TestExportTypesResolveAsKubectl(t *testing.T) {
	r, _ := testReader(t, clusterResources)
	targets, err := r.targets([]string{"deploy,svc,cm,Deployment,service,deployments.apps,cm/settings"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range targets {
		got = append(got, describeTarget(tg))
	}
	if want := "deployments.apps,services,configmaps,configmaps/settings"; strings.Join(got, ",") != want {
		t.Errorf("targets %v, want %s", got, want)
	}
	if _, err := r.targets([]string{"ns"}); err == nil || !strings.Contains(err.Error(), "not namespaced") {
		t.Errorf("a cluster-scoped kind: %v", err)
	}
	if _, err := r.targets([]string{"deploy,gadgets"}); err == nil ||
		err.Error() != `the server at https://test:6443 doesn't have a resource type "gadgets"` {
		t.Errorf("an unknown type: %v", err)
	}
}

// TestExportOfNothingSaysWhy: an export that finds nothing to put in the template fails with
// the reason, and prints no Template.
func TestExportOfNothingSaysWhy(t *testing.T) {
	prod := object("v1", "Namespace", "", "prod")
	cases := []struct {
		name      string
		resources []*metav1.APIResourceList
		objects   []runtime.Object
		o         ExportOptions
		want      string
		forbidden bool // every list answers 403
	}{
		{"a server without the kinds (local mode)", localModeResources, nil, ExportOptions{},
			"the server at https://test:6443 serves none of the kinds stencil export reads (deployments.apps, ", false},
		{"a short name on that server", localModeResources, nil, ExportOptions{Resources: []string{"deploy,svc"}},
			`the server at https://test:6443 doesn't have a resource type "deploy": it serves no core API (Services, ConfigMaps), as a Stencil server in local mode`, false},
		{"no namespace", clusterResources, nil, ExportOptions{},
			"nothing to export: namespace prod does not exist", false},
		{"an empty namespace", clusterResources, []runtime.Object{prod}, ExportOptions{},
			"nothing to export: namespace prod holds none of deployments.apps, services, configmaps", false},
		{"nothing with the labels", clusterResources, []runtime.Object{prod, object("v1", "ConfigMap", "prod", "other")},
			ExportOptions{Resources: []string{"cm"}, Selector: "app=shop"},
			"nothing to export: namespace prod holds none of configmaps with labels app=shop", false},
		{"only what the namespace makes", clusterResources, []runtime.Object{prod, object("v1", "ConfigMap", "prod", "kube-root-ca.crt")},
			ExportOptions{},
			"nothing to export: each of the 1 objects read is made by something else, which re-creates it:\n  * v1 ConfigMap kube-root-ca.crt: every namespace gets it", false},
		{"nothing the user may read", clusterResources, []runtime.Object{prod}, ExportOptions{Resources: []string{"deploy,svc"}},
			"nothing to export: you may read none of deployments.apps, services in namespace prod", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := testReader(t, tc.resources, tc.objects...)
			if tc.forbidden {
				r.dynamic.(*fakedynamic.FakeDynamicClient).PrependReactor("list", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(a.GetResource().GroupResource(), "", errors.New("no"))
				})
			}
			o := tc.o
			o.Name, o.Output, o.Parameterize, o.streams = "shop", "yaml", true, r.streams
			err := o.export(context.Background(), r)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v\nwant one starting %q", err, tc.want)
			}
			if out := r.streams.Out.(*bytes.Buffer).String(); out != "" {
				t.Errorf("printed %q", out)
			}
		})
	}
}
