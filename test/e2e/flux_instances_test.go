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

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// fluxPublisher makes ServiceAccount name of ns a user who may use Stencil there and publish
// through Flux: what edit aggregates (Stencil's roles among them) and, as Flux's own install
// aggregates them into edit, its sources and Kustomizations. It returns the user's name in
// env.kubeconfigs.
func fluxPublisher(t testing.TB, ns, name string) string {
	t.Helper()
	mustKubectlTB(t, "admin", fmt.Sprintf(`apiVersion: v1
kind: ServiceAccount
metadata: {name: %[2]s, namespace: %[1]s}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: %[2]s-flux, namespace: %[1]s}
rules:
- apiGroups: [source.toolkit.fluxcd.io, kustomize.toolkit.fluxcd.io]
  resources: ["*"]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: %[2]s-flux, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[2]s-flux}
subjects: [{kind: ServiceAccount, name: %[2]s, namespace: %[1]s}]
`, ns, name), "apply", "-f", "-")
	for _, role := range []string{"system:aggregate-to-edit", "system:aggregate-to-view", "stencil-edit", "stencil-process", "stencil-view", "stencil-instance-view"} {
		mustKubectlTB(t, "admin", "", "create", "rolebinding", name+"-"+strings.ReplaceAll(role, ":", "-"), "-n", ns,
			"--clusterrole="+role, "--serviceaccount="+ns+":"+name)
	}
	token := mustKubectlTB(t, "admin", "", "create", "token", name, "-n", ns, "--duration=24h")
	user := ns + "-" + name
	if err := env.writeKubeconfig(user, &clientcmdapi.AuthInfo{Token: strings.TrimSpace(token)}); err != nil {
		t.Fatal(err)
	}
	return user
}

// publishedInstanceYAML is instance name of Template template, published, with parameters
// (YAML flow-mapping members) and delivery options (YAML lines under delivery).
func publishedInstanceYAML(name, template, parameters, delivery string) string {
	return fmt.Sprintf(`apiVersion: templates.stencil.dev/v1alpha1
kind: TemplateInstance
metadata: {name: %s}
spec:
  templateRef: {name: %s}
  parameters: {%s}
  delivery:
    type: ExternalArtifact
%s`, name, template, parameters, delivery)
}

// publishedReady holds when the instance is Ready on an artifact (its Kustomizations applied).
func publishedReady(ti *templatesv1.TemplateInstance) error {
	if err := conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue)(ti); err != nil {
		return err
	}
	if ti.Status.Artifact == nil {
		return fmt.Errorf("no artifact in the status")
	}
	return nil
}

// resourceVersionOf reads an object's resourceVersion as admin.
func resourceVersionOf(t *testing.T, ns string, args ...string) string {
	t.Helper()
	return mustKubectl(t, "admin", "", append([]string{"get", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}"}, args...)...)
}

const fluxWebTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: web}
parameters:
- {name: GREETING, value: hello}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: web-settings}, data: {greeting: "${GREETING}"}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: web-routes}, data: {path: /}}
`

// TestFluxPublishedInstance: a TemplateInstance whose delivery is ExternalArtifact is applied
// by Flux's own kustomize-controller, as the Kustomization's serviceAccountName: the objects
// are there and the Kustomization's inventory is the render; a parameter change is published
// and applied; a change that renders the same objects publishes nothing and applies nothing;
// an artifact changed on its way to Flux is refused for its digest and nothing changes; the
// instance is Ready only when Flux reports its digest applied.
func TestFluxPublishedInstance(t *testing.T) {
	needFlux(t)
	const ns = "e2e-flux-instances"
	fluxTenant(t, ns)
	user := fluxPublisher(t, ns, "publisher")
	mustKubectl(t, user, fluxWebTemplate, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, user, publishedInstanceYAML("web", "web", "GREETING: hello", ""), "apply", "-n", ns, "-f", "-")

	// Nothing applies it yet: published, not Ready, and nothing in the namespace.
	ti := waitInstance(t, ns, "web", time.Minute, "published, no Kustomization", func(ti *templatesv1.TemplateInstance) error {
		ready := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady)
		if ti.Status.Artifact == nil || ready == nil || ready.Reason != "NoKustomization" {
			return fmt.Errorf("artifact %+v, Ready %+v", ti.Status.Artifact, ready)
		}
		return nil
	})
	if _, err := env.kubectl("admin", "", "get", "configmap", "web-settings", "-n", ns); err == nil {
		t.Fatal("web-settings exists before any Kustomization applied the artifact: Stencil applied it")
	}
	first := ti.Status.Artifact.Revision
	if !strings.HasPrefix(first, "r1@sha256:") {
		t.Errorf("revision %q", first)
	}

	mustKubectl(t, user, kustomizationYAML(ns, "web", "web"), "apply", "-f", "-")
	ti = waitInstance(t, ns, "web", 2*time.Minute, "Ready once Flux applied it", publishedReady)
	k := waitKustomization(t, ns, "web", time.Minute, "applied", appliedRevision(first))
	want := []string{ns + "_web-routes__ConfigMap", ns + "_web-settings__ConfigMap"}
	if got := k.inventory(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Kustomization inventory %v, want %v", got, want)
	}
	if got := mustKubectl(t, "admin", "", "get", "configmap", "web-settings", "-n", ns, "-o", "jsonpath={.data.greeting}"); got != "hello" {
		t.Errorf("greeting %q", got)
	}
	// Flux applied it, as the Kustomization's ServiceAccount: its field manager owns it.
	if managers := mustKubectl(t, "admin", "", "get", "configmap", "web-settings", "-n", ns, "-o", "jsonpath={.metadata.managedFields[*].manager}"); !strings.Contains(managers, "kustomize-controller") {
		t.Errorf("managers of web-settings: %q", managers)
	}
	if applied := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceApplied); applied == nil || !strings.Contains(applied.Message, "Kustomization web") {
		t.Errorf("Applied %+v", applied)
	}

	// A parameter change: a new artifact, applied.
	mustKubectl(t, user, publishedInstanceYAML("web", "web", "GREETING: hola", ""), "apply", "-n", ns, "-f", "-")
	ti = waitInstance(t, ns, "web", 2*time.Minute, "the change applied", func(ti *templatesv1.TemplateInstance) error {
		if err := publishedReady(ti); err != nil {
			return err
		}
		if ti.Status.Artifact.Revision == first {
			return fmt.Errorf("still %s", first)
		}
		return nil
	})
	second := ti.Status.Artifact.Revision
	waitKustomization(t, ns, "web", time.Minute, "the change applied", appliedRevision(second))
	if got := mustKubectl(t, "admin", "", "get", "configmap", "web-settings", "-n", ns, "-o", "jsonpath={.data.greeting}"); got != "hola" {
		t.Errorf("greeting %q after the change", got)
	}

	// A change that renders the same objects: no new artifact, nothing written, nothing applied.
	before := map[string]string{
		"ExternalArtifact": resourceVersionOf(t, ns, "externalartifacts.source.toolkit.fluxcd.io", "web"),
		"storage":          resourceVersionOf(t, ns, "configmap", "web-artifact"),
		"web-settings":     resourceVersionOf(t, ns, "configmap", "web-settings"),
	}
	fetches := env.artifacts.fetches.Load()
	mustKubectl(t, user, publishedInstanceYAML("web", "web", "GREETING: hola", "")+"  properties: {unused: x}\n", "apply", "-n", ns, "-f", "-")
	ti = waitInstance(t, ns, "web", time.Minute, "the no-op change observed", func(ti *templatesv1.TemplateInstance) error {
		if ti.Generation < 3 || ti.Status.ObservedGeneration != ti.Generation {
			return fmt.Errorf("generation %d, observed %d", ti.Generation, ti.Status.ObservedGeneration)
		}
		return publishedReady(ti)
	})
	time.Sleep(3 * time.Second) // what Flux would do with a new artifact, it would have started
	if ti.Status.Artifact.Revision != second {
		t.Errorf("an unchanged render published %s (was %s)", ti.Status.Artifact.Revision, second)
	}
	for what, rv := range before {
		name := map[string][]string{"ExternalArtifact": {"externalartifacts.source.toolkit.fluxcd.io", "web"},
			"storage": {"configmap", "web-artifact"}, "web-settings": {"configmap", "web-settings"}}[what]
		if now := resourceVersionOf(t, ns, name...); now != rv {
			t.Errorf("an unchanged render wrote %s (resourceVersion %s, was %s)", what, now, rv)
		}
	}
	if n := env.artifacts.fetches.Load() - fetches; n != 0 {
		t.Errorf("kustomize-controller fetched %d artifacts after an unchanged render", n)
	}
	if k := getKustomization(t, ns, "web"); k.Status.LastAppliedRevision != second {
		t.Errorf("Kustomization applied %s", k.Status.LastAppliedRevision)
	}

	// Tampered on its way: Flux refuses the artifact for its digest and nothing changes.
	env.artifacts.tamper.Store(true)
	mustKubectl(t, user, publishedInstanceYAML("web", "web", "GREETING: tampered", ""), "apply", "-n", ns, "-f", "-")
	k = waitKustomization(t, ns, "web", 2*time.Minute, "the tampered artifact refused", func(k *kustomization) error {
		ready := k.ready()
		if ready == nil || ready.Status != metav1.ConditionFalse || !strings.Contains(ready.Message, "computed digest doesn't match") {
			return fmt.Errorf("Ready %+v", ready)
		}
		return nil
	})
	if k.Status.LastAppliedRevision != second {
		t.Errorf("Kustomization applied %s from a tampered artifact", k.Status.LastAppliedRevision)
	}
	if got := mustKubectl(t, "admin", "", "get", "configmap", "web-settings", "-n", ns, "-o", "jsonpath={.data.greeting}"); got != "hola" {
		t.Errorf("greeting %q after a tampered artifact", got)
	}
	waitInstance(t, ns, "web", time.Minute, "not Ready while Flux refuses it", func(ti *templatesv1.TemplateInstance) error {
		ready := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady)
		if ready == nil || ready.Status != metav1.ConditionFalse || !strings.Contains(ready.Message, "digest") {
			return fmt.Errorf("Ready %+v", ready)
		}
		return nil
	})
	env.artifacts.tamper.Store(false)
	ti = waitInstance(t, ns, "web", 2*time.Minute, "applied once the path is clean", publishedReady)
	if got := mustKubectl(t, "admin", "", "get", "configmap", "web-settings", "-n", ns, "-o", "jsonpath={.data.greeting}"); got != "tampered" {
		t.Errorf("greeting %q", got)
	}

	// Deleted: the ExternalArtifact and its storage go with the instance.
	mustKubectl(t, user, "", "delete", "templateinstance", "web", "-n", ns, "--wait=true", "--timeout=60s")
	for _, kind := range []string{"externalartifacts.source.toolkit.fluxcd.io/web", "configmap/web-artifact"} {
		if out, err := env.kubectl("admin", "", "get", kind, "-n", ns, "--ignore-not-found", "-o", "name"); err != nil || out != "" {
			t.Errorf("%s after the instance was deleted: %q %v", kind, out, err)
		}
	}
}

// fluxRetainTemplate renders ConfigMaps base, plain and kept (lifecycle retain); without
// dropped, only base.
func fluxRetainTemplate(dropped bool) string {
	objects := `- {apiVersion: v1, kind: ConfigMap, metadata: {name: base}, data: {k: v}}
`
	if !dropped {
		objects += `- {apiVersion: v1, kind: ConfigMap, metadata: {name: plain}, data: {k: v}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: kept, annotations: {templates.stencil.dev/lifecycle: retain}}, data: {k: v}}
`
	}
	return "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: keep}\nobjects:\n" + objects
}

// TestFluxPublishedRetained: an object the template retains (lifecycle retain) stays when a
// new revision drops it, though Flux applies the instance: the artifact tells Flux not to prune
// it, while the object dropped without that annotation is pruned by Flux.
func TestFluxPublishedRetained(t *testing.T) {
	needFlux(t)
	const ns = "e2e-flux-retain"
	fluxTenant(t, ns)
	user := fluxPublisher(t, ns, "publisher")
	mustKubectl(t, user, fluxRetainTemplate(false), "apply", "-n", ns, "-f", "-")
	mustKubectl(t, user, kustomizationYAML(ns, "keep", "keep"), "apply", "-f", "-")
	mustKubectl(t, user, publishedInstanceYAML("keep", "keep", "", ""), "apply", "-n", ns, "-f", "-")
	ti := waitInstance(t, ns, "keep", 2*time.Minute, "Ready on revision 1", publishedReady)
	waitKustomization(t, ns, "keep", time.Minute, "revision 1 applied", appliedRevision(ti.Status.Artifact.Revision))
	for _, name := range []string{"base", "plain", "kept"} {
		mustKubectl(t, "admin", "", "get", "configmap", name, "-n", ns)
	}

	mustKubectl(t, user, fluxRetainTemplate(true), "apply", "-n", ns, "-f", "-")
	ti = waitInstance(t, ns, "keep", 2*time.Minute, "Ready on revision 2", func(ti *templatesv1.TemplateInstance) error {
		if err := publishedReady(ti); err != nil {
			return err
		}
		return onRevision(2)(ti)
	})
	waitKustomization(t, ns, "keep", time.Minute, "revision 2 applied", appliedRevision(ti.Status.Artifact.Revision))
	if out, err := env.kubectl("admin", "", "get", "configmap", "plain", "-n", ns, "--ignore-not-found", "-o", "name"); err != nil || out != "" {
		t.Errorf("plain, dropped, was not pruned by Flux: %q %v", out, err)
	}
	if _, err := env.kubectl("admin", "", "get", "configmap", "kept", "-n", ns); err != nil {
		t.Errorf("kept, retained by the template, was pruned: %v", err)
	}
}
