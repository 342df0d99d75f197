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

package preview

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
	"stencil.dev/stencil/pkg/render"
)

// benchObjects is the 4-object template of make bench-instances: a ConfigMap, a Secret with a
// generated password, a ServiceAccount and a headless Service.
var benchObjects = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}-config"},"data":{"greeting":"${GREETING}","size":"${SIZE}"}}`,
	`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${NAME}-auth"},"stringData":{"password":"${PASSWORD}"}}`,
	`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"${NAME}"}}`,
	`{"apiVersion":"v1","kind":"Service","metadata":{"name":"${NAME}"},"spec":{"clusterIP":"None","selector":{"app":"${NAME}"},"ports":[{"port":80}]}}`,
}

// benchTemplate is the stored Template at revision 1, greeting dflt.
func benchTemplate(b *testing.B, dflt string) *templates.Template {
	t := &templates.Template{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "app", UID: "t-app", ResourceVersion: "7"},
		Parameters: []templates.Parameter{{Name: "NAME", Required: true}, {Name: "GREETING", Value: dflt}, {Name: "SIZE", Value: "1"},
			{Name: "PASSWORD", Generate: templates.GeneratorExpression, From: "[a-z0-9]{24}"}},
		Author: &templates.TemplateAuthor{Username: "alice"}}
	for _, o := range benchObjects {
		t.Objects = append(t.Objects, runtime.RawExtension{Raw: []byte(o)})
	}
	_, hash, err := templaterevision.Canonical(t)
	if err != nil {
		b.Fatal(err)
	}
	t.Revision = &templates.RevisionStamp{Number: 1, Hash: hash}
	return t
}

// memSecrets is an Applier that holds Secrets in memory: the benchmark measures the preview,
// not a fake clientset's copies.
type memSecrets struct {
	instance.Applier
	secrets map[string]map[string][]byte
}

func (m *memSecrets) SecretsData(context.Context, string, string) (map[string]map[string][]byte, error) {
	return m.secrets, nil
}

func (m *memSecrets) SourceData(_ context.Context, _ string, src inventory.Source) (map[string][]byte, error) {
	if d, ok := m.secrets[src.Name]; ok && src.Kind == inventory.SecretKind {
		return d, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: src.Resource()}, src.Name)
}

type oneApplier struct{ a instance.Applier }

func (o oneApplier) For(*templatesv1.TemplateInstanceRequester) (instance.Applier, error) {
	return o.a, nil
}

type memInstances []*templatesv1.TemplateInstance

func (m memInstances) List(context.Context, string) ([]*templatesv1.TemplateInstance, error) {
	return m, nil
}

type storedOnly struct{ t *templates.Template }

func (s storedOnly) Template(context.Context, string, string) (*templates.Template, error) {
	return s.t, nil
}
func (s storedOnly) Revision(context.Context, *templates.Template, int64) (*templates.Template, error) {
	return s.t, nil
}

// BenchmarkPreview previews a change of the greeting's default across 1,000 instances of a
// 4-object template (every instance at revision 1 with its own name and generated password,
// half setting the greeting themselves): the Previewer with its one list of instances, one
// list of generated values, two renderings, the plan, the authorization rule and the field
// diff of each, beside rendering each instance once as the controller does (the baseline).
func BenchmarkPreview(b *testing.B) {
	const n = 1000
	stored := benchTemplate(b, "hello")
	next := benchTemplate(b, "bonjour")
	_, hash, _ := templaterevision.Canonical(next)
	next.Revision, next.UID, next.Author = &templates.RevisionStamp{Number: 2, Hash: hash}, types.UID("preview-"+hash[7:19]), &templates.TemplateAuthor{Username: "bob"}
	secrets := map[string]map[string][]byte{}
	instances := make(memInstances, n)
	for i := range instances {
		name := fmt.Sprintf("shop-%04d", i)
		params := map[string]string{"NAME": name}
		if i%2 == 1 {
			params["GREETING"] = "hi"
		}
		instances[i] = newInstance(name, onRevision(1), func(ti *templatesv1.TemplateInstance) {
			ti.Spec.Parameters = params
			ti.Status.Objects = []templatesv1.TemplateInstanceObject{ref("ConfigMap", name+"-config", "u1"), ref("Secret", name+"-auth", "u2"),
				ref("ServiceAccount", name, "u3"), ref("Service", name, "u4")}
		})
		secrets[instance.GeneratedSecretName(name)] = map[string][]byte{"PASSWORD": []byte(fmt.Sprintf("%024d", i))}
	}
	budget := renderrest.NewBudget(512<<20, 256<<20, nil)
	adapter := renderrest.NewAdapter(renderrest.Sources{Memory: budget})
	allow := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})
	b.Run(fmt.Sprintf("instances=%d/preview", n), func(b *testing.B) {
		p := New(Config{Templates: storedOnly{stored}, Instances: instances, Renderer: adapter,
			Appliers: oneApplier{&memSecrets{secrets: secrets}}, Mapper: testMapper(), Authorizer: allow, Memory: budget, HashKey: testHashKey})
		req := Request{Template: stored, Candidate: next, Caller: &user.DefaultInfo{Name: "bob"}}
		b.ReportAllocs()
		for b.Loop() {
			status, err := p.Preview(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			if len(status.Instances) != n || status.Counts["Changed"] != n/2 || status.Counts["Unchanged"] != n/2 {
				b.Fatalf("classified %v of %d", status.Counts, len(status.Instances))
			}
		}
	})
	b.Run(fmt.Sprintf("instances=%d/render-once", n), func(b *testing.B) {
		planner, err := instance.New(instance.Config{Templates: storedOnly{stored}, Renderer: adapter, Mapper: testMapper(), Authorizer: allow, HashKey: testHashKey})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, ti := range instances {
				ctx := instance.AsRequester(context.Background(), ti)
				values := map[string]string{"PASSWORD": string(secrets[instance.GeneratedSecretName(ti.Name)]["PASSWORD"])}
				for k, v := range ti.Spec.Parameters {
					values[k] = v
				}
				out, err := adapter.RenderObjects(ctx, render.Input{Template: stored, Stored: true, Request: process.Request{Parameters: values}})
				if err != nil {
					b.Fatal(err)
				}
				r := instance.NewRendered()
				if err := r.Decode(out); err != nil {
					b.Fatal(err)
				}
				if _, err := planner.Plan(ti, r); err != nil {
					b.Fatal(err)
				}
				_ = inventory.OutputHash(testHashKey, out.Objects)
			}
		}
	})
}
