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

package release

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"stencil.dev/stencil/pkg/apiserver"
)

// checkPriorities compares an APIService's priorities with those a local server gives its
// group in discovery: kubectl must pick the same group for "templates" in both modes.
func checkPriorities(t *testing.T, m manifests, name string, group int) {
	t.Helper()
	var a struct {
		Spec struct{ GroupPriorityMinimum, VersionPriority int }
	}
	m.get(t, "APIService/"+name, &a)
	if a.Spec.GroupPriorityMinimum != group || a.Spec.VersionPriority != apiserver.VersionPriority {
		t.Errorf("APIService %s: groupPriorityMinimum %d, versionPriority %d; local mode uses %d, %d",
			name, a.Spec.GroupPriorityMinimum, a.Spec.VersionPriority, group, apiserver.VersionPriority)
	}
}

// manifests are the objects a kustomization builds, by kind and name.
type manifests map[string]json.RawMessage

func build(t *testing.T, dir string) manifests {
	t.Helper()
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(repoRoot, dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	m := manifests{}
	for _, r := range resMap.Resources() {
		b, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		m[r.GetKind()+"/"+r.GetName()] = b
	}
	return m
}

func (m manifests) get(t *testing.T, key string, into any) {
	t.Helper()
	raw, ok := m[key]
	if !ok {
		t.Fatalf("no %s among %v", key, slices.Sorted(func(yield func(string) bool) {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		}))
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// flag returns the value of --name in args.
func flag(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

const apiServiceName = "v1alpha1.templates.stencil.dev"

// TestDeployManifests checks what kubectl apply -k artifacts/deploy installs: a hardened,
// disruption-tolerant Deployment whose server makes its own certificate, and RBAC that lets it
// touch only its own Secret and APIService.
func TestDeployManifests(t *testing.T) {
	m := build(t, "artifacts/deploy")
	var d appsv1.Deployment
	m.get(t, "Deployment/stencil-apiserver", &d)
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("replicas %v, want at least 2", d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	if c.Image != "stencil-apiserver:latest" {
		t.Errorf("image %q", c.Image)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe == nil || c.LivenessProbe.HTTPGet.Path != "/livez" {
		t.Errorf("probes: readiness %+v liveness %+v", c.ReadinessProbe, c.LivenessProbe)
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if c.Resources.Requests.Name(r, "").IsZero() || c.Resources.Limits.Name(r, "").IsZero() {
			t.Errorf("no request or limit of %s", r)
		}
	}
	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || sc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil ||
		psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault || sc.ReadOnlyRootFilesystem == nil ||
		!*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
		t.Errorf("security context: pod %+v container %+v", psc, sc)
	}
	if a := pod.Affinity; a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 ||
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey != corev1.LabelHostname {
		t.Errorf("no anti-affinity across nodes: %+v", pod.Affinity)
	}
	var pdb policyv1.PodDisruptionBudget
	m.get(t, "PodDisruptionBudget/stencil-apiserver", &pdb)
	if pdb.Spec.Selector == nil || pdb.Spec.Selector.MatchLabels["app.kubernetes.io/name"] != d.Spec.Selector.MatchLabels["app.kubernetes.io/name"] {
		t.Errorf("the PodDisruptionBudget does not select the Deployment's pods: %+v", pdb.Spec.Selector)
	}

	secret, _ := flag(c.Args, "self-signed-cert-secret")
	if secret != "$(POD_NAMESPACE)/stencil-apiserver-serving-cert" {
		t.Errorf("--self-signed-cert-secret=%q", secret)
	}
	if name, _ := flag(c.Args, "apiservice-name"); name != apiServiceName {
		t.Errorf("--apiservice-name=%q, want %s", name, apiServiceName)
	}
	var apiService struct {
		Spec map[string]any `json:"spec"`
	}
	m.get(t, "APIService/"+apiServiceName, &apiService)
	if _, ok := apiService.Spec["caBundle"]; ok {
		t.Errorf("the APIService sets caBundle: the server's must survive kubectl apply")
	}
	checkPriorities(t, m, apiServiceName, apiserver.GroupPriorityMinimum)

	var role rbacv1.Role
	m.get(t, "Role/stencil-apiserver-serving-cert", &role)
	for _, r := range role.Rules {
		named := slices.Equal(r.ResourceNames, []string{"stencil-apiserver-serving-cert"})
		if !slices.Equal(r.Verbs, []string{"create"}) && !named {
			t.Errorf("a rule reaches Secrets beyond the certificate's: %+v", r)
		}
	}
	var clusterRole rbacv1.ClusterRole
	m.get(t, "ClusterRole/stencil-apiserver", &clusterRole)
	found := false
	for _, r := range clusterRole.Rules {
		if slices.Contains(r.APIGroups, "apiregistration.k8s.io") {
			found = true
			if !slices.Equal(r.ResourceNames, []string{apiServiceName}) {
				t.Errorf("the server may write APIServices beyond its own: %+v", r)
			}
		}
	}
	if !found {
		t.Error("the server may not keep its APIService's caBundle")
	}

	// The artifact server of published instances: the Service reaches the container's port,
	// and the URL written into ExternalArtifacts names the Service.
	var artifacts corev1.Service
	m.get(t, "Service/stencil-artifacts", &artifacts)
	port, _ := flag(c.Args, "artifact-port")
	url, _ := flag(c.Args, "artifact-url")
	served := false
	for _, p := range c.Ports {
		served = served || (p.Name == "artifacts" && fmt.Sprint(p.ContainerPort) == port)
	}
	if !served || len(artifacts.Spec.Ports) != 1 || artifacts.Spec.Ports[0].TargetPort.String() != "artifacts" ||
		artifacts.Spec.Selector["app.kubernetes.io/name"] != d.Spec.Selector.MatchLabels["app.kubernetes.io/name"] ||
		url != "http://stencil-artifacts.$(POD_NAMESPACE).svc.cluster.local." {
		t.Errorf("the artifact server: --artifact-port=%s --artifact-url=%s, ports %+v, Service %+v", port, url, c.Ports, artifacts.Spec)
	}
}

// TestCertManagerOverlay checks that the overlay moves the certificate to cert-manager and keeps
// the rest of the base's command line.
func TestCertManagerOverlay(t *testing.T) {
	base := build(t, "artifacts/deploy")
	m := build(t, "artifacts/deploy/overlays/cert-manager")
	var baseDeploy, d appsv1.Deployment
	base.get(t, "Deployment/stencil-apiserver", &baseDeploy)
	m.get(t, "Deployment/stencil-apiserver", &d)

	var want []string
	for _, a := range baseDeploy.Spec.Template.Spec.Containers[0].Args {
		if !strings.HasPrefix(a, "--self-signed-cert-secret=") && !strings.HasPrefix(a, "--alternate-dns=") && !strings.HasPrefix(a, "--apiservice-name=") {
			want = append(want, a)
		}
	}
	c := d.Spec.Template.Spec.Containers[0]
	var got []string
	for _, a := range c.Args {
		if !strings.HasPrefix(a, "--tls-") {
			got = append(got, a)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the overlay's args drifted from the base's:\n got %q\nwant %q", got, want)
	}
	certFile, _ := flag(c.Args, "tls-cert-file")
	mount := c.VolumeMounts[0]
	if filepath.Dir(certFile) != mount.MountPath {
		t.Errorf("--tls-cert-file=%s is not in the mounted %s", certFile, mount.MountPath)
	}

	var cert struct {
		Metadata struct{ Name, Namespace string }
		Spec     struct {
			SecretName string   `json:"secretName"`
			DNSNames   []string `json:"dnsNames"`
		}
	}
	m.get(t, "Certificate/stencil-apiserver-serving-cert", &cert)
	var volumeSecret string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == mount.Name && v.Secret != nil {
			volumeSecret = v.Secret.SecretName
		}
	}
	if volumeSecret != cert.Spec.SecretName || !slices.Contains(cert.Spec.DNSNames, "stencil-apiserver.stencil-system.svc") {
		t.Errorf("the pods mount Secret %q, the Certificate writes %q for %v", volumeSecret, cert.Spec.SecretName, cert.Spec.DNSNames)
	}
	var apiService struct {
		Metadata struct{ Annotations map[string]string }
	}
	m.get(t, "APIService/"+apiServiceName, &apiService)
	if got := apiService.Metadata.Annotations["cert-manager.io/inject-ca-from"]; got != cert.Metadata.Namespace+"/"+cert.Metadata.Name {
		t.Errorf("inject-ca-from %q", got)
	}
	if _, ok := m["Role/stencil-apiserver-serving-cert"]; ok {
		t.Error("the overlay keeps the Role for the server's own certificate")
	}
	var clusterRole rbacv1.ClusterRole
	m.get(t, "ClusterRole/stencil-apiserver", &clusterRole)
	for _, r := range clusterRole.Rules {
		if slices.Contains(r.APIGroups, "apiregistration.k8s.io") {
			t.Errorf("the overlay lets the server write its APIService: %+v", r)
		}
	}
}

// TestOpenShiftTemplatesOverlay checks that the overlay serves template.openshift.io/v1
// through its own APIService, keeps that APIService's CA, and grants the group as the base
// grants ours.
func TestOpenShiftTemplatesOverlay(t *testing.T) {
	base := build(t, "artifacts/deploy")
	m := build(t, "artifacts/deploy/overlays/openshift-templates")
	var baseDeploy, d appsv1.Deployment
	base.get(t, "Deployment/stencil-apiserver", &baseDeploy)
	m.get(t, "Deployment/stencil-apiserver", &d)
	want := append(slices.Clone(baseDeploy.Spec.Template.Spec.Containers[0].Args), "--openshift-templates", "--apiservice-name=v1.template.openshift.io")
	if got := d.Spec.Template.Spec.Containers[0].Args; !slices.Equal(got, want) {
		t.Errorf("args:\n got %q\nwant %q", got, want)
	}
	var apiService struct {
		Spec struct {
			Group, Version string
			Service        struct{ Name, Namespace string }
		}
	}
	m.get(t, "APIService/v1.template.openshift.io", &apiService)
	if apiService.Spec.Group != "template.openshift.io" || apiService.Spec.Version != "v1" || apiService.Spec.Service.Name != "stencil-apiserver" {
		t.Errorf("APIService: %+v", apiService.Spec)
	}
	checkPriorities(t, m, "v1.template.openshift.io", apiserver.OpenShiftGroupPriorityMinimum)
	var role struct {
		Rules []struct {
			APIGroups     []string `json:"apiGroups"`
			ResourceNames []string `json:"resourceNames"`
		}
	}
	m.get(t, "ClusterRole/stencil-apiserver", &role)
	found := false
	for _, r := range role.Rules {
		found = found || slices.Contains(r.APIGroups, "apiregistration.k8s.io") && slices.Contains(r.ResourceNames, "v1.template.openshift.io")
	}
	if !found {
		t.Error("the server may not keep the caBundle of v1.template.openshift.io")
	}
	for _, name := range []string{"stencil-openshift-templates-view", "stencil-openshift-templates-edit"} {
		var r struct {
			Metadata struct{ Labels map[string]string }
		}
		m.get(t, "ClusterRole/"+name, &r)
		if r.Metadata.Labels["rbac.authorization.k8s.io/aggregate-to-edit"] != "true" {
			t.Errorf("%s is not aggregated into edit", name)
		}
	}
}
