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

package integration

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// TestTemplatesNameMeansOurGroup: with --openshift-templates a local server serves
// "templates" in two groups, and kubectl takes the group discovery lists first. Ours must come
// first, as the APIServices' priorities make it in a cluster, so that kubectl get templates,
// kubectl explain template and stencil's own lookups mean templates.stencil.dev; OpenShift's
// group is asked for by name. The mapper is kubectl's own: cli-runtime's ConfigFlags over the
// server's aggregated discovery, with the short-name expander.
func TestTemplatesNameMeansOurGroup(t *testing.T) {
	s := startTestServer(t, t.TempDir(), "--openshift-templates")
	flags := genericclioptions.NewConfigFlags(false)
	kubeconfig, cacheDir := s.Kubeconfig(), t.TempDir()
	flags.KubeConfig, flags.CacheDir = &kubeconfig, &cacheDir
	mapper, err := flags.ToRESTMapper()
	if err != nil {
		t.Fatal(err)
	}
	ours := schema.GroupVersionKind{Group: "templates.stencil.dev", Version: "v1alpha1", Kind: "Template"}
	theirs := schema.GroupVersionKind{Group: "template.openshift.io", Version: "v1", Kind: "Template"}
	for arg, want := range map[string]schema.GroupVersionKind{
		"templates":                          ours,
		"template":                           ours,
		"tpl":                                ours,
		"templates.templates.stencil.dev":    ours,
		"templates.template.openshift.io":    theirs,
		"templates.v1.template.openshift.io": theirs,
	} {
		// As kubectl's resource builder reads an argument: resource.version.group first, then
		// resource.group.
		fully, gr := schema.ParseResourceArg(arg)
		var got schema.GroupVersionKind
		var err error
		if fully != nil {
			got, err = mapper.KindFor(*fully)
		}
		if fully == nil || err != nil {
			got, err = mapper.KindFor(gr.WithVersion(""))
		}
		if err != nil || got != want {
			t.Errorf("%q maps to %v (%v), want %v", arg, got, err, want)
		}
	}
}
