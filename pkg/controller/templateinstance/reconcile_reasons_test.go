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
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8stesting "k8s.io/client-go/testing"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// TestReasons drives reconcile into every reason it writes.
func TestReasons(t *testing.T) {
	for _, tc := range reasonCases() {
		t.Run(tc.name, tc.run)
	}
}

func reasonCases() []reasonCase {
	app := func(objects ...string) *templatesv1.Template { return newTemplate("app", objects...) }
	shop := newInstance
	inventoried := func(objects ...templatesv1.TemplateInstanceObject) func(*templatesv1.TemplateInstance) {
		return func(ti *templatesv1.TemplateInstance) { ti.Status.Objects = objects }
	}
	nothingApplied := func(t *testing.T, f *fixture) {
		for _, a := range f.targetActions() {
			if strings.HasPrefix(a, "apply ") || strings.HasPrefix(a, "delete ") {
				t.Errorf("a refused pass wrote to the target: %s", a)
			}
		}
	}
	return []reasonCase{{
		name:    "a pass applies every object and is Ready",
		objects: []runtime.Object{app(configMap), shop("shop")},
		reasons: []string{"Applying", "Ready"}, message: "all 1 objects are ready",
		check: func(t *testing.T, f *fixture) {
			ti := f.instance("shop")
			applied := ref("ConfigMap", "config", "uid-1")
			applied.ResourceVersion = "101" // as the apply left it
			if len(ti.Status.Objects) != 1 || ti.Status.Objects[0] != applied {
				t.Errorf("inventory %+v, want %+v", ti.Status.Objects, applied)
			}
			if ti.Status.TemplateResourceVersion != "7" || ti.Status.ObservedGeneration != 1 {
				t.Errorf("status records template %q, generation %d", ti.Status.TemplateResourceVersion, ti.Status.ObservedGeneration)
			}
			want := "get configmaps demo/config\ndry-run configmaps demo/config\napply configmaps demo/config"
			if got := joined(f.targetActions()); got != want {
				t.Errorf("target actions\n%s\nwant\n%s", got, want)
			}
		},
	}, {
		name:    "an object that is not ready yet",
		objects: []runtime.Object{app(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1}}`), shop("shop")},
		reasons: []string{"Applying", "NotReady"}, message: "not ready yet: Deployment demo/web", requeue: readinessPoll,
	}, {
		name:    "a pruned object that a finalizer holds",
		objects: []runtime.Object{app(configMap), shop("shop", inventoried(ref("ConfigMap", "old", "uid-old")))},
		live:    []runtime.Object{member("ConfigMap", "old", "uid-old", terminating)},
		reasons: []string{"Applying", "Pruning"}, message: "waiting for pruned objects to go: ConfigMap demo/old", requeue: readinessPoll,
	}, {
		name:    "no requester",
		objects: []runtime.Object{app(configMap), shop("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.Requester = nil })},
		reasons: []string{"NoRequester"}, message: "spec.requester is empty",
	}, {
		name:    "the requester may not process the template",
		objects: []runtime.Object{app(configMap), shop("shop")},
		deny:    refuse("alice", "create", "templates/processed"),
		reasons: []string{"Forbidden"}, message: "alice may not process templates/processed.templates.stencil.dev app: RBAC: no binding",
		check: nothingApplied,
	}, {
		name:    "the requester may not create an object",
		objects: []runtime.Object{app(configMap), shop("shop")},
		deny:    refuse("alice", "create", "configmaps"),
		reasons: []string{"Forbidden"}, message: "nothing was applied; refused: ConfigMap demo/config: alice may not create it: RBAC: no binding",
		check: nothingApplied,
	}, {
		name:       "the target's own identity may not create an object (act as self)",
		objects:    []runtime.Object{app(configMap), shop("shop")},
		selfReview: true,
		setup: func(f *fixture) {
			f.kube.PrependReactor("create", "selfsubjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
				review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
				review.Status.Allowed = review.Spec.ResourceAttributes.Verb != "patch"
				return true, review, nil
			})
		},
		reasons: []string{"Forbidden"}, message: "ConfigMap demo/config: alice may not patch it: no rule allows it",
		check: func(t *testing.T, f *fixture) {
			nothingApplied(t, f)
			for _, asked := range f.authz.Asked() {
				if strings.Contains(asked, "configmaps") {
					t.Errorf("acting as itself, the controller asked the server's authorizer about an object: %s", asked)
				}
			}
		},
	}, {
		name: "the kept generated values cannot be read",
		objects: []runtime.Object{shop("shop"), func() runtime.Object {
			t := app(configMap)
			t.Parameters = []templatesv1.Parameter{{Name: "PASSWORD", Generate: "expression", From: "[a-z]{8}"}}
			return t
		}()},
		// The requester's rights change between the read of the values and the preflight's:
		// the values are not generated anew, and nothing is applied.
		setup: func(f *fixture) {
			var reads atomic.Int32
			f.target.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
				if reads.Add(1) == 1 {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "shop-generated", errors.New("RBAC: no binding"))
				}
				return false, nil, nil
			})
		},
		reasons: []string{"Forbidden"}, message: "reading the generated values in Secret demo/shop-generated",
		check: nothingApplied,
	}, {
		name: "the template's author may not create an object",
		objects: []runtime.Object{shop("shop"), func() runtime.Object {
			t := app(configMap)
			t.Author.Username = "bob"
			return t
		}()},
		deny:    refuse("bob", "create", "configmaps"),
		reasons: []string{"AuthorForbidden"}, message: "ConfigMap demo/config: bob, the author of Template demo/app, may not create it",
		check: nothingApplied,
	}, {
		name: "the template's author may not read a Secret the instance reads its values from",
		objects: []runtime.Object{shop("shop", fromSecret("values")), func() runtime.Object {
			t := app(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"a":"${A}"}}`)
			t.Author.Username, t.Parameters = "bob", []templatesv1.Parameter{{Name: "A"}}
			return t
		}()},
		live:    []runtime.Object{valuesSecret("values", map[string]string{"A": "s3cr3t-from-values"})},
		deny:    refuse("bob", "get", "secrets"),
		reasons: []string{"InputForbidden"}, message: "bob, the author of Template demo/app, may not get Secret demo/values: RBAC: no binding",
		check: func(t *testing.T, f *fixture) {
			nothingApplied(t, f)
			if status := fmt.Sprintf("%+v", f.instance("shop").Status); strings.Contains(status, "s3cr3t-from-values") {
				t.Errorf("the status quotes the value: %s", status)
			}
		},
	}, {
		name: "the template records no author",
		objects: []runtime.Object{shop("shop"), func() runtime.Object {
			t := app(configMap)
			t.Author = nil
			return t
		}()},
		reasons: []string{"NoAuthor"}, message: "Template demo/app records no author",
		check: nothingApplied,
	}, {
		name:    "an object exists that the instance did not create",
		objects: []runtime.Object{app(configMap), shop("shop")},
		live: []runtime.Object{member("ConfigMap", "config", "uid-mine", func(u *unstructured.Unstructured) {
			u.SetLabels(nil)
		})},
		reasons: []string{"DryRunFailed"}, message: "ConfigMap demo/config: exists and it was not created by this instance",
		check: nothingApplied,
	}, {
		name:    "the dry-run refuses an object",
		objects: []runtime.Object{app(configMap), shop("shop")},
		setup: func(f *fixture) {
			failWith(f.target, "patch", "configmaps", true, apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "config",
				field.ErrorList{field.Invalid(field.NewPath("data"), "x", "admission says no")}))
		},
		reasons: []string{"DryRunFailed"}, message: "ConfigMap demo/config: ConfigMap \"config\" is invalid: data: Invalid value: \"x\": admission says no",
		check: nothingApplied,
	}, {
		name:    "the apply conflicts with another field manager",
		objects: []runtime.Object{app(configMap), shop("shop")},
		setup: func(f *fixture) {
			failWith(f.target, "patch", "configmaps", false, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "config",
				errors.New(`Apply failed with 1 conflict: conflict with "kubectl": .data.k`)))
		},
		reasons: []string{"Applying", "ApplyFailed"}, message: `ConfigMap demo/config: Operation cannot be fulfilled on configmaps "config": Apply failed with 1 conflict`,
		check: func(t *testing.T, f *fixture) {
			// The inventory written before the apply keeps the object the pass may have made.
			if ti := f.instance("shop"); len(ti.Status.Objects) != 1 || ti.Status.Objects[0].Name != "config" {
				t.Errorf("inventory after a failed apply: %+v", ti.Status.Objects)
			}
		},
	}, {
		name:    "a pruned object may not be deleted",
		objects: []runtime.Object{app(configMap), shop("shop", inventoried(ref("ConfigMap", "old", "uid-old")))},
		live:    []runtime.Object{member("ConfigMap", "old", "uid-old")},
		setup: func(f *fixture) {
			failWith(f.target, "delete", "configmaps", false, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "old", errors.New("RBAC: no binding")))
		},
		reasons: []string{"Applying", "DeleteFailed"}, message: "ConfigMap demo/old: configmaps \"old\" is forbidden",
	}, {
		name: "processing refuses the values",
		objects: []runtime.Object{shop("shop"), func() runtime.Object {
			t := app(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"k":"${NEEDED}"}}`)
			t.Parameters = []templatesv1.Parameter{{Name: "NEEDED", Required: true}}
			return t
		}()},
		reasons: []string{"ProcessingFailed"}, message: "NEEDED",
		check: nothingApplied,
	}, {
		name:    "the referenced template does not exist",
		objects: []runtime.Object{shop("shop")},
		reasons: []string{"TemplateNotFound"}, message: "Template demo/app does not exist",
	}, {
		name:    "neither a reference nor a template",
		objects: []runtime.Object{shop("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef = nil })},
		reasons: []string{"NoTemplate"}, message: "spec has neither templateRef nor template",
	}, {
		name: "an inline template that is no template",
		objects: []runtime.Object{shop("shop", func(ti *templatesv1.TemplateInstance) {
			ti.Spec.TemplateRef, ti.Spec.Template = nil, &runtime.RawExtension{Raw: []byte(configMap)}
		})},
		reasons: []string{"InvalidTemplate"}, message: `spec.template: not a Template: the input is kind "ConfigMap"`,
	}, {
		name:    "objects the cluster cannot take",
		objects: []runtime.Object{app(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`, configMap, configMap), shop("shop")},
		reasons: []string{"InvalidObjects"}, message: "Widget w: the cluster serves no such kind",
		check: nothingApplied,
	}, {
		name: "a parametersFrom Secret that does not exist",
		objects: []runtime.Object{app(configMap), shop("shop", func(ti *templatesv1.TemplateInstance) {
			ti.Spec.ParametersFrom = []templatesv1.ParametersSource{{SecretRef: &templatesv1.SecretReference{Name: "values"}}}
		})},
		reasons: []string{"ParametersSecret"}, message: `Secret demo/values of parametersFrom: secrets "values" not found`,
	}, {
		name:    "the cluster fails",
		objects: []runtime.Object{app(configMap), shop("shop")},
		setup: func(f *fixture) {
			failWith(f.target, "patch", "configmaps", true, apierrors.NewInternalError(errors.New("etcdserver: request timed out")))
		},
		reasons: []string{"ClusterError"}, message: "etcdserver: request timed out (retrying)",
		check: nothingApplied,
	}, {
		name:    "the cluster fails the apply",
		objects: []runtime.Object{app(configMap), shop("shop")},
		setup: func(f *fixture) {
			failWith(f.target, "patch", "configmaps", false, apierrors.NewInternalError(errors.New("etcdserver: leader changed")))
		},
		reasons: []string{"Applying", "ClusterError"}, message: "etcdserver: leader changed (retrying)",
	}, {
		name: "an inline template",
		objects: []runtime.Object{shop("shop", func(ti *templatesv1.TemplateInstance) {
			ti.Spec.TemplateRef = nil
			ti.Spec.Template = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"inline"},"objects":[` + configMap + `]}`)}
		})},
		reasons: []string{"Applying", "Ready"}, message: "all 1 objects are ready",
		check: func(t *testing.T, f *fixture) {
			if !slices.Contains(f.authz.Asked(), "alice create processedtemplates demo/") {
				t.Errorf("processing an inline template was not authorized as processedtemplates: %v", f.authz.Asked())
			}
			if f.instance("shop").Status.TemplateResourceVersion != "" {
				t.Error("an inline template recorded a Template version")
			}
		},
	}, {
		name: "values from a parametersFrom Secret, the spec's own winning",
		objects: []runtime.Object{shop("shop", func(ti *templatesv1.TemplateInstance) {
			ti.Spec.ParametersFrom = []templatesv1.ParametersSource{{SecretRef: &templatesv1.SecretReference{Name: "values"}}}
			ti.Spec.Parameters = map[string]string{"B": "from-spec"}
		}), func() runtime.Object {
			t := app(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"a":"${A}","b":"${B}"}}`)
			t.Parameters = []templatesv1.Parameter{{Name: "A"}, {Name: "B"}}
			return t
		}()},
		live: []runtime.Object{member("Secret", "values", "uid-v", func(u *unstructured.Unstructured) {
			u.Object["data"] = map[string]interface{}{"A": "ZnJvbS1zZWNyZXQ=", "B": "ZnJvbS1zZWNyZXQ=", "C": "dW5kZWNsYXJlZA=="}
		})},
		reasons: []string{"Applying", "Ready"}, message: "all 1 objects are ready",
		check: func(t *testing.T, f *fixture) {
			data, _, _ := unstructured.NestedStringMap(f.liveObject("configmaps", "demo", "config").Object, "data")
			if data["a"] != "from-secret" || data["b"] != "from-spec" {
				t.Errorf("data %v", data)
			}
		},
	}, {
		name:    "an object of another instance",
		objects: []runtime.Object{app(configMap), shop("shop")},
		live: []runtime.Object{member("ConfigMap", "config", "uid-other", func(u *unstructured.Unstructured) {
			inventory.Label(u, inventory.ApplySetID("demo", "other"))
		})},
		reasons: []string{"DryRunFailed"}, message: "ConfigMap demo/config: exists and it belongs to another apply set (applyset-",
		check: nothingApplied,
	}, {
		name:    "the requester may not read an object",
		objects: []runtime.Object{app(configMap), shop("shop")},
		setup: func(f *fixture) {
			failWith(f.target, "get", "configmaps", false, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "config", errors.New("RBAC: no binding")))
		},
		reasons: []string{"DryRunFailed"}, message: `ConfigMap demo/config: configmaps "config" is forbidden`,
		check: nothingApplied,
	}, {
		name:    "the cluster fails the preflight's read",
		objects: []runtime.Object{app(configMap), shop("shop")},
		setup: func(f *fixture) {
			failWith(f.target, "get", "configmaps", false, apierrors.NewServiceUnavailable("try later"))
		},
		reasons: []string{"ClusterError"}, message: "try later (retrying)",
		check: nothingApplied,
	}, {
		name:    "the Templates cannot be read",
		objects: []runtime.Object{app(configMap), shop("shop")},
		setup: func(f *fixture) {
			f.c.cfg.Templates = failingTemplates{apierrors.NewTimeoutError("storage is slow", 1)}
			f.rebuild()
		},
		reasons: []string{"ClusterError"}, message: "storage is slow (retrying)",
	}, {
		name: "a pinned revision the server no longer keeps",
		objects: []runtime.Object{func() *templatesv1.Template {
			t := app(configMap)
			t.Revision = &templatesv1.RevisionStamp{Number: 14, Hash: "sha256:0"}
			return t
		}(), shop("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef.Revision = 2 })},
		reasons: []string{"RevisionNotFound"}, message: "revision 2 of Template demo/app (a pinned revision) does not exist",
		check: nothingApplied,
	}}
}

// failingTemplates answers every read with err.
type failingTemplates struct{ err error }

func (r failingTemplates) Template(context.Context, string, string) (*templates.Template, error) {
	return nil, r.err
}

func (r failingTemplates) Revision(context.Context, *templates.Template, int64) (*templates.Template, error) {
	return nil, r.err
}
