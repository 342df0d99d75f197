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

package instance

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/redact"
	"stencil.dev/stencil/pkg/render"
)

// Rendered is what one instance renders to.
type Rendered struct {
	// Objects are the processed objects in template order; Output is the renderer's answer
	// they were decoded from.
	Objects []*unstructured.Unstructured
	Output  *render.Output
	// Generated are the values of generated parameters, to keep in the instance's Secret;
	// nil when the template generates nothing.
	Generated map[string]string
	// TemplateResourceVersion is the stored Template's, empty for an inline one.
	TemplateResourceVersion string
	// UnreadGenerated is why the kept generated values could not be read; reported after the
	// preflight, which names every object the requester may not write, so that values are
	// never generated anew because they could not be read.
	UnreadGenerated error
	// Authors are the last writers of the stored Templates rendered (the referenced one and
	// every one imported): each must be allowed what the instance does, as the requester is.
	Authors []Author
	// Revision is the revision of the stored Template rendered, Current the Template's own;
	// both 0 for an inline template or one stored before revisions were recorded.
	Revision, Current int64
	// Hash is inventory.OutputHash of the objects, under the Planner's key.
	Hash string
	// FreshGenerated says a generated parameter got a new value (none was kept, or its
	// rotation was asked for): the generated-values Secret changes, whatever the objects hold.
	FreshGenerated bool
	// Secrets are the values no message may quote (redact.Hidden's, and every value read from
	// a Secret); FromSecrets those of them read from parametersFrom Secrets, which never name
	// an object. Both are set as soon as they are known, also when rendering fails.
	Secrets, FromSecrets *redact.Set
}

// NewRendered is an empty Rendered, ready to learn secrets.
func NewRendered() *Rendered {
	return &Rendered{Secrets: &redact.Set{}, FromSecrets: &redact.Set{}}
}

// Scrub keeps the secret values of r out of err's message.
func (r *Rendered) Scrub(err error) error {
	if r == nil {
		return err
	}
	return Scrub(err, r.Secrets)
}

// AsRequester is ctx for the renderer and the authorizer: the instance's requester, in its
// namespace.
func AsRequester(ctx context.Context, ti *templatesv1.TemplateInstance) context.Context {
	return genericapirequest.WithNamespace(genericapirequest.WithUser(ctx, RequesterInfo(ti.Spec.Requester)), ti.Namespace)
}

// Render renders the instance's template with its values as its requester, as a pass does:
// the requester must be allowed to process the template; values come from the Secrets and
// ConfigMaps the requester reads (a), and from the Secret of the kept generated values; every
// author of what is rendered must be allowed to read them too (AuthorizeInputs), which is
// asked before any value is checked or used. It returns what it knows of the secrets also
// with an error.
func (p *Planner) Render(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier) (*Rendered, error) {
	return p.RenderAdopting(ctx, ti, a, nil)
}

// RenderAdopting renders as Render does, with adopted as the values of the generated
// parameters that keep none yet: the values an adoption found in the live objects it takes
// over (a password the old tool generated stays the instance's).
func (p *Planner) RenderAdopting(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, adopted map[string]string) (*Rendered, error) {
	r := NewRendered()
	ctx = AsRequester(ctx, ti)
	t, stored, err := p.template(ctx, ti)
	if err != nil {
		return r, err
	}
	current := t
	if stored {
		if t, err = p.revisionToRender(ctx, ti, current); err != nil {
			return r, err
		}
	}
	inputs, err := ReadInputs(ti, t, ApplierData(ctx, a, ti.Namespace))
	if err != nil {
		return r, err
	}
	r.Secrets.Add(inputs.Secrets...)
	generatedNames := inventory.GeneratedParameters(t, inputs.Values)
	if len(generatedNames) > 0 {
		if err := reuseGenerated(ctx, ti, a, generatedNames, inputs); err != nil {
			if AsFailure(err) == nil {
				return r, err
			}
			r.UnreadGenerated = err
		}
	}
	for n := range generatedNames {
		if v, ok := adopted[n]; ok && inputs.Values[n] == "" {
			inputs.Values[n] = v
		}
	}
	r.AddSecrets(t.Parameters, inputs, nil)
	for n := range generatedNames {
		r.FreshGenerated = r.FreshGenerated || inputs.Values[n] == ""
	}
	var authors []Author
	if stored {
		authors = append(authors, AuthorOf(t))
		// Whoever chose when this instance moves shaped what it applies too: the rollout's
		// author must be allowed to read its inputs and create its objects, as every author.
		if a, ok := RolloutAuthorOf(ti, current); ok {
			authors = append(authors, a)
		}
	}
	out, err := p.RenderTemplate(ctx, ti, t, stored, inputs, authors, nil)
	if err != nil {
		if AsFailure(err) != nil || authz.IsUnavailable(err) {
			return r, err
		}
		return r, Fail("ProcessingFailed", "%s", StatusMessage(err))
	}
	if check := p.cfg.CheckRendered; check != nil {
		if err := check(ctx, ti, len(out.Objects)); err != nil {
			return r, err
		}
	}
	r.AddSecrets(t.Parameters, inputs, out.Parameters)
	r.Hash = inventory.OutputHash(p.cfg.HashKey, out.Objects)
	if stored {
		r.TemplateResourceVersion = current.ResourceVersion
		if t.Revision != nil {
			r.Revision, r.Current = t.Revision.Number, current.Revision.Number
		}
	}
	r.Authors = append(authors, AuthorsOf(out.Imported)...)
	if len(generatedNames) > 0 {
		r.Generated = map[string]string{}
		for _, p := range out.Parameters {
			if generatedNames[p.Name] {
				r.Generated[p.Name] = p.Value
			}
		}
	}
	return r, r.Decode(out)
}

// RenderTemplate renders t for the instance with the values of inputs, through the
// Renderer, as the requester of ctx (AsRequester). Once the Templates t imports are read,
// and before any value is looked at, every author of authors and of those Templates must be
// allowed to read what the instance reads (AuthorizeInputs): its refusal, or an outage of the
// authorizer, is returned as it is, as is any error of the renderer. Generated values come
// from gen, nil for the server's crypto/rand (a preview seeds its own: what it renders is
// never applied).
func (p *Planner) RenderTemplate(ctx context.Context, ti *templatesv1.TemplateInstance, t *templates.Template, stored bool,
	inputs *inventory.Inputs, authors []Author, gen process.Generator) (*render.Output, error) {
	out, err := p.cfg.Renderer.RenderObjects(ctx, render.Input{
		Template:   t,
		Stored:     stored,
		Request:    process.Request{Parameters: inputs.Values, FromSecret: inputs.FromSecret, Labels: ti.Spec.Labels, Generator: gen},
		Properties: ti.Spec.Properties,
		Admit: func(imported []*templates.Template) error {
			return p.AuthorizeInputs(ctx, ti, append(append([]Author(nil), authors...), AuthorsOf(imported)...), inputs.Read)
		},
	})
	return out, err
}

// Decode decodes out's objects into r.
func (r *Rendered) Decode(out *render.Output) error {
	r.Output = out
	for i, item := range out.Objects {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(item); err != nil {
			return Fail("ProcessingFailed", "object %d of the processed template: %v", i, err)
		}
		r.Objects = append(r.Objects, obj)
	}
	return nil
}

// AddSecrets adds to r the values of the declared parameters that redact.Hidden hides, as
// inputs gave them or, when used is set, as the renderer used them (generated ones
// included), and marks those read from parametersFrom Secrets.
func (r *Rendered) AddSecrets(declared []templates.Parameter, inputs *inventory.Inputs, used []templates.Parameter) {
	values := inputs.Values
	if used != nil {
		values = make(map[string]string, len(used))
		for _, p := range used {
			values[p.Name] = p.Value
		}
	}
	for i := range declared {
		p := &declared[i]
		v, from := values[p.Name], inputs.FromSecret[p.Name]
		if from {
			r.FromSecrets.Add(v)
		}
		if redact.Hidden(p, v, from) {
			r.Secrets.Add(v)
		}
	}
}

// template returns the template to render: the stored one, which the requester must be
// allowed to process (create on templates/processed, as the endpoint asks), or the inline
// one (create on processedtemplates).
func (p *Planner) template(ctx context.Context, ti *templatesv1.TemplateInstance) (*templates.Template, bool, error) {
	requester, _ := genericapirequest.UserFrom(ctx)
	if err := p.MayProcess(ctx, ti, requester); err != nil {
		return nil, false, err
	}
	if ref := ti.Spec.TemplateRef; ref != nil {
		t, err := p.cfg.Templates.Template(ctx, ti.Namespace, ref.Name)
		if apierrors.IsNotFound(err) {
			return nil, false, Fail("TemplateNotFound", "Template %s/%s does not exist", ti.Namespace, ref.Name)
		}
		if err != nil {
			return nil, false, err
		}
		return t, true, nil
	}
	if ti.Spec.Template == nil {
		return nil, false, Fail("NoTemplate", "spec has neither templateRef nor template")
	}
	t, _, err := process.DecodeTemplate(ti.Spec.Template.Raw)
	if err != nil {
		return nil, false, Fail("InvalidTemplate", "spec.template: %v", err)
	}
	return t, false, nil
}

// MayProcess asks whether the requester may process the instance's template: create on
// templates/processed for a reference (as the endpoint asks), on processedtemplates for an
// inline template; Forbidden otherwise.
func (p *Planner) MayProcess(ctx context.Context, ti *templatesv1.TemplateInstance, requester user.Info) error {
	attrs := authorizer.AttributesRecord{User: requester, Verb: "create", APIGroup: templates.GroupName, APIVersion: templatesv1.SchemeGroupVersion.Version,
		Namespace: ti.Namespace, ResourceRequest: true, Resource: "processedtemplates"}
	if ref := ti.Spec.TemplateRef; ref != nil {
		attrs.Resource, attrs.Subresource, attrs.Name = "templates", "processed", ref.Name
	}
	allowed, reason, err := p.Ask(ctx, attrs)
	if err != nil {
		return err
	}
	if !allowed {
		return Fail("Forbidden", "%s may not process %s: %s", requester.GetName(), authz.Describe(attrs), reason)
	}
	return nil
}
