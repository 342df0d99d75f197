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
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// previewState is what one preview reads once and shares between its instances: the
// candidate, the revisions instances run, the Secrets each requester reads, and the answers of
// the authorizer (a thousand instances of one requester ask the same questions).
type previewState struct {
	p *Previewer
	// planner holds the rules of a pass (render, plan, authorization) over the preview's
	// parts, its authorizer answering each question once per preview.
	planner *instance.Planner
	caller  user.Info
	live    bool
	// template is the stored Template; candidate what is previewed, number its revision, and
	// author who wrote it.
	template, candidate *templates.Template
	number              int64
	author              instance.Author
	// revisions are the contents instances run now, by number.
	revisions map[int64]*templates.Template
	// secrets are the Secrets and ConfigMaps read, by requester and namespace.
	secrets map[string]*requesterSecrets
	// planned is, by instance, the hash of what the candidate would apply to it, for the plan
	// hash: with its kept generated values, or, for one that keeps none yet, with values drawn
	// from a generator seeded by the instance (what is applied gets fresh ones, but the same
	// inputs give the same hash, and other inputs another).
	planned map[string]string
}

// requesterSecrets are the sources of one namespace one requester reads: the generated-values
// Secrets in one list, the others one by one, each once.
type requesterSecrets struct {
	applier   instance.Applier
	generated map[string]map[string][]byte
	listed    bool
	byName    map[inventory.Source]secretRead
}

type secretRead struct {
	data map[string][]byte
	err  error
}

func (p *Previewer) newState(ctx context.Context, req Request) (*previewState, error) {
	t := req.Template
	s := &previewState{p: p, caller: req.Caller, live: req.Live, template: t, revisions: map[int64]*templates.Template{},
		secrets: map[string]*requesterSecrets{}, planned: map[string]string{}}
	mapper := p.cfg.Mapper
	if mapper == nil {
		mapper = &guessingMapper{mapper: meta.NewDefaultRESTMapper(nil)}
	}
	var err error
	s.planner, err = instance.New(instance.Config{Templates: p.cfg.Templates, Renderer: p.cfg.Renderer, Mapper: mapper,
		Authorizer: authorizer.AuthorizerFunc((&memoAuthorizer{next: p.cfg.Authorizer, answers: map[string]memoAnswer{}}).Authorize),
		SelfReview: p.cfg.SelfReview, HashKey: p.cfg.HashKey})
	if err != nil {
		return nil, err
	}
	if t.Revision != nil {
		s.revisions[t.Revision.Number] = t
	}
	switch {
	case req.Candidate != nil:
		s.candidate, s.number = req.Candidate, req.Candidate.Revision.Number
		s.author = instance.Author{Template: t.Namespace + "/" + t.Name, User: req.Caller}
	default:
		rt, err := s.revision(ctx, req.Revision)
		if err != nil {
			return nil, err
		}
		s.candidate, s.number, s.author = rt, req.Revision, instance.AuthorOf(rt)
	}
	return s, nil
}

// revision returns revision number of the Template, read once.
func (s *previewState) revision(ctx context.Context, number int64) (*templates.Template, error) {
	if rt, ok := s.revisions[number]; ok {
		return rt, nil
	}
	if s.template.Revision == nil {
		return nil, apierrors.NewNotFound(templates.Resource("templaterevisions"), templatesv1.RevisionName(s.template.Name, number))
	}
	rt, err := s.p.cfg.Templates.Revision(ctx, s.template, number)
	if err != nil {
		return nil, err
	}
	s.revisions[number] = rt
	return rt, nil
}

// sourceData reads a source of the instance's namespace as its requester; a generated-values
// Secret comes from one list of them per requester and namespace.
func (s *previewState) sourceData(ctx context.Context, ti *templatesv1.TemplateInstance, src inventory.Source, generated bool) (map[string][]byte, error) {
	if s.p.cfg.Appliers == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: src.Resource()}, src.Name)
	}
	key := instance.IdentityKey(instance.RequesterInfo(ti.Spec.Requester)) + "\x00" + ti.Namespace
	rs := s.secrets[key]
	if rs == nil {
		a, err := s.p.cfg.Appliers.For(ti.Spec.Requester)
		if err != nil {
			return nil, err
		}
		rs = &requesterSecrets{applier: a, byName: map[inventory.Source]secretRead{}}
		s.secrets[key] = rs
	}
	if generated && !rs.listed {
		rs.listed = true
		// One list for every instance of the requester; a requester who may not list Secrets
		// reads them one by one below.
		rs.generated, _ = rs.applier.SecretsData(ctx, ti.Namespace, inventory.GeneratedValuesLabel+"=true")
	}
	if data, ok := rs.generated[src.Name]; ok && src.Kind == inventory.SecretKind {
		return data, nil
	}
	if r, ok := rs.byName[src]; ok {
		return r.data, r.err
	}
	data, err := rs.applier.SourceData(ctx, ti.Namespace, src)
	rs.byName[src] = secretRead{data, err}
	return data, err
}

// memoAuthorizer answers each question once per preview; an answer that is an outage of the
// authorizer is never kept.
type memoAuthorizer struct {
	next    authorizer.Authorizer
	mu      sync.Mutex
	answers map[string]memoAnswer
}

type memoAnswer struct {
	decision authorizer.Decision
	reason   string
	err      error
}

// Authorize asks next once for each distinct question.
func (m *memoAuthorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s", instance.IdentityKey(a.GetUser()), a.GetVerb(), a.GetAPIGroup(), a.GetResource(),
		a.GetSubresource(), a.GetNamespace(), a.GetName())
	m.mu.Lock()
	answer, ok := m.answers[key]
	m.mu.Unlock()
	if ok {
		return answer.decision, answer.reason, answer.err
	}
	answer.decision, answer.reason, answer.err = m.next.Authorize(ctx, a)
	if answer.err != nil && answer.decision != authorizer.DecisionAllow {
		// An outage is asked again: the next question may find the authorizer back.
		return answer.decision, answer.reason, answer.err
	}
	m.mu.Lock()
	m.answers[key] = answer
	m.mu.Unlock()
	return answer.decision, answer.reason, answer.err
}

// guessingMapper maps kinds to resources without a cluster: the plural Kubernetes would guess,
// namespaced unless the kind is one of Kubernetes' cluster-scoped kinds.
type guessingMapper struct {
	meta.RESTMapper
	mapper *meta.DefaultRESTMapper
}

// clusterScoped are the cluster-scoped kinds of Kubernetes' own groups a template may hold.
var clusterScoped = map[string]bool{"Namespace": true, "ClusterRole": true, "ClusterRoleBinding": true, "CustomResourceDefinition": true,
	"PersistentVolume": true, "StorageClass": true, "PriorityClass": true, "ValidatingWebhookConfiguration": true,
	"MutatingWebhookConfiguration": true, "APIService": true, "IngressClass": true, "RuntimeClass": true, "CSIDriver": true}

// RESTMapping guesses the mapping of the kind.
func (g *guessingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if len(versions) == 0 {
		return nil, fmt.Errorf("no version of %s", gk)
	}
	gvk := gk.WithVersion(versions[0])
	if m, err := g.mapper.RESTMapping(gk, versions[0]); err == nil {
		return m, nil
	}
	scope := meta.RESTScopeNamespace
	if clusterScoped[gk.Kind] {
		scope = meta.RESTScopeRoot
	}
	g.mapper.Add(gvk, scope)
	return g.mapper.RESTMapping(gk, versions[0])
}

// artifactLimits are the limits of a published instance's artifact.
func (s *previewState) artifactLimits() artifact.Limits {
	if s.p.cfg.ArtifactLimits == (artifact.Limits{}) {
		return artifact.DefaultLimits
	}
	return s.p.cfg.ArtifactLimits
}
