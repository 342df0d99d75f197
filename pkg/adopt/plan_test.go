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

package adopt

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/yaml"
)

func obj(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestChanges(t *testing.T) {
	before := obj(t, `{metadata: {name: a, resourceVersion: "1", labels: {x: "1", "app.kubernetes.io/name": a}}, spec: {replicas: 2, ports: [{port: 80}], list: [1, 2]}, status: {ready: 1}}`)
	after := obj(t, `{metadata: {name: a, resourceVersion: "2", labels: {x: "2"}}, spec: {replicas: 2.0, ports: [{port: 81}], list: [1], extra: true}, status: {ready: 0}}`)
	want := []string{"metadata.labels.x", "metadata.labels[app.kubernetes.io/name]", "spec.extra", "spec.list", "spec.ports[0].port"}
	if got := Changes(before.Object, after.Object); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestImmutableChanges(t *testing.T) {
	gk := func(group, kind string) schema.GroupKind { return schema.GroupKind{Group: group, Kind: kind} }
	cases := []struct {
		name             string
		gk               schema.GroupKind
		live             string
		changed, removed []string
		want             []string
	}{
		{"a Deployment's selector", gk("apps", "Deployment"), `{}`, []string{"spec.selector.matchLabels.tier", "spec.replicas"}, nil, []string{"spec.selector"}},
		{"a Deployment's template is not", gk("apps", "Deployment"), `{}`, []string{"spec.template.spec.containers[0].image"}, nil, nil},
		{"a StatefulSet's serviceName, not its replicas", gk("apps", "StatefulSet"), `{}`, []string{"spec.serviceName", "spec.replicas", "spec.template.metadata.labels.a"}, nil, []string{"spec.serviceName"}},
		{"a claim's class, removed", gk("", "PersistentVolumeClaim"), `{}`, []string{"spec.resources.requests.storage"}, []string{"spec.storageClassName"}, []string{"spec.storageClassName"}},
		{"an immutable ConfigMap's data", gk("", "ConfigMap"), `{immutable: true}`, []string{"data[a.txt]"}, nil, []string{"data"}},
		{"a mutable ConfigMap's data", gk("", "ConfigMap"), `{}`, []string{"data[a.txt]"}, nil, nil},
		{"a Service's clusterIP changed, not removed", gk("", "Service"), `{}`, []string{"spec.clusterIP"}, []string{"spec.clusterIPs"}, []string{"spec.clusterIP"}},
		{"a Secret's type", gk("", "Secret"), `{}`, []string{"type"}, nil, []string{"type"}},
		{"a RoleBinding's roleRef", gk("rbac.authorization.k8s.io", "RoleBinding"), `{}`, []string{"roleRef.name"}, nil, []string{"roleRef"}},
	}
	for _, tc := range cases {
		if got := ImmutableChanges(tc.gk, obj(t, tc.live).Object, tc.changed, tc.removed); len(got)+len(tc.want) > 0 && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestGeneratedValues(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	rendered := []map[string]any{
		obj(t, `{apiVersion: v1, kind: Secret, metadata: {name: db}, stringData: {password: GENERATEDpw1}}`).Object,
		obj(t, `{apiVersion: v1, kind: Secret, metadata: {name: tok}, data: {token: `+b64("GENERATEDtok")+`}}`).Object,
		obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}, data: {url: "postgres://app:GENERATEDpw1@db:5432/GENERATEDpw1"}}`).Object,
		obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: other}, data: {key: GENERATEDkey}}`).Object,
		obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: k2}, data: {key: GENERATEDkey}}`).Object,
	}
	live := map[string]string{
		"db":    `{apiVersion: v1, kind: Secret, metadata: {name: db}, data: {password: ` + b64("hunter2hunter2") + `}}`,
		"tok":   `{apiVersion: v1, kind: Secret, metadata: {name: tok}, data: {token: ` + b64("s3cr3t-token") + `}}`,
		"cfg":   `{apiVersion: v1, kind: ConfigMap, metadata: {name: cfg}, data: {url: "postgres://app:hunter2hunter2@db:5432/hunter2hunter2"}}`,
		"other": `{apiVersion: v1, kind: ConfigMap, metadata: {name: other}, data: {key: one-value}}`,
		"k2":    `{apiVersion: v1, kind: ConfigMap, metadata: {name: k2}, data: {key: another-value}}`,
	}
	found, why := GeneratedValues(map[string]string{"PASSWORD": "GENERATEDpw1", "TOKEN": "GENERATEDtok", "KEY": "GENERATEDkey", "PIN": "1234", "UNUSED": "GENERATEDxyz"},
		rendered, func(r Ref) map[string]any {
			if s, ok := live[r.Name]; ok {
				return obj(t, s).Object
			}
			return nil
		})
	if found["PASSWORD"].Value != "hunter2hunter2" || found["TOKEN"].Value != "s3cr3t-token" || found["TOKEN"].Where != "Secret tok data.token" {
		t.Errorf("found %+v", found)
	}
	if _, ok := found["KEY"]; ok || !strings.Contains(why["KEY"], "the live objects disagree") {
		t.Errorf("KEY: %+v, %q", found["KEY"], why["KEY"])
	}
	if !strings.Contains(why["PIN"], "shorter than 8") || why["UNUSED"] != "no rendered object holds it" || len(found) != 2 {
		t.Errorf("why %v", why)
	}
}

// TestPlan plans a release of three objects against a render of three: one adopted with its
// changes and removals, one created, one the render lacks; then the same with a selector the
// render changes.
func TestPlan(t *testing.T) {
	setID := "applyset-instance-v1"
	live := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop, uid: u1, labels: {app: web, app.kubernetes.io/managed-by: Helm}, annotations: {meta.helm.sh/release-name: web}}, spec: {replicas: 2, selector: {matchLabels: {app: web}}}}`)
	live.SetManagedFields(deploymentEntries)
	leftover := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: old, namespace: shop, uid: u2}}`)
	rendered := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop, labels: {app: web, applyset.kubernetes.io/part-of: `+setID+`}}, spec: {replicas: 3, selector: {matchLabels: {app: web}}}}`)
	dryRun := rendered.DeepCopy()
	dryRun.SetUID("u1")
	dryRun.SetAnnotations(live.GetAnnotations())
	dryRun.Object["metadata"].(map[string]any)["labels"].(map[string]any)["app.kubernetes.io/managed-by"] = "Helm"
	dryRun.SetManagedFields(append(deploymentEntries, entry(stencilManager, metav1.ManagedFieldsOperationApply, "apps/v1", "",
		`{"f:metadata":{"f:labels":{"f:app":{},"f:applyset.kubernetes.io/part-of":{}}},"f:spec":{"f:replicas":{},"f:selector":{}}}`)))
	created := obj(t, `{apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop}}`)
	removed, err := Removed(live.GetManagedFields(), HelmManagers, dryRun.GetManagedFields(), stencilManager)
	if err != nil {
		t.Fatal(err)
	}
	// The server's answer to the final dry run, as a server without defaults gives it.
	final := Desired(dryRun, rendered, removed)
	in := Input{SetID: setID, Take: HelmManagers, Manager: stencilManager, RetainAll: true,
		Source:     map[string]*unstructured.Unstructured{refKey(t, live): live, refKey(t, leftover): leftover},
		Candidates: []Candidate{{Rendered: rendered, Live: live, DryRun: dryRun, Final: final}, {Rendered: created}}}
	res, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Objects) != 3 {
		t.Fatalf("%d objects", len(res.Objects))
	}
	web, svc, old := res.Objects[0], res.Objects[1], res.Objects[2]
	if web.Action != Adopt || web.UID != "u1" || web.Lifecycle != "retain" || strings.Join(web.Managers, ",") != "helm" ||
		strings.Join(web.Changed, ",") != "metadata.labels[applyset.kubernetes.io/part-of],spec.replicas" || len(web.Immutable) != 0 {
		t.Errorf("web: %+v", web)
	}
	if want := `metadata.annotations[meta.helm.sh/release-name],metadata.labels[app.kubernetes.io/managed-by]`; strings.Join(web.Removed, ",") != want {
		t.Errorf("removed %v", web.Removed)
	}
	if svc.Action != Create || svc.Lifecycle != "delete" || old.Action != Refuse || !res.Refused() ||
		!strings.Contains(strings.Join(res.Problems(), "\n"), "ConfigMap shop/old: the Template does not render it") {
		t.Errorf("svc %+v, old %+v, problems %v", svc, old, res.Problems())
	}
	in.LeaveUnrendered = true
	if res, _ := Plan(in); res.Objects[2].Action != LeaveInPlace || res.Refused() {
		t.Errorf("left in place: %+v", res.Objects[2])
	}

	// The final dry run is refused: the takeover would end with an invalid object.
	in.Candidates = []Candidate{{Rendered: rendered, Live: live, DryRun: dryRun, FinalErr: apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web",
		field.ErrorList{field.Invalid(field.NewPath("spec", "template", "spec", "containers"), "", "Required value")})}}
	if res, _ := Plan(in); !res.Refused() || !strings.Contains(strings.Join(res.Problems(), "\n"), "spec.template.spec.containers: Invalid value") {
		t.Errorf("final dry run refused: %v", res.Problems())
	}

	// The server refuses the dry run: the selector is immutable. And the render carries
	// Helm's annotation. Both refuse, each named.
	in.Candidates = []Candidate{{Rendered: obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop, annotations: {meta.helm.sh/release-name: web}}}`), Live: live,
		DryRunErr: apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), "x", "field is immutable")})}}
	res, _ = Plan(in)
	problems := strings.Join(res.Problems(), "\n")
	for _, want := range []string{"Deployment.apps shop/web: spec.selector is immutable and the render changes it", "renders the old tool's ownership metadata annotation meta.helm.sh/release-name"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems %s\nwant %s", problems, want)
		}
	}
	// An object that exists and is nobody's the adoption names is refused.
	stranger := obj(t, `{apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop, uid: u9}}`)
	in.Candidates = []Candidate{{Rendered: created, Live: stranger}}
	if res, _ := Plan(in); res.Objects[0].Action != Refuse || !strings.Contains(res.Objects[0].Problems[0], "it exists and is not one of the objects adopted") {
		t.Errorf("stranger: %+v", res.Objects[0])
	}
}

// TestPlanRefusesAnotherSetsObjects: a selector, or a release record (anyone who may write
// Secrets writes one), may name an object of another apply set: another instance's. Adopting
// it, or leaving it in place (which drops its member label), is refused; an ApplySet's own
// members, and objects already the instance's (a run cut short), are taken.
func TestPlanRefusesAnotherSetsObjects(t *testing.T) {
	const mine, theirs, kubectlSet = "applyset-mine-v1", "applyset-theirs-v1", "applyset-kubectl-v1"
	member := func(name, uid, set string) *unstructured.Unstructured {
		u := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: `+name+`, namespace: shop, uid: `+uid+`}}`)
		if set != "" {
			u.SetLabels(map[string]string{ApplySetPartOfLabel: set})
		}
		return u
	}
	rendered := func(name string) *unstructured.Unstructured {
		return obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: `+name+`, namespace: shop, labels: {applyset.kubernetes.io/part-of: `+mine+`}}}`)
	}
	stolen, unrendered := member("stolen", "u1", theirs), member("other", "u2", theirs)
	in := Input{SetID: mine, Manager: stencilManager, LeaveUnrendered: true,
		Source:     map[string]*unstructured.Unstructured{refKey(t, stolen): stolen, refKey(t, unrendered): unrendered},
		Candidates: []Candidate{{Rendered: rendered("stolen"), Live: stolen, DryRun: rendered("stolen"), Final: rendered("stolen")}}}
	res, err := Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	problems := strings.Join(res.Problems(), "\n")
	for _, want := range []string{"ConfigMap shop/stolen: it is a member of another apply set (" + theirs + ")", "ConfigMap shop/other: it is a member of another apply set (" + theirs + ")"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems\n%s\nwant %s", problems, want)
		}
	}
	if res.Objects[0].Action != Refuse || res.Objects[1].Action != Refuse {
		t.Errorf("%+v", res.Objects)
	}

	// The adopted ApplySet's members, and the instance's own, are taken.
	ours, taken := member("ours", "u3", kubectlSet), member("again", "u4", mine)
	in = Input{SetID: mine, SourceSetID: kubectlSet, Manager: stencilManager,
		Source: map[string]*unstructured.Unstructured{refKey(t, ours): ours, refKey(t, taken): taken},
		Candidates: []Candidate{{Rendered: rendered("ours"), Live: ours, DryRun: rendered("ours"), Final: rendered("ours")},
			{Rendered: rendered("again"), Live: taken, DryRun: rendered("again"), Final: rendered("again")}}}
	if res, _ := Plan(in); res.Refused() || res.Objects[0].Action != Adopt || res.Objects[1].Action != Adopt {
		t.Errorf("an ApplySet's own members: %+v %v", res.Objects, res.Problems())
	}
}

func refKey(t *testing.T, u *unstructured.Unstructured) string {
	r, err := RefOf(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return r.Key()
}

func TestOwnershipPatch(t *testing.T) {
	live := obj(t, `{metadata: {name: a, resourceVersion: "7", labels: {app.kubernetes.io/managed-by: Helm}, annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}", keep: "1"}}}`)
	want := `[{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"remove","path":"/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration"},{"op":"remove","path":"/metadata/labels/app.kubernetes.io~1managed-by"}]`
	if got := string(OwnershipPatch(live)); got != want {
		t.Errorf("got %s", got)
	}
	if OwnershipPatch(obj(t, `{metadata: {name: a, labels: {app.kubernetes.io/managed-by: stencil}}}`)) != nil {
		t.Error("a patch for an object no tool claims")
	}
}

// TestDesired removes what the takeover removes from the forced apply's answer, by the keys
// of list items, and keeps a Secret's data that the render sets through stringData.
func TestDesired(t *testing.T) {
	dryRun := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, labels: {app: web, helm.sh/chart: web-1}},
  spec: {template: {spec: {containers: [{name: side, image: s}, {name: web, image: w, env: [{name: A, value: "1"}], ports: [{containerPort: 80, protocol: TCP}]}]}}}}`)
	paths := []string{`{"f:metadata":{"f:labels":{"f:helm.sh/chart":{}}}}`,
		`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:env":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{}}}}}}}}`,
		`{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"side\"}":{}}}}}}`}
	var removed []fieldpath.Path
	for _, p := range paths {
		set := &fieldpath.Set{}
		if err := set.FromJSON(strings.NewReader(p)); err != nil {
			t.Fatal(err)
		}
		set.Leaves().Iterate(func(p fieldpath.Path) { removed = append(removed, p.Copy()) })
	}
	got := Desired(dryRun, dryRun, removed)
	want := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, labels: {app: web}}, spec: {template: {spec: {containers: [{name: web, image: w, ports: []}]}}}}`)
	if !reflect.DeepEqual(got.Object, want.Object) {
		t.Errorf("got %v\nwant %v", got.Object, want.Object)
	}

	secret := obj(t, `{apiVersion: v1, kind: Secret, metadata: {name: db}, data: {password: cA==, old: bw==}}`)
	rendered := obj(t, `{apiVersion: v1, kind: Secret, metadata: {name: db}, stringData: {password: p}}`)
	set := &fieldpath.Set{}
	_ = set.FromJSON(strings.NewReader(`{"f:data":{"f:password":{},"f:old":{}}}`))
	var secretRemoved []fieldpath.Path
	set.Leaves().Iterate(func(p fieldpath.Path) { secretRemoved = append(secretRemoved, p.Copy()) })
	if got := Desired(secret, rendered, secretRemoved); !reflect.DeepEqual(got.Object["data"], map[string]any{"password": "cA=="}) {
		t.Errorf("Secret data %v", got.Object["data"])
	}

	live := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, resourceVersion: "5", labels: {a: "1"}}, data: {k: v}, binaryData: {b: AA==}}`)
	desired := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, annotations: {x: "y"}}, data: {k: w}}`)
	patch, err := FinalPatch(live, desired)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"op":"test","path":"/metadata/resourceVersion","value":"5"},{"op":"remove","path":"/binaryData"},{"op":"add","path":"/data","value":{"k":"w"}},{"op":"remove","path":"/metadata/labels"},{"op":"add","path":"/metadata/annotations","value":{"x":"y"}}]`; string(patch) != want {
		t.Errorf("patch %s", patch)
	}
}
