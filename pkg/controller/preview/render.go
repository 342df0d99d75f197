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
	"hash/fnv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/redact"
	"stencil.dev/stencil/pkg/render"
)

// What one rendering of an instance reads, who may see it, and the rendering itself, as a pass
// of the controller does them (the pass library's), with the baseline's generated values for
// those the instance does not keep yet.

// previewed is one rendering of an instance for a preview: the objects planned as the
// controller plans them.
type previewed struct {
	out  *render.Output
	plan []*instance.Planned
	// generated are the generated parameters' values.
	generated map[string]string
	// fresh says a generated parameter had no kept value: what is applied will differ.
	fresh bool
}

// previewInputs are what one rendering of an instance reads: the values and their sources,
// and the generated parameters.
type previewInputs struct {
	*inventory.Inputs
	template *templates.Template
	// generated are the generated parameters; kept those of them whose value the instance
	// keeps.
	generated, kept map[string]bool
}

// inputs reads what rendering t for the instance reads, as the controller would: its
// parametersFrom sources and the values it keeps of t's generated parameters.
func (s *previewState) inputs(ctx context.Context, ti *templatesv1.TemplateInstance, t *templates.Template) (*previewInputs, error) {
	in, err := inventory.ReadInputs(ti, t, func(src inventory.Source) (map[string][]byte, error) {
		data, err := s.sourceData(ctx, ti, src, false)
		if err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				return nil, instance.Fail("ParametersSecret", "%s %s/%s of parametersFrom: %s", src.Kind, ti.Namespace, src.Name, instance.StatusMessage(err))
			}
			return nil, err
		}
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	out := &previewInputs{Inputs: in, template: t, generated: inventory.GeneratedParameters(t, in.Values), kept: map[string]bool{}}
	if len(out.generated) > 0 {
		src := inventory.Source{Kind: inventory.SecretKind, Name: instance.GeneratedSecretName(ti.Name)}
		data, err := s.sourceData(ctx, ti, src, true)
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
			return nil, err
		}
		in.Keep(src, data, out.generated, nil)
		for n := range out.generated {
			if _, ok := data[n]; ok {
				out.kept[n] = true
			}
		}
	}
	return out, nil
}

// render renders the inputs' template for the instance with its values, as the controller
// would, and plans the objects; the secret values it meets are added to m. Generated
// parameters take the values the instance keeps, else those in kept (the baseline's, so that
// both sides of the comparison share them), else new ones. The authors of the content (and
// of what it imports) must be allowed to read what the instance reads, as in a pass.
func (s *previewState) render(ctx context.Context, ti *templatesv1.TemplateInstance, in *previewInputs, kept map[string]string, m *masker,
	authors []instance.Author) (*previewed, error) {
	r := &previewed{}
	values := in.Values
	for n := range in.generated {
		if in.kept[n] {
			continue
		}
		if v, ok := kept[n]; ok {
			values[n] = v
		}
		r.fresh = true
	}
	t := in.template
	for i := range t.Parameters {
		if p := &t.Parameters[i]; redact.Hidden(p, values[p.Name], in.FromSecret[p.Name]) {
			m.set.Add(values[p.Name])
		}
	}
	dialect := process.Stencil
	if t.OpenShift {
		dialect = process.OpenShift
	}
	if errs := process.CheckValues(t, dialect, process.Request{Parameters: values, FromSecret: in.FromSecret}); len(errs) > 0 {
		return nil, apierrors.NewInvalid(templates.Kind("TemplateInstance"), ti.Name, errs)
	}
	// An instance that keeps no generated values yet gets values from a generator seeded by
	// the instance: the plan hash then covers it too (see planned).
	var gen process.Generator
	if r.fresh {
		gen = process.NewSeededGenerator(seedOf(ti))
	}
	out, err := s.planner.RenderTemplate(ctx, ti, t, true, in.Inputs, authors, gen)
	if err != nil {
		return nil, err
	}
	r.out = out
	rendered := instance.NewRendered()
	declared := map[string]*templates.Parameter{}
	for i := range t.Parameters {
		declared[t.Parameters[i].Name] = &t.Parameters[i]
	}
	for i := range out.Parameters {
		p := &out.Parameters[i]
		if d := declared[p.Name]; d != nil && redact.Hidden(d, p.Value, in.FromSecret[p.Name]) {
			m.set.Add(p.Value)
		}
		if in.FromSecret[p.Name] {
			rendered.FromSecrets.Add(p.Value)
		}
		if in.generated[p.Name] {
			if r.generated == nil {
				r.generated = map[string]string{}
			}
			r.generated[p.Name] = p.Value
		}
	}
	rendered.Generated = r.generated
	if err := rendered.Decode(out); err != nil {
		return nil, err
	}
	r.plan, err = s.planner.Plan(ti, rendered)
	return r, err
}

// callerReads requires the caller to be allowed to get every source the renderings read (the
// instance itself the caller may list: mayList). Otherwise the instance is Forbidden, and the
// answer holds nothing rendered from its inputs: no classification of what would change, no
// object, no hash.
func (s *previewState) callerReads(ctx context.Context, ti *templatesv1.TemplateInstance, inputs ...*previewInputs) error {
	var refused []string
	seen := map[inventory.Source]bool{}
	for _, in := range inputs {
		if in == nil {
			continue
		}
		for _, src := range in.Read {
			if seen[src] {
				continue
			}
			seen[src] = true
			allowed, _, err := s.planner.Ask(ctx, authorizer.AttributesRecord{User: s.caller, Verb: "get", APIVersion: "v1",
				Resource: src.Resource(), Namespace: ti.Namespace, Name: src.Name, ResourceRequest: true})
			if err != nil {
				return err
			}
			if !allowed {
				refused = append(refused, src.Kind+" "+ti.Namespace+"/"+src.Name)
			}
		}
	}
	if len(refused) > 0 {
		return instance.Fail("Forbidden", "%s may not get %s, which the instance reads its values from: a preview shows nothing of an "+
			"instance whose inputs its caller may not read", s.caller.GetName(), strings.Join(refused, ", "))
	}
	return nil
}

// seedOf seeds the generator of the values a preview draws for an instance that keeps none
// yet: its uid, so that two previews of the same inputs render alike. The values are never
// applied (a pass draws its own from crypto/rand) and never shown (they are masked).
func seedOf(ti *templatesv1.TemplateInstance) uint64 {
	h := fnv.New64a()
	h.Write([]byte(ti.UID))
	return h.Sum64()
}
