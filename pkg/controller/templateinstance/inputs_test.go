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
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

const password = "TOPSECRET-A1xyz"

// keptValues is the Secret in which an earlier pass of instance name kept generated values.
func keptValues(name string, data map[string]string) *unstructured.Unstructured {
	u := valuesSecret(GeneratedSecretName(name), data)
	u.SetLabels(map[string]string{inventory.GeneratedValuesLabel: "true"})
	inventory.Label(u, inventory.ApplySetID("demo", name))
	return u
}

// exfiltrating is eve's edit of alice's Template: a parameter the template never declared,
// named after a key of the instance's Secret, written into a ConfigMap eve may read.
func exfiltrating(author string, edit func(*templatesv1.Template)) *templatesv1.Template {
	t := newTemplate("app", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"exfil"},"data":{"pw":"${DB_PASSWORD}"}}`)
	t.Parameters = []templatesv1.Parameter{{Name: "DB_PASSWORD"}}
	t.Author.Username = author
	if edit != nil {
		edit(t)
	}
	return t
}

// TestInputsAreTheRequesters (hostile, #37 finding 1): a Template's author who may not read
// what an instance reads gets nothing of it through the instance, from whichever source:
// a Secret's key the template never declared, a ConfigMap, the kept generated values, the
// instance's own spec; an imported Template's author likewise. The instance renders nothing
// and its status names sources and authors, never a value. An author who may read them all
// is allowed, and so is the requester's own Template.
func TestInputsAreTheRequesters(t *testing.T) {
	secret := valuesSecret("db", map[string]string{"DB_PASSWORD": password, "OTHER": "undeclared-0042"})
	for _, tc := range []struct {
		name     string
		instance []func(*templatesv1.TemplateInstance)
		template *templatesv1.Template
		extra    []runtime.Object
		live     []runtime.Object
		deny     func(authorizer.Attributes) bool
		want     string // the Failed reason; "" applies
		message  string
	}{{
		name:     "eve declares an undeclared key of the requester's Secret",
		instance: []func(*templatesv1.TemplateInstance){fromSecret("db")},
		template: exfiltrating("eve", nil), live: []runtime.Object{secret},
		deny: refuse("eve", "get", "secrets"),
		want: "InputForbidden", message: "eve, the author of Template demo/app, may not get Secret demo/db",
	}, {
		name:     "a value from a ConfigMap eve may not read",
		instance: []func(*templatesv1.TemplateInstance){fromConfigMap("settings")},
		template: exfiltrating("eve", nil), live: []runtime.Object{valuesConfigMap("settings", map[string]string{"DB_PASSWORD": password})},
		deny: refuse("eve", "get", "configmaps"),
		want: "InputForbidden", message: "eve, the author of Template demo/app, may not get ConfigMap demo/settings",
	}, {
		name: "values given in the spec (a --param-file's), eve may not read the instance",
		instance: []func(*templatesv1.TemplateInstance){func(ti *templatesv1.TemplateInstance) {
			ti.Spec.Parameters = map[string]string{"DB_PASSWORD": password}
		}},
		template: exfiltrating("eve", nil),
		deny:     refuse("eve", "get", "templateinstances"),
		want:     "InputForbidden", message: "eve, the author of Template demo/app, may not get TemplateInstance demo/shop (its values)",
	}, {
		name: "the kept generated values, eve may not read them",
		template: exfiltrating("eve", func(t *templatesv1.Template) {
			t.Parameters[0].Generate, t.Parameters[0].From = "expression", "[a-z]{12}"
		}),
		live: []runtime.Object{keptValues("shop", map[string]string{"DB_PASSWORD": password})},
		deny: refuse("eve", "get", "secrets"),
		want: "InputForbidden", message: "eve, the author of Template demo/app, may not get Secret demo/shop-generated",
	}, {
		name:     "an imported Template's author may not read the Secret",
		instance: []func(*templatesv1.TemplateInstance){fromSecret("db")},
		template: func() *templatesv1.Template {
			t := exfiltrating("alice", nil)
			t.TransformersFrom = []templatesv1.TransformerImport{{Name: "base"}}
			return t
		}(),
		extra: []runtime.Object{func() *templatesv1.Template {
			base := newTemplate("base")
			base.Author.Username = "mallory"
			base.Transformers = []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"builtin","kind":"AnnotationsTransformer","annotations":{"leak":"${DB_PASSWORD}"}}`)}}
			return base
		}()},
		live: []runtime.Object{secret},
		deny: refuse("mallory", "get", "secrets"),
		want: "InputForbidden", message: "mallory, the author of Template demo/base, may not get Secret demo/db",
	}, {
		name:     "an author who may read every input",
		instance: []func(*templatesv1.TemplateInstance){fromSecret("db"), fromConfigMap("settings")},
		template: exfiltrating("bob", nil), live: []runtime.Object{secret, valuesConfigMap("settings", map[string]string{"X": "y"})},
	}, {
		name:     "the requester's own Template",
		instance: []func(*templatesv1.TemplateInstance){fromSecret("db")},
		template: exfiltrating("alice", nil), live: []runtime.Object{secret},
		deny: refuse("alice", "get", "secrets"),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: append([]runtime.Object{tc.template, newInstance("shop", tc.instance...)}, tc.extra...),
				live: tc.live, deny: tc.deny}).build()
			if _, err := f.sync("shop"); err != nil && !errors.Is(err, errRetry) {
				t.Fatal(err)
			}
			ti := f.instance("shop")
			failed := lastCondition(ti, templatesv1.TemplateInstanceFailed)
			if tc.want == "" {
				if failed.Status == "True" {
					t.Fatalf("refused: %+v", failed)
				}
				return
			}
			if failed.Reason != tc.want || !strings.Contains(failed.Message, tc.message) {
				t.Fatalf("Failed: %s %q, want %s %q", failed.Reason, failed.Message, tc.want, tc.message)
			}
			if status := fmt.Sprintf("%+v", ti.Status); strings.Contains(status, password) || strings.Contains(status, "undeclared-0042") {
				t.Errorf("the status quotes a value: %s", status)
			}
			for _, a := range f.targetActions() {
				if strings.HasPrefix(a, "apply ") || strings.HasPrefix(a, "dry-run ") {
					t.Errorf("a refused instance went on to the objects: %s", a)
				}
			}
		})
	}
}

// TestSecretBySource (hostile, #37 finding 2): a value read from a Secret is secret wherever
// it goes, whatever the template says: a parameter edited from secret to a pattern it breaks,
// a rule's message, a refusal of the cluster that quotes it, an object named after it. No
// condition quotes it, in any spelling.
func TestSecretBySource(t *testing.T) {
	secret := valuesSecret("db", map[string]string{"DB": password})
	withDB := func(objects string, edit func(*templatesv1.Template)) *templatesv1.Template {
		t := newTemplate("app", objects)
		t.Parameters = []templatesv1.Parameter{{Name: "DB"}}
		if edit != nil {
			edit(t)
		}
		return t
	}
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"db":"${DB}"}}`
	for _, tc := range []struct {
		name     string
		template *templatesv1.Template
		setup    func(*fixture)
		want     string
	}{
		{"a pattern the value breaks", withDB(cm, func(t *templatesv1.Template) { t.Parameters[0].Pattern = "^x$" }), nil, "ProcessingFailed"},
		{"an enum the value is not in", withDB(cm, func(t *templatesv1.Template) { t.Parameters[0].Enum = []string{"a", "b"} }), nil, "ProcessingFailed"},
		{"a rule reported at the parameter", withDB(cm, func(t *templatesv1.Template) {
			t.Rules = []templatesv1.ParameterRule{{Rule: "params.DB == 'x'", FieldPath: "DB"}}
		}), nil, "ProcessingFailed"},
		{"a type the value is not of", withDB(cm, func(t *templatesv1.Template) { t.Parameters[0].Type = "int" }), nil, "ProcessingFailed"},
		{"an object named after it, lower-cased", withDB(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-${DB}"}}`, nil), nil, "InvalidObjects"},
		{"the cluster's refusal quotes it, escaped", withDB(cm, nil), func(f *fixture) {
			failWith(f.target, "patch", "configmaps", true, apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "config",
				field.ErrorList{field.Invalid(field.NewPath("data", "db"), password, "admission says no: "+base64.StdEncoding.EncodeToString([]byte(password)))}))
		}, "DryRunFailed"},
		{"the cluster fails, quoting it", withDB(cm, nil), func(f *fixture) {
			failWith(f.target, "patch", "configmaps", true, apierrors.NewInternalError(fmt.Errorf("webhook: %q", strings.ToLower(password))))
		}, "ClusterError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{tc.template, newInstance("shop", fromSecret("db"))}, live: []runtime.Object{secret}}).build()
			if tc.setup != nil {
				tc.setup(f)
			}
			if _, err := f.sync("shop"); err != nil && !errors.Is(err, errRetry) {
				t.Fatal(err)
			}
			ti := f.instance("shop")
			failed := lastCondition(ti, templatesv1.TemplateInstanceFailed)
			if failed.Reason != tc.want {
				t.Fatalf("Failed: %s %q, want %s", failed.Reason, failed.Message, tc.want)
			}
			status := strings.ToLower(fmt.Sprintf("%+v", ti.Status))
			for _, spelling := range []string{password, base64.StdEncoding.EncodeToString([]byte(password))} {
				if strings.Contains(status, strings.ToLower(spelling)) {
					t.Errorf("the status quotes the value (%s): %s", spelling, status)
				}
			}
		})
	}
}

// TestAuthorizerOutage (#32 finding 3): SubjectAccessReviews that fail are the cluster's
// failure (ClusterError, retried), never a refusal of the instance.
func TestAuthorizerOutage(t *testing.T) {
	for _, who := range []string{"alice", "bob"} {
		t.Run(who, func(t *testing.T) {
			app := newTemplate("app", configMap)
			app.Author.Username = "bob"
			f := (&fixture{t: t, objects: []runtime.Object{app, newInstance("shop", fromSecret("db"))},
				live: []runtime.Object{valuesSecret("db", map[string]string{"X": "y"})}}).build()
			f.c.cfg.Authorizer = authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
				if a.GetUser().GetName() == who {
					return authorizer.DecisionNoOpinion, "", errors.New("the webhook timed out")
				}
				return authorizer.DecisionAllow, "", nil
			})
			f.rebuild()
			if _, err := f.sync("shop"); !errors.Is(err, errRetry) {
				t.Fatalf("sync: %v", err)
			}
			failed := lastCondition(f.instance("shop"), templatesv1.TemplateInstanceFailed)
			if failed.Reason != "ClusterError" || !strings.Contains(failed.Message, "the webhook timed out") {
				t.Errorf("Failed: %s %q", failed.Reason, failed.Message)
			}
			if slices.ContainsFunc(f.targetActions(), func(a string) bool { return strings.HasPrefix(a, "apply") }) {
				t.Errorf("applied during an outage: %v", f.targetActions())
			}
		})
	}
	if !authz.IsUnavailable(authz.Unavailable(errors.New("x"))) {
		t.Error("an outage is not Unavailable")
	}
}
