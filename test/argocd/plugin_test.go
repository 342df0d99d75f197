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

package argocd

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// shopTemplate is a typed template: the Parameters tab, values and generated secrets.
const shopTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata:
  name: shop
parameters:
- name: NAME
  displayName: Name
  description: The shop's name
  value: shop
  required: true
- name: REPLICAS
  displayName: Replicas
  type: int
  value: "2"
- name: DEBUG
  type: bool
  value: "false"
- name: ZONES
  type: json
  items: {type: string}
  value: '["eu-1"]'
- name: LIMITS
  type: json
  properties: {cpu: {type: string}, memory: {type: string}}
  value: '{"cpu":"100m"}'
- name: DB_PASSWORD
  secret: true
  generate: expression
  from: "[a-zA-Z0-9]{24}"
- name: ADMIN_PASSWORD
  secret: true
  value: not-announced
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: ${NAME}
  data:
    replicas: ${REPLICAS}
    debug: ${DEBUG}
    zones: ${ZONES}
    limits: ${LIMITS}
- apiVersion: v1
  kind: Secret
  metadata:
    name: ${NAME}-db
  stringData:
    password: ${DB_PASSWORD}
    admin: ${ADMIN_PASSWORD}
`

func shopApp(t *testing.T, renderExtra string) app {
	t.Helper()
	repo, sha := newRepo(t, map[string]string{
		"apps/shop/template.yaml":       shopTemplate,
		"apps/shop/stencil-render.yaml": renderFile("shop", "template.yaml", map[string]string{"REPLICAS": "3"}, renderExtra),
		"README.md":                     "a repository of applications\n",
	})
	return app{name: "shop", namespace: "prod", repo: repo, revision: sha, path: "apps/shop"}
}

// TestParametersTab checks what GetAppDetails, which the API server asks for the Parameters
// tab, lists: one announcement per parameter, typed, with the value a render uses by default
// (the render file's over the template's), and no secret's value.
func TestParametersTab(t *testing.T) {
	a := shopApp(t, "")
	res := a.details()
	if res.Error != "" {
		t.Fatalf("GetAppDetails: %s: %s", res.Code, res.Error)
	}
	if res.SourceType != "Plugin" {
		t.Errorf("source type %q, want Plugin", res.SourceType)
	}
	byName := map[string]announcement{}
	var names []string
	for _, p := range res.Parameters {
		byName[p.Name] = p
		names = append(names, p.Name)
	}
	if want := []string{"NAME", "REPLICAS", "DEBUG", "ZONES", "LIMITS", "DB_PASSWORD", "ADMIN_PASSWORD"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("announced %v, want one per parameter in order %v", names, want)
	}
	check := func(name string, ok bool, what string) {
		if !ok {
			got, _ := json.Marshal(byName[name])
			t.Errorf("%s: want %s, got %s", name, what, got)
		}
	}
	p := byName["NAME"]
	check("NAME", p.Title == "Name" && p.Tooltip == "The shop's name" && p.Required && p.String != nil && *p.String == "shop" && p.CollectionType == "string", "title, tooltip, required, default shop")
	p = byName["REPLICAS"]
	check("REPLICAS", p.ItemType == "number" && p.String != nil && *p.String == "3", "a number defaulting to the render file's 3")
	p = byName["DEBUG"]
	check("DEBUG", p.ItemType == "boolean" && p.String != nil && *p.String == "false", "a boolean")
	p = byName["ZONES"]
	check("ZONES", p.CollectionType == "array" && reflect.DeepEqual(p.Array, []string{"eu-1"}), "an array [eu-1]")
	p = byName["LIMITS"]
	check("LIMITS", p.CollectionType == "map" && reflect.DeepEqual(p.Map, map[string]string{"cpu": "100m"}), "a map {cpu: 100m}")
	check("DB_PASSWORD", byName["DB_PASSWORD"].String == nil, "no value (generated)")
	check("ADMIN_PASSWORD", byName["ADMIN_PASSWORD"].String == nil, "no value (secret)")
}

// TestParametersOverrideTheFile checks that the Application's parameters (ARGOCD_APP_PARAMETERS)
// win over the render file's values, typed as the template declares them, and that the
// announced defaults a user leaves alone are applied by the render itself.
func TestParametersOverrideTheFile(t *testing.T) {
	a := shopApp(t, "")
	a.plugin = &pluginSource{Parameters: []appParameter{
		{Name: "REPLICAS", String: str("5")},
		{Name: "ZONES", Array: []string{"eu-1", "us-1"}},
		{Name: "LIMITS", Map: map[string]string{"cpu": "2", "memory": "1Gi"}},
	}}
	objs := objects(t, a.generate())
	data := objs[0]["data"].(map[string]any)
	want := map[string]any{"replicas": "5", "debug": "false", "zones": `["eu-1","us-1"]`, "limits": `{"cpu":"2","memory":"1Gi"}`}
	if !reflect.DeepEqual(data, want) {
		t.Errorf("data %v, want %v", data, want)
	}
	if objs[0]["metadata"].(map[string]any)["name"] != "shop" {
		t.Errorf("the template's default name was not applied: %v", objs[0]["metadata"])
	}
}

// TestSameCommitTwice checks that two renders of one commit, the cache bypassed (a hard
// refresh), give Argo CD byte-identical manifests, generated password included: derived from
// the sidecar's seed, it is stable, so the application never drifts OutOfSync.
func TestSameCommitTwice(t *testing.T) {
	a := shopApp(t, "")
	first, second := a.generate(), a.generate()
	objs := objects(t, first)
	if !reflect.DeepEqual(first.Manifests, second.Manifests) {
		t.Fatalf("two renders of %s differ:\n%v\n%v", a.revision, first.Manifests, second.Manifests)
	}
	if first.Revision != a.revision {
		t.Errorf("revision %q, want %q", first.Revision, a.revision)
	}
	password := objs[1]["stringData"].(map[string]any)["password"].(string)
	if !regexp.MustCompile(`^[a-zA-Z0-9]{24}$`).MatchString(password) {
		t.Errorf("generated password %q", password)
	}
	// Another application of the same files gets its own password.
	other := a
	other.name = "shop-eu"
	if p := objects(t, other.generate())[1]["stringData"].(map[string]any)["password"]; p == password {
		t.Error("two applications were given the same generated password")
	}
	// Every object carries the render's digest; the same for all, the same on both renders.
	digests := map[string]bool{}
	for _, o := range objs {
		digests[o["metadata"].(map[string]any)["annotations"].(map[string]any)["templates.stencil.dev/render-digest"].(string)] = true
	}
	if len(digests) != 1 {
		t.Errorf("render digests %v: want one for every object", digests)
	}
}

// TestBuildEnvironment checks that Argo CD's build environment reaches the render through
// $(VAR) of the render file, and that provenance, when asked, records the repository and the
// revision of the commit rendered.
func TestBuildEnvironment(t *testing.T) {
	template := `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: env}
parameters:
- {name: APP}
- {name: NS}
- {name: REV}
- {name: KUBE}
- {name: APIS}
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: build}
  data: {app: "${APP}", ns: "${NS}", rev: "${REV}", kube: "${KUBE}", apis: "${APIS}"}
`
	repo, sha := newRepo(t, map[string]string{
		"env/template.yaml": template,
		"env/stencil-render.yaml": renderFile("env", "template.yaml", map[string]string{
			"APP": "$(ARGOCD_APP_NAME)", "NS": "$(ARGOCD_APP_NAMESPACE)", "REV": "$(ARGOCD_APP_REVISION)",
			"KUBE": "$(KUBE_VERSION)", "APIS": "$(KUBE_API_VERSIONS)"}, "  provenanceAnnotations: true\n"),
	})
	a := app{name: "billing", namespace: "finance", repo: repo, revision: sha, path: "env"}
	obj := objects(t, a.generate())[0]
	want := map[string]any{"app": "billing", "ns": "finance", "rev": sha, "kube": "1.37.1", "apis": "v1,apps/v1,batch/v1"}
	if data := obj["data"]; !reflect.DeepEqual(data, want) {
		t.Errorf("data %v, want %v", data, want)
	}
	origin, _ := obj["metadata"].(map[string]any)["annotations"].(map[string]any)["config.kubernetes.io/origin"].(string)
	for _, w := range []string{"path: template.yaml", "repo: " + repo.url, "ref: " + sha} {
		if !strings.Contains(origin, w) {
			t.Errorf("origin annotation %q lacks %q", origin, w)
		}
	}
}
