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
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

const (
	inputsNS = "e2e-inputs"
	// inputsPassword is the admin's, in Secret db; undeclared a value of it no template declares.
	inputsPassword = "TOPSECRET-A1xyz"
	undeclared     = "undeclared-0042-value"
)

// inputsTemplate is Template app as its author writes it: params are more parameters, objects
// more objects, extra more top-level fields.
func inputsTemplate(params, objects, extra string) string {
	return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
parameters:
- {name: NAME}
- {name: PASSWORD, generate: expression, from: "[a-z0-9]{20}"}
` + params + `objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}-config"}, data: {greeting: hello}}
- {apiVersion: v1, kind: Secret, metadata: {name: "${NAME}-auth"}, stringData: {password: "${PASSWORD}"}}
` + objects + extra
}

// failedWith waits for the Failed reason with a message holding every one of want.
func failedWith(reason string, want ...string) func(*templatesv1.TemplateInstance) error {
	return func(ti *templatesv1.TemplateInstance) error {
		c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != reason || c.ObservedGeneration != ti.Generation {
			return fmt.Errorf("Failed is %+v, want %s", c, reason)
		}
		for _, w := range want {
			if !strings.Contains(c.Message, w) {
				return fmt.Errorf("Failed %s does not say %q: %s", reason, w, c.Message)
			}
		}
		return nil
	}
}

// secretSpellings are the ways a text could hold the admin's values.
func secretSpellings() []string {
	var out []string
	for _, v := range []string{inputsPassword, undeclared} {
		out = append(out, v, strings.ToLower(v), base64.StdEncoding.EncodeToString([]byte(v)))
	}
	return out
}

// assertNothingShows fails when what user reads of the instance, or of a preview, holds a
// value of the admin's Secret.
func assertNothingShows(t *testing.T, what, text string) {
	t.Helper()
	lower := strings.ToLower(text)
	for _, s := range secretSpellings() {
		if strings.Contains(lower, strings.ToLower(s)) {
			t.Errorf("%s shows %q:\n%s", what, s, text)
		}
	}
}

// TestTemplateInstanceInputs (#37 findings 1-3), through the real kube-apiserver with token
// users: what an instance reads is its requester's. eve may edit Templates and ConfigMaps,
// preview and read instances, but not read Secrets; ivan may only edit Templates. Neither
// gets anything an admin's instance reads through it: not an undeclared key of its Secret
// (the instance stops, InputForbidden, naming eve and the Secret, nothing is written), not a
// value whose declaration eve edits into a constraint it breaks (refused before any check;
// an admin's own such edit fails without quoting it), not the kept generated values, not a
// ConfigMap's values nor those the requester gave in a --param-file, not through a Template
// another Template imports. eve's previews (a for-each naming objects after the password,
// include-when answering yes or no, a candidate rendering only the value, live) answer
// Forbidden with nothing of the instance. The hashes the replicas publish are keyed HMACs,
// the same on both replicas.
func TestTemplateInstanceInputs(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	ns := inputsNS
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	for _, role := range []string{"stencil-edit", "stencil-view", "stencil-process", "stencil-instance-view"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "eve-"+role, "-n", ns, "--clusterrole="+role, "--user=eve")
	}
	mustKubectl(t, "admin", "", "create", "role", "configmap-editor", "-n", ns, "--verb=get,list,create,update,patch,delete", "--resource=configmaps")
	mustKubectl(t, "admin", "", "create", "rolebinding", "eve-configmaps", "-n", ns, "--role=configmap-editor", "--user=eve")
	mustKubectl(t, "admin", "", "create", "role", "template-editor", "-n", ns, "--verb=get,list,create,update,patch", "--resource=templates.templates.stencil.dev")
	mustKubectl(t, "admin", "", "create", "rolebinding", "ivan-templates", "-n", ns, "--role=template-editor", "--user=ivan")
	mustKubectl(t, "admin", "", "create", "rolebinding", "viewer-instances", "-n", ns, "--clusterrole=stencil-instance-view", "--user=viewer")
	mustKubectl(t, "admin", "", "create", "secret", "generic", "db", "-n", ns, "--from-literal=DB_PASSWORD="+inputsPassword, "--from-literal=OTHER="+undeclared)
	mustKubectl(t, "admin", "", "create", "configmap", "settings", "-n", ns, "--from-literal=REGION=eu-1", "--from-literal=TOKEN_HINT="+undeclared)

	mustKubectl(t, "admin", inputsTemplate("", "", ""), "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "admin", `apiVersion: templates.stencil.dev/v1alpha1
kind: TemplateInstance
metadata: {name: shop}
spec:
  templateRef: {name: app}
  parameters: {NAME: shop}
  parametersFrom: [{secretRef: {name: db}}]
`, "apply", "-n", ns, "-f", "-")
	ready := waitInstance(t, ns, "shop", time.Minute, "Ready", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	if h := ready.Status.TemplateRevision; h == nil || !strings.HasPrefix(h.AppliedHash, "hmac-sha256:") {
		t.Errorf("the applied hash is no keyed HMAC: %+v", h)
	}
	viewerReads := func(what string) {
		t.Helper()
		assertNothingShows(t, what+": the viewer's kubectl get -o yaml", mustKubectl(t, "viewer", "", "get", "templateinstance", "shop", "-n", ns, "-o", "yaml"))
	}

	// Finding 1: eve declares the Secret's key the template never declared and writes it into
	// a ConfigMap she may read; and the kept generated password.
	exfil := "- {apiVersion: v1, kind: ConfigMap, metadata: {name: exfil}, data: {pw: \"${DB_PASSWORD}\", other: \"${OTHER}\", gen: \"${PASSWORD}\"}}\n"
	mustKubectl(t, "eve", inputsTemplate("- {name: DB_PASSWORD}\n- {name: OTHER}\n", exfil, ""), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", time.Minute, "InputForbidden", failedWith("InputForbidden",
		"eve, the author of Template "+ns+"/app, may not get Secret "+ns+"/db", "may not get Secret "+ns+"/shop-generated"))
	if _, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "exfil", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("eve's ConfigMap was written: %v", err)
	}
	viewerReads("eve's exfiltration")

	// Finding 2: the value's declaration edited from secret to a pattern it breaks. By eve:
	// refused before the value is checked. By the admin, who may read it: the value fails its
	// pattern, and the status does not quote it although the template no longer says secret.
	uses := "- {apiVersion: v1, kind: ConfigMap, metadata: {name: uses}, data: {pw: \"${DB_PASSWORD}\"}}\n"
	mustKubectl(t, "admin", inputsTemplate("- {name: DB_PASSWORD, secret: true}\n", uses, ""), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", time.Minute, "Ready with the admin's content", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	mustKubectl(t, "eve", inputsTemplate("- {name: DB_PASSWORD, pattern: \"^x$\"}\n", uses, ""), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", time.Minute, "InputForbidden", failedWith("InputForbidden", "eve, the author of Template "+ns+"/app"))
	viewerReads("eve's pattern")
	// (Another pattern: the same content would keep eve as its author.)
	mustKubectl(t, "admin", inputsTemplate("- {name: DB_PASSWORD, pattern: \"^[a-z]+$\"}\n", uses, ""), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", time.Minute, "ProcessingFailed", failedWith("ProcessingFailed", "DB_PASSWORD must match"))
	viewerReads("the admin's pattern")

	// Finding 3: eve's previews of candidates that spell the password in names, answer yes or
	// no about it, or render only it, and a live one: Forbidden, nothing of the instance.
	forEach := "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: \"cm-${ITEM}\"\n    annotations: {templates.stencil.dev/for-each: \"[params.DB_PASSWORD.lowerAscii()]\"}\n"
	includeWhen := func(guess string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: probe\n    annotations: {templates.stencil.dev/include-when: \"params.DB_PASSWORD.startsWith('" + guess + "')\"}\n"
	}
	var answers []string
	for name, candidate := range map[string]string{
		"for-each":             inputsTemplate("- {name: DB_PASSWORD, maxLength: 64}\n", forEach, ""),
		"include-when (right)": inputsTemplate("- {name: DB_PASSWORD}\n", includeWhen("TOP"), ""),
		"include-when (wrong)": inputsTemplate("- {name: DB_PASSWORD}\n", includeWhen("XYZ"), ""),
		"only the value":       inputsTemplate("- {name: DB_PASSWORD}\n", "- {apiVersion: v1, kind: ConfigMap, metadata: {name: only}, data: {v: \"${DB_PASSWORD}\"}}\n", ""),
	} {
		out := mustKubectl(t, "eve", candidate, "stencil", "diff", "--template", "app", "-n", ns, "-f", "-", "-o", "json")
		assertNothingShows(t, "eve's preview ("+name+")", out)
		one := previewOf(t, out, "shop")
		if one.Classification != templatesv1.PreviewForbidden || one.RenderedHash != "" || len(one.Objects) > 0 || len(one.Causes) > 0 {
			t.Errorf("eve's preview (%s) of shop: %+v", name, one)
		}
		answers = append(answers, one.Message)
	}
	for _, a := range answers {
		if a != answers[0] {
			t.Errorf("eve's previews answer differently, an oracle: %q and %q", answers[0], a)
		}
	}
	out := mustKubectl(t, "eve", "", "stencil", "diff", "--template", "app", "-n", ns, "--revision", "1", "--live", "-o", "json")
	assertNothingShows(t, "eve's live preview", out)
	if one := previewOf(t, out, "shop"); one.Classification != templatesv1.PreviewForbidden || len(one.Objects) > 0 {
		t.Errorf("eve's live preview of shop: %+v", one)
	}

	// An imported Template's author must read the inputs too.
	mustKubectl(t, "eve", `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: base}
parameters: [{name: DB_PASSWORD}]
transformers:
- {apiVersion: builtin, kind: AnnotationsTransformer, annotations: {leak: "${DB_PASSWORD}"}}
`, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "admin", inputsTemplate("- {name: DB_PASSWORD, secret: true}\n", uses, "transformersFrom: [{name: base}]\n"), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", time.Minute, "InputForbidden for the import", failedWith("InputForbidden",
		"eve, the author of Template "+ns+"/base, may not get Secret "+ns+"/db"))
	if cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "uses", metav1.GetOptions{}); err == nil && cm.Annotations["leak"] != "" {
		t.Errorf("the import's transformer was applied: %v", cm.Annotations)
	}
	viewerReads("eve's import")

	// A ConfigMap's values and the values of a --param-file: ivan, who may read neither the
	// ConfigMap nor the instance, edits the Template of an instance that reads them.
	mustKubectl(t, "admin", `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: cfg}
parameters: [{name: REGION}, {name: TOKEN}]
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: cfg-out}, data: {region: "${REGION}"}}
`, "apply", "-n", ns, "-f", "-")
	paramFile := filepath.Join(t.TempDir(), "values.env")
	if err := os.WriteFile(paramFile, []byte("TOKEN=from-a-file-0042\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "admin", "", "stencil", "instantiate", "cfg", "--name", "files", "-n", ns, "--param-file", paramFile)
	mustKubectl(t, "admin", "", "patch", "templateinstance", "files", "-n", ns, "--type=merge", "-p", `{"spec":{"parametersFrom":[{"configMapRef":{"name":"settings"}}]}}`)
	waitInstance(t, ns, "files", time.Minute, "Ready", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	if cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "cfg-out", metav1.GetOptions{}); err != nil || cm.Data["region"] != "eu-1" {
		t.Fatalf("the ConfigMap's value did not reach the object: %v %v", cm, err)
	}
	mustKubectl(t, "ivan", `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: cfg}
parameters: [{name: REGION}, {name: TOKEN}, {name: TOKEN_HINT}]
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: cfg-out}, data: {region: "${REGION}", token: "${TOKEN}", hint: "${TOKEN_HINT}"}}
`, "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "files", time.Minute, "InputForbidden", failedWith("InputForbidden",
		"ivan, the author of Template "+ns+"/cfg, may not get TemplateInstance "+ns+"/files", "may not get ConfigMap "+ns+"/settings"))
	if cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "cfg-out", metav1.GetOptions{}); err != nil || cm.Data["token"] != "" {
		t.Errorf("ivan's edit reached the object: %v %v", cm.Data, err)
	}

	// The key of the hashes is one Secret of the server's namespace, shared by the replicas:
	// a preview through each replica gives the same hashes.
	if _, err := kubeAdmin(t).CoreV1().Secrets("stencil-system").Get(ctx, "stencil-apiserver-hash-key", metav1.GetOptions{}); err != nil {
		t.Errorf("the hash key's Secret: %v", err)
	}
	var plans []string
	for i := range env.replicas {
		p, err := replicaClient(t, i).TemplatesV1alpha1().Templates(ns).Preview(ctx, "cfg",
			&templatesv1.TemplatePreview{Spec: templatesv1.TemplatePreviewSpec{Revision: 1}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Status.Instances) != 1 || !strings.HasPrefix(p.Status.Instances[0].RenderedHash, "hmac-sha256:") {
			t.Fatalf("replica %d's preview: %+v", i, p.Status)
		}
		plans = append(plans, p.Status.PlanHash+" "+p.Status.Instances[0].RenderedHash)
	}
	if plans[0] != plans[1] {
		t.Errorf("the replicas key hashes differently: %v", plans)
	}
	t.Logf("TestTemplateInstanceInputs took %s", time.Since(start).Round(time.Millisecond))
}

// previewOf reads the preview of instance name from stencil diff's JSON.
func previewOf(t *testing.T, out, name string) templatesv1.InstancePreview {
	t.Helper()
	var p templatesv1.TemplatePreview
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("stencil diff -o json: %v\n%s", err, out)
	}
	status := p.Status
	for _, i := range status.Instances {
		if i.Name == name {
			return i
		}
	}
	t.Fatalf("no preview of %s in:\n%s", name, out)
	return templatesv1.InstancePreview{}
}
