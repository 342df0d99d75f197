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

// Package renderrest serves the API's two processing endpoints from one pkg/render
// Renderer: it reads what processing needs from storage and turns the outcome into an API
// answer, a 422 or warnings.
package renderrest

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/metrics"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/remove"
)

// Sources are what processing reads from the server besides the request.
type Sources struct {
	// Templates reads the stored Templates of the request's namespace, for transformersFrom.
	Templates rest.Getter
	// RemovalRules returns the CustomTransforms in force; nil means none.
	RemovalRules func(ctx context.Context) ([]remove.Rule, error)
	// KindToResource maps a kind to its plural resource, for CustomTransforms that name a
	// resource; nil means the built-in table of Kubernetes' kinds.
	KindToResource func(group, kind string) (string, bool)
	// Authorizer decides whether the caller of processedtemplates may read the templates its
	// template imports.
	Authorizer authorizer.Authorizer
	// Memory is the memory processing requests hold together; nil means
	// NewProcessingBudget's default.
	Memory *Budget
	// Processing are the renderer's settings, given to it as they are; zero fields mean its
	// defaults.
	Processing render.Config
	// Observer hears of every request, transformer run and cache lookup, for metrics; nil
	// for none.
	Observer Observer
	// Plugins says which plugin providers may run in a namespace; nil runs none.
	Plugins plugin.PolicyFunc
	// KustomizeBuilder runs the inline Kustomizations' builds where they stop with their
	// request; nil runs them in the request's goroutine.
	KustomizeBuilder transform.Builder
}

// Observer is what the server's metrics need from processing.
type Observer interface {
	render.CacheObserver
	// Processed reports one request; err is what the endpoint answers, nil for success.
	Processed(endpoint string, took time.Duration, templateBytes, objects, objectBytes int, err error)
	// Transformer reports one transformer's run.
	Transformer(kind string, took time.Duration)
}

// Adapter processes templates for the endpoints and answers with a v1 List.
type Adapter struct {
	sources  Sources
	renderer *render.Renderer
	memory   *Budget
}

// NewAdapter returns an Adapter reading from sources.
func NewAdapter(sources Sources) *Adapter {
	renderer := render.NewRenderer(render.Options{Config: sources.Processing, KindToResource: sources.KindToResource,
		KustomizeBuilder: sources.KustomizeBuilder})
	if sources.Observer != nil {
		renderer.ObserveCaches(sources.Observer)
		// Every request's transformers heard by the renderer, bound once: a context carrying
		// the observer (transform.WithStepObserver) was an allocation a request, and a method
		// value made for each request another.
		renderer.ObserveSteps(sources.Observer.Transformer)
	}
	memory := sources.Memory
	if memory == nil {
		memory = NewProcessingBudget(0, nil)
	}
	return &Adapter{sources: sources, renderer: renderer, memory: memory}
}

// Process processes in, filling in what it reads from storage. Every problem of the template
// or the request comes back as one 422 naming its fields; warnings become API warnings.
//
// A stored template's imports are read for whoever may process it: its author chose them.
// A template given in the request is the caller's own, so it may import only the templates
// the caller may get, or processedtemplates would read any template of the namespace.
func (p *Adapter) Render(ctx context.Context, in render.Input) (*v1alpha1.List, error) {
	if err := withProvenance(ctx, &in); err != nil {
		return nil, err
	}
	// Provenance is answered beside the objects: its trace read the engine's bytes, which
	// are then the request's own.
	release := claimAnswerRelease(ctx)
	in.ReleasedOutput = release != nil && in.Provenance == nil
	out, err := p.render(ctx, in, templates.Kind("Template"))
	if err != nil {
		return nil, err
	}
	list, err := answer(out)
	if err == nil && in.ReleasedOutput {
		release.list, release.output = list, out
	}
	return list, err
}

// RenderObjects processes in as Render does and returns the renderer's output itself: the
// objects, the parameters' values and the Templates imported, for the TemplateInstance
// controller, which applies the objects and checks the rights of everyone who shaped them.
func (p *Adapter) RenderObjects(ctx context.Context, in render.Input) (*render.Output, error) {
	return p.render(ctx, in, templates.Kind("Template"))
}

// RenderTemplate processes in as Render does and answers as OpenShift's processedtemplates
// does: the template itself, with its objects processed, its parameters' values (generated
// ones included), its message and labels substituted. Its 422s name kind.
func (p *Adapter) RenderTemplate(ctx context.Context, in render.Input, kind schema.GroupKind) (*templates.Template, error) {
	if asked, err := ProvenanceAsked(ctx); err != nil || asked {
		if err == nil {
			err = apierrors.NewBadRequest("OpenShift's processedtemplates answers a Template, which has no room for provenance: ask templates.stencil.dev's processedtemplates with ?provenance=true")
		}
		return nil, err
	}
	in.TemplateLabels = true
	out, err := p.render(ctx, in, kind)
	if err != nil {
		return nil, err
	}
	t := in.Template.DeepCopy()
	t.Objects = make([]runtime.RawExtension, len(out.Objects))
	for i, obj := range out.Objects {
		t.Objects[i].Raw = obj
	}
	t.Parameters, t.Message = out.Parameters, out.Message
	if len(t.ObjectLabels) > 0 {
		t.ObjectLabels = out.Labels
	}
	return t, nil
}

// render processes in for either answer.
func (p *Adapter) render(ctx context.Context, in render.Input, kind schema.GroupKind) (out *render.Output, err error) {
	if o := p.sources.Observer; o != nil {
		start := time.Now()
		defer func() { observe(o, in, time.Since(start), out, err) }()
	}
	// The request's Hold lives until its answer is written (HoldUntilWritten); without one
	// (the TemplateInstance controller, which applies what it gets), until processing ends.
	hold := holdFrom(ctx)
	if hold == nil {
		hold = p.memory.NewHold()
		defer hold.Release()
	}
	in.Memory = requestMemory{hold}
	if p.sources.Templates != nil {
		// The closure holds what it reads of in, not in: a closure that read in would move
		// all of it to the heap, for every request.
		stored := in.Stored
		in.GetTemplate = func(name string) (*templates.Template, error) {
			if !stored {
				if err := p.authorizeGet(ctx, name); err != nil {
					return nil, err
				}
			}
			obj, err := p.sources.Templates.Get(ctx, name, &metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return obj.(*templates.Template), nil
		}
	}
	if p.sources.RemovalRules != nil {
		rules, err := p.sources.RemovalRules(ctx)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("reading CustomTransforms: %w", err))
		}
		in.RemovalRules = rules
	}
	if p.sources.Plugins != nil {
		namespace, _ := genericapirequest.NamespaceFrom(ctx)
		in.Plugins = p.sources.Plugins(namespace)
	}
	if transform.UsesPlugins(in.Template) {
		warning.AddWarning(ctx, "", in.Plugins.Describe())
	}
	// Admit's refusal is the caller's own answer, returned as it is. (A pointer made only
	// when there is an Admit: a variable the closure sets would be on the heap for every
	// request.)
	var refused *error
	if admit := in.Admit; admit != nil {
		refused = new(error)
		in.Admit = func(imported []*templates.Template) error {
			*refused = admit(imported)
			return *refused
		}
	}
	out, errs, err := p.renderer.Render(ctx, in)
	if refused != nil && *refused != nil {
		return nil, *refused
	}
	if ctx.Err() != nil {
		return nil, apierrors.NewTimeoutError("processing did not finish before the request ended", 0)
	}
	if _, ok := err.(apierrors.APIStatus); ok {
		// The memory's answer: a 429, or a timeout while the request waited.
		return nil, err
	}
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	// What the request keeps is its answer, until it is written.
	hold.Settle(answerCost(out))
	for _, e := range errs {
		// A storage read that failed is the server's problem, not the template's.
		if e.Type == field.ErrorTypeInternal {
			return nil, apierrors.NewInternalError(fmt.Errorf("%s: %s", e.Field, e.Detail))
		}
	}
	if out != nil {
		for _, w := range out.Warnings {
			warning.AddWarning(ctx, "", w)
		}
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(kind, in.Template.Name, errs)
	}
	return out, nil
}

// answerFactor is what an answer holds per byte of its objects while the API server encodes
// and sends it: the objects themselves, and the buffer encoding/json writes them into (it
// doubles as it grows, and the old one is kept while it does). Measured: 4.2 with 400,000
// small objects, 2 with one large string.
const answerFactor = 5

// answerCost is what the answer of out holds until it is written.
func answerCost(out *render.Output) int64 {
	if out == nil {
		return 0
	}
	n := len(out.Message) + 4096
	for _, obj := range out.Objects {
		n += len(obj)
	}
	for _, p := range out.Parameters {
		n += len(p.Value) + len(p.Description) + 256
	}
	fields := 0
	if out.Provenance != nil {
		for _, o := range out.Provenance.Objects {
			fields += len(o.Fields)
		}
	}
	return answerFactor*int64(n) + provenanceAnswerBytes*int64(fields)
}

// requestMemory charges one request's Hold with what pkg/render asks for.
type requestMemory struct{ hold *Hold }

func (m requestMemory) Hold(ctx context.Context, n int64, plugins bool) error {
	return m.hold.Set(ctx, n, plugins)
}

func (m requestMemory) Grow(ctx context.Context, n int64, plugins bool) error {
	return m.hold.Grow(ctx, n, plugins)
}

func (m requestMemory) Capacity(plugins bool) int64 { return m.hold.budget.Capacity(plugins) }

// observe reports one request to o.
func observe(o Observer, in render.Input, took time.Duration, out *render.Output, err error) {
	endpoint := metrics.EndpointProcessedTemplates
	if in.Stored {
		endpoint = metrics.EndpointProcessed
	}
	templateBytes := 0
	for _, raws := range [][]runtime.RawExtension{in.Template.Objects, in.Template.Transformers} {
		for _, raw := range raws {
			templateBytes += len(raw.Raw)
		}
	}
	objects, objectBytes := 0, 0
	if out != nil && err == nil {
		objects = len(out.Objects)
		for _, obj := range out.Objects {
			objectBytes += len(obj)
		}
	}
	o.Processed(endpoint, took, templateBytes, objects, objectBytes, err)
}

// authorizeGet allows reading the template name only to a caller who may get it.
func (p *Adapter) authorizeGet(ctx context.Context, name string) error {
	if p.sources.Authorizer == nil {
		return nil
	}
	user, _ := genericapirequest.UserFrom(ctx)
	namespace, _ := genericapirequest.NamespaceFrom(ctx)
	return authz.Require(ctx, p.sources.Authorizer, authorizer.AttributesRecord{
		User: user, Verb: "get", APIGroup: templates.GroupName, APIVersion: v1alpha1.SchemeGroupVersion.Version,
		Resource: "templates", Namespace: namespace, Name: name, ResourceRequest: true,
	}, func(reason string) error {
		return apierrors.NewForbidden(templates.Resource("templates"), name, fmt.Errorf("importing its transformers needs get: %s", reason))
	})
}
