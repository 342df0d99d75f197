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
	"os"
	"path/filepath"
	"strings"
	"testing"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func TestAdoptArguments(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "web.yaml")
	if err := os.WriteFile(file, []byte("apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: web}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		o     adoptOptions
		check func(*templatesv1.Adoption) bool
		err   string
	}{
		{"a Helm release, named after it", []string{"helm", "web"}, adoptOptions{template: "web", retainUntilUpgrade: true, managers: []string{"argo"}},
			func(a *templatesv1.Adoption) bool {
				s := a.Spec.Adoption
				return a.Name == "web" && s.HelmRelease == "web" && s.RetainUntilUpgrade && s.Managers[0] == "argo" && a.Spec.TemplateRef.Name == "web"
			}, ""},
		{"an ApplySet's ConfigMap, a file", []string{"applyset", "configmaps/shop-set"}, adoptOptions{file: file},
			func(a *templatesv1.Adoption) bool {
				return a.Name == "shop-set" && a.Spec.Adoption.ApplySet == "configmaps/shop-set" && strings.Contains(string(a.Spec.Template.Raw), `"kind":"Template"`)
			}, ""},
		{"a selector, named by the template", []string{"selector"}, adoptOptions{template: "web", selector: "app=web,tier in (a)", leaveUnrendered: true},
			func(a *templatesv1.Adoption) bool {
				s := a.Spec.Adoption
				return a.Name == "web" && s.Selector.MatchLabels["app"] == "web" && len(s.Selector.MatchExpressions) == 1 && s.LeaveUnrendered
			}, ""},
		{"a selector without -l", []string{"selector"}, adoptOptions{template: "web"}, nil, "adopt selector needs -l SELECTOR"},
		{"-l elsewhere", []string{"helm", "web"}, adoptOptions{template: "web", selector: "a=b"}, nil, "-l is for adopt selector"},
		{"no template", []string{"helm", "web"}, adoptOptions{}, nil, "give exactly one of --template NAME"},
		{"both", []string{"helm", "web"}, adoptOptions{template: "web", file: file}, nil, "give exactly one of --template NAME"},
		{"what", []string{"argo", "web"}, adoptOptions{template: "web"}, nil, `adopt what? helm RELEASE, applyset PARENT or selector -l SELECTOR, not "argo web"`},
		{"a selector and a file: no name", []string{"selector"}, adoptOptions{file: file, selector: "app=web"}, nil, "--name is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.process = ProcessOptions{streams: IOStreams{In: &bytes.Buffer{}}}
			a, err := o.adoption(tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !tc.check(a) {
				t.Fatalf("got %+v, %v", a, err)
			}
		})
	}
}

func TestPrintAdoption(t *testing.T) {
	a := &templatesv1.Adoption{Status: templatesv1.AdoptionStatus{Phase: templatesv1.AdoptionRefused, Source: "Helm release shop/web revision 2 (chart web-1.0.0)",
		Objects: []templatesv1.AdoptionObject{
			{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Action: templatesv1.AdoptionAdopt, Lifecycle: "delete",
				Changed: []string{"spec.replicas"}, Removed: []string{"metadata.labels[helm.sh/chart]"}, Managers: []string{"helm"}, Immutable: []string{"spec.selector"}},
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "old", Action: templatesv1.AdoptionRefuse, Problems: []string{"the Template does not render it"}},
		},
		GeneratedParameters: []templatesv1.AdoptedParameter{{Name: "PASSWORD", From: "Secret shop/web-db data.password"}, {Name: "TOKEN", Reason: "no rendered object holds it"}},
		Records:             []string{"secrets shop/sh.helm.release.v1.web.v2"}}}
	a.Name = "web"
	var out bytes.Buffer
	if err := printAdoption(&out, a, ""); err != nil {
		t.Fatal(err)
	}
	want := `Helm release shop/web revision 2 (chart web-1.0.0) -> templateinstance web: Refused
ACTION  OBJECT               LIFECYCLE  CHANGED  REMOVED  MANAGERS MOVED
Adopt   Deployment shop/web  delete     1        1        helm
Refuse  ConfigMap shop/old   -          0        0        -
Deployment web:
  ~ spec.replicas
  - metadata.labels[helm.sh/chart]
  ! spec.selector is immutable: the render changes it
ConfigMap old:
  ! the Template does not render it
generated parameter PASSWORD: kept from Secret shop/web-db data.password
generated parameter TOKEN: a new value is generated (no rendered object holds it)
removed last: secrets shop/sh.helm.release.v1.web.v2
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := printAdoption(&out, a, "yaml"); err != nil || !strings.Contains(out.String(), "kind: Adoption") || !strings.Contains(out.String(), "phase: Refused") {
		t.Errorf("yaml: %v\n%s", err, out.String())
	}
}
