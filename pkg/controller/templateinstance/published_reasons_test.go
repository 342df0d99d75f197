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

package templateinstance

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/controller/publish"
)

// TestPublishedReasons drives the pass of a published instance into every reason it writes.
func TestPublishedReasons(t *testing.T) {
	for _, tc := range publishedReasonCases() {
		t.Run(tc.name, tc.run)
	}
}

// published makes an instance's delivery ExternalArtifact, with the Secrets policy given.
func published(secrets templatesv1.SecretsDelivery) func(*templatesv1.TemplateInstance) {
	return func(ti *templatesv1.TemplateInstance) {
		ti.Spec.Delivery = &templatesv1.Delivery{Type: templatesv1.DeliveryExternalArtifact,
			ExternalArtifact: &templatesv1.ExternalArtifactDelivery{Secrets: secrets}}
	}
}

// fluxReports makes the target's Kustomization "web" of namespace demo apply ExternalArtifact
// shop and report, of the digest the instance's storage holds (or another one), Ready status.
func fluxReports(sameDigest bool, ready string) func(*fixture) {
	return func(f *fixture) {
		f.target.PrependReactor("list", "kustomizations", func(k8stesting.Action) (bool, runtime.Object, error) {
			digest := "sha256:" + strings.Repeat("0", 64)
			if cm, err := f.target.Tracker().Get(publish.ConfigMaps, "demo", "shop-artifact"); err == nil && sameDigest {
				digest, _, _ = unstructured.NestedString(cm.(*unstructured.Unstructured).Object, "data", publish.DigestKey)
			}
			k := unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
				"metadata": map[string]any{"name": "web", "namespace": "demo", "generation": int64(1)},
				"spec":     map[string]any{"sourceRef": map[string]any{"kind": "ExternalArtifact", "name": "shop"}},
				"status": map[string]any{"lastAppliedRevision": "g1@" + digest, "observedGeneration": int64(1),
					"conditions": []any{map[string]any{"type": "Ready", "status": ready, "reason": "HealthCheckFailed",
						"message": "Deployment/demo/web not ready", "lastTransitionTime": "2026-01-01T00:00:00Z"}}},
			}}
			return true, &unstructured.UnstructuredList{Items: []unstructured.Unstructured{k}}, nil
		})
	}
}

const secretObject = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds"},"stringData":{"password":"s3cret"}}`

func publishedReasonCases() []reasonCase {
	app := func(objects ...string) *templatesv1.Template { return newTemplate("app", objects...) }
	limits := artifact.DefaultLimits
	nothingPublished := func(t *testing.T, f *fixture) {
		for _, a := range f.targetActions() {
			if strings.HasPrefix(a, "apply ") {
				t.Errorf("a refused pass wrote to the target: %s", a)
			}
		}
	}
	return []reasonCase{{
		name:    "published, nothing applies it",
		objects: []runtime.Object{app(configMap), newInstance("shop", published(""))}, publishing: &limits,
		reasons: []string{"NoKustomization"}, message: "no Kustomization of namespace demo applies ExternalArtifact shop", requeue: noConsumerPoll,
		check: func(t *testing.T, f *fixture) {
			ti := f.instance("shop")
			want := "apply configmaps demo/shop-artifact\napply externalartifacts demo/shop\napply externalartifacts demo/shop"
			var writes []string
			for _, a := range f.targetActions() {
				if strings.HasPrefix(a, "apply ") || strings.HasPrefix(a, "dry-run ") || strings.HasPrefix(a, "delete ") {
					writes = append(writes, a)
				}
			}
			if joined(writes) != want {
				t.Errorf("writes\n%s\nwant\n%s", joined(writes), want)
			}
			if a := ti.Status.Artifact; a == nil || a.ExternalArtifact != "shop" || !strings.HasPrefix(a.Revision, "g1@sha256:") || a.Objects != 1 {
				t.Errorf("status.artifact %+v", a)
			}
			if len(ti.Status.Objects) != 0 || f.liveObject("configmaps", "demo", "config") != nil {
				t.Errorf("a published instance applied its objects: %+v", ti.Status.Objects)
			}
		},
	}, {
		name:    "published, Flux has not applied it yet",
		objects: []runtime.Object{app(configMap), newInstance("shop", published(""))}, publishing: &limits,
		setup:   fluxReports(false, "True"),
		reasons: []string{"Publishing"}, message: "Kustomization web last applied g1@sha256:0000", requeue: freshPoll,
	}, {
		name:    "published, applied and Ready",
		objects: []runtime.Object{app(configMap), newInstance("shop", published(""))}, publishing: &limits,
		setup:   fluxReports(true, "True"),
		reasons: []string{"Ready"}, message: "applied by Kustomization web",
		check: func(t *testing.T, f *fixture) {
			if c := lastCondition(f.instance("shop"), templatesv1.TemplateInstanceApplied); c.Status != "True" || c.Reason != publish.ReasonApplied {
				t.Errorf("Applied %+v", c)
			}
		},
	}, {
		name:    "published, applied, not healthy",
		objects: []runtime.Object{app(configMap), newInstance("shop", published(""))}, publishing: &limits,
		setup:   fluxReports(true, "False"),
		reasons: []string{"KustomizationNotReady"}, message: "Kustomization web applied it and is Ready False, HealthCheckFailed", requeue: readinessPoll,
	}, {
		name:    "a render with a Secret, not allowed",
		objects: []runtime.Object{app(configMap, secretObject), newInstance("shop", published(""))}, publishing: &limits,
		reasons: []string{"SecretsNotPublished"}, message: "the render holds Secret demo/creds",
		check: nothingPublished,
	}, {
		name:    "a render with a Secret, applied by the controller",
		objects: []runtime.Object{app(configMap, secretObject), newInstance("shop", published(templatesv1.SecretsApply))}, publishing: &limits,
		setup:   fluxReports(true, "True"),
		reasons: []string{"Ready"}, message: "applied by Kustomization web",
		check: func(t *testing.T, f *fixture) {
			ti := f.instance("shop")
			if len(ti.Status.Objects) != 1 || ti.Status.Objects[0].Kind != "Secret" || f.liveObject("secrets", "demo", "creds") == nil {
				t.Errorf("the Secret was not applied: %+v", ti.Status.Objects)
			}
			cm := f.liveObject("configmaps", "demo", "shop-artifact")
			if cm == nil {
				t.Fatal("nothing published")
			}
			stored, _ := publish.ReadStorage(t.Context(), publish.NewClient(f.target), "demo", "shop")
			if strings.Contains(string(stored.Archive), "s3cret") || len(stored.Objects) != 1 || stored.Objects[0].Kind != "ConfigMap" {
				t.Errorf("the artifact holds %+v", stored.Objects)
			}
		},
	}, {
		name: "a secret value in an object that would be published",
		objects: []runtime.Object{func() *templatesv1.Template {
			t := app(secretObject, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"url":"postgres://app:${PASSWORD}@db"}}`)
			t.Parameters = []templatesv1.Parameter{{Name: "PASSWORD", Generate: "expression", From: "[a-z]{24}"}}
			return t
		}(), newInstance("shop", published(templatesv1.SecretsApply))}, publishing: &limits,
		reasons: []string{"SecretsNotPublished"}, message: "ConfigMap demo/config at data.url holds the value of a secret parameter",
		check: nothingPublished,
	}, {
		name: "a value read from a Secret, in an object that would be published",
		objects: []runtime.Object{func() *templatesv1.Template {
			t := app(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"token-${TOKEN}":"set"}}`)
			t.Parameters = []templatesv1.Parameter{{Name: "TOKEN"}}
			return t
		}(), newInstance("shop", published(templatesv1.SecretsApply), fromSecret("api"))}, publishing: &limits,
		live:    []runtime.Object{valuesSecret("api", map[string]string{"TOKEN": "tok-8d1e5b2c7a"})},
		reasons: []string{"SecretsNotPublished"}, message: "ConfigMap demo/config at data.token-",
		check: func(t *testing.T, f *fixture) {
			nothingPublished(t, f)
			if msg := lastCondition(f.instance("shop"), templatesv1.TemplateInstanceFailed).Message; strings.Contains(msg, "tok-8d1e5b2c7a") {
				t.Errorf("the message quotes the secret value: %s", msg)
			}
		},
	}, {
		name:       "a render larger than an artifact holds",
		objects:    []runtime.Object{app(configMap, strings.Replace(configMap, `"config"`, `"other"`, 1)), newInstance("shop", published(""))},
		publishing: &artifact.Limits{MaxObjects: 1},
		reasons:    []string{"ArtifactTooLarge"}, message: "the render has 2 objects; a published artifact holds at most 1",
		check: nothingPublished,
	}, {
		name:    "a cluster without Flux's CRDs",
		objects: []runtime.Object{app(configMap), newInstance("shop", published(""))}, publishing: &limits,
		setup: func(f *fixture) {
			f.target.PrependReactor("*", "externalartifacts", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewGenericServerResponse(404, "get", publish.ExternalArtifacts.GroupResource(), "shop", "", 0, true)
			})
		},
		reasons: []string{"NoExternalArtifacts"}, message: "install Flux's source CRDs",
	}, {
		name:    "a rendered object named as the artifact's storage",
		objects: []runtime.Object{app(strings.Replace(configMap, `"config"`, `"shop-artifact"`, 1)), newInstance("shop", published(""))}, publishing: &limits,
		reasons: []string{"InvalidObjects"}, message: "ConfigMap demo/shop-artifact: the instance publishes through an object of that name",
		check: nothingPublished,
	}, {
		name:    "a server that publishes nothing",
		objects: []runtime.Object{app(configMap), newInstance("shop", published(""))},
		reasons: []string{"NotPublishing"}, message: "--artifact-port",
		check: nothingPublished,
	}, {
		name:    "the requester may not write the ExternalArtifact's status",
		objects: []runtime.Object{app(configMap), newInstance("shop", published(""))}, publishing: &limits,
		deny:    refuse("alice", "patch", "externalartifacts/status"),
		reasons: []string{"Forbidden"}, message: "nothing was published; refused: alice may not patch externalartifacts/status",
		check: nothingPublished,
	}, {
		name:    "the requester may not create what Flux would apply",
		objects: []runtime.Object{app(configMap), newInstance("shop", published(""))}, publishing: &limits,
		deny:    refuse("alice", "create", "configmaps"),
		reasons: []string{"Forbidden"}, message: "alice may not create",
		check: func(t *testing.T, f *fixture) {
			nothingPublished(t, f)
			if f.liveObject("configmaps", "demo", "shop-artifact") != nil {
				t.Error("the artifact was stored")
			}
		},
	}, {
		name:       "an author may not create what Flux would apply",
		objects:    []runtime.Object{func() *templatesv1.Template { t := app(configMap); t.Author.Username = "bob"; return t }(), newInstance("shop", published(""))},
		publishing: &limits,
		deny:       refuse("bob", "create", "configmaps"),
		reasons:    []string{"AuthorForbidden"}, message: "bob, the author of Template demo/app, may not create it",
		check: nothingPublished,
	}}
}
