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

package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/endpoints/handlers"
	"k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager"
	requestmetrics "k8s.io/apiserver/pkg/endpoints/handlers/metrics"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/util/dryrun"
	"k8s.io/apiserver/pkg/warning"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// processingHandler is the create handler of a processing kind (processedtemplates): from the
// body's bytes to the answer's in one pass, the way the engine goes from a file to a List.
//
// Why a handler of its own. The API server's create handler (handlers.CreateResource) is
// built for objects it stores: it reads the body again into a buffer of its own (the body
// filter has read it already), builds a decoder and an encoder for each request, runs the
// storage call in a goroutine of its own (the finisher, which lets a request end while a
// storage call that does not hear its context goes on; processing hears it, and its timeout
// is answered here in the finisher's words), records managed fields, and opens tracing
// spans. On a small template that machinery costs more than processing it (about
// 110 µs of CPU against the engine's 25 µs, 300 allocations). Processing stores nothing,
// reads its body once and stops with its context, so none of that is needed for it.
//
// Why here, in front of the installer's route, and not in the installer or the storage. The
// installer (and discovery and OpenAPI, which it feeds) stays as it is: processedtemplates is
// still installed as a create-only resource, so discovery, OpenAPI and kubectl see what they
// saw. This handler sits where processingRoutes sends the POST, inside every filter
// (authentication, authorization of create on the resource in the namespace, audit, priority
// and fairness, the timeout, the body budget), as the installer's route does. A fast path at
// the rest.Creater level could not skip the handler's costs, which are above the storage.
//
// What it keeps, step by step as the create handler does them: the request's namespace, the
// 34-second upper bound of its time (a deadline whose timer starts only if something waits for
// it: withDeadlineOnDemand), output negotiation (NegotiateOutputMediaType), the create
// options (dryRun, fieldValidation, fieldManager, validated as the handler validates them),
// the body size metric, the strict decoder's warnings (fieldValidation Warn, the default) and
// refusals, the group versions accepted, the system fields wiped and the namespace checked,
// audit of the request and the response, admission (mutating, then the storage's validating
// call, with the managed fields check the handler wraps it in and the owner references deduped
// after it), the answer's encoding, its gzip and its latency trackers, 201. It decodes with
// the same decoders (templateCodec's one scan), through a versioning codec built once.
//
// What it does not answer itself, it hands to the create handler, unchanged, before it has
// done anything a client or a record could see: any request it cannot answer exactly as that
// handler would. That is a body the body filter did not read, a body that is neither JSON nor
// YAML (the filter converts YAML bodies it can; the YAML decoder reads the ones it leaves, a
// document that repeats a key, and its words become warnings as the create handler splits
// them), a transformed answer (as=Table, PartialObjectMetadata), create options that do not
// decode or validate, a body that does not decode (the decoder's errors are worded by the
// create handler), a group version it does not accept, a namespace that does not match, a
// Template with owner references or managed fields, and a request being traced (the create
// handler's spans are what a trace shows). The two paths
// answer the same (TestProcessingHandlerAnswersAsTheCreateHandler).
type processingHandler struct {
	// generic is the create handler of the same scope.
	generic http.HandlerFunc
	storage processingStorage
	scope   *handlers.RequestScope
	// decoders are the decoders to the internal version of the JSON serializer and of the
	// YAML one (which decodes a body the body filter left as YAML: one that repeats a key),
	// lenient and strict: what the create handler builds for each request.
	decoders, yamlDecoders [2]runtime.Decoder
	// encoders are the answer's encoders by media type, built once (the create handler builds
	// one for each answer).
	encoders map[string]runtime.Encoder
	// splitters decode a YAML body the body filter converted, lenient and strict, from where
	// the converter wrote its members (decodeConverted); nil when the scope's scheme is not one.
	splitters *[2]templateCodec
	// negotiations are the answer's media types by Accept header (negotiate).
	negotiations negotiations
	// admitCreate is admit as the create handler wraps it for each request (audit, then the
	// managed fields check), wrapped once: the wrappers keep nothing of a request (each call
	// is given its context and attributes). nil when the server has no admission.
	admitCreate admission.Interface
}

// requestTimeoutUpperBound is the create handler's bound of a request's time.
const requestTimeoutUpperBound = 34 * time.Second

// newProcessingHandler returns the handler of storage in scope, handing what it does not
// answer to generic.
func newProcessingHandler(storage processingStorage, scope *handlers.RequestScope, admit admission.Interface, generic http.HandlerFunc) (*processingHandler, error) {
	h := &processingHandler{generic: generic, storage: storage, scope: scope}
	for mediaType, decoders := range map[string]*[2]runtime.Decoder{runtime.ContentTypeJSON: &h.decoders, runtime.ContentTypeYAML: &h.yamlDecoders} {
		info, ok := runtime.SerializerInfoForMediaType(scope.Serializer.SupportedMediaTypes(), mediaType)
		if !ok || info.Serializer == nil || info.StrictSerializer == nil {
			return nil, fmt.Errorf("the serializer of %s has no %s decoders", scope.Resource, mediaType)
		}
		decoders[0] = scope.Serializer.DecoderToVersion(info.Serializer, scope.HubGroupVersion)
		decoders[1] = scope.Serializer.DecoderToVersion(info.StrictSerializer, scope.HubGroupVersion)
	}
	if scheme, ok := scope.Convertor.(*runtime.Scheme); ok {
		// decodeConverted decodes into the request's templates.Template: only when that is what
		// the storage's New makes.
		if _, ok := storage.New().(*templates.Template); ok {
			h.splitters = &[2]templateCodec{{scheme: scheme}, {scheme: scheme, strict: true}}
		}
	}
	h.admitCreate = fieldmanager.NewManagedFieldsValidatingAdmissionController(admission.WithAudit(admit))
	h.encoders = map[string]runtime.Encoder{}
	for _, info := range scope.Serializer.SupportedMediaTypes() {
		if info.Serializer != nil {
			h.encoders[info.MediaType] = withListEncoder(scope, info.Serializer, scope.Serializer.EncoderForVersion(info.Serializer, scope.Kind.GroupVersion()))
		}
	}
	return h, nil
}

func (h *processingHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if !h.serve(w, req) {
		h.generic(w, req)
	}
}

// serve answers req and returns true, or returns false having done nothing a client or a
// record could see, for the create handler to answer it.
func (h *processingHandler) serve(w http.ResponseWriter, req *http.Request) bool {
	ctx := req.Context()
	body, read := bodyBytes(req)
	decoders := &h.decoders
	switch headerValue(req.Header, "Content-Type") {
	case runtime.ContentTypeJSON:
	case runtime.ContentTypeYAML:
		decoders = &h.yamlDecoders
	default:
		return false
	}
	if !read || trace.SpanContextFromContext(ctx).IsValid() ||
		(h.scope.MaxRequestBodyBytes > 0 && int64(len(body)) > h.scope.MaxRequestBodyBytes) {
		return false
	}
	info, ok := request.RequestInfoFrom(ctx)
	if !ok || info.Namespace == "" {
		return false
	}
	namespace := info.Namespace
	pretty := mayBePretty(req)
	outputMediaType, output, err := h.negotiate(req, pretty)
	if err != nil || outputMediaType.Convert != nil {
		return false
	}
	r := &processingRequest{kind: h.scope.Kind}
	options := &r.options
	if !createOptions(req, options) {
		return false
	}
	directive := options.FieldValidation
	if directive == "" {
		directive = metav1.FieldValidationWarn
	}
	strict := directive == metav1.FieldValidationWarn || directive == metav1.FieldValidationStrict
	decoder := decoders[0]
	if strict {
		decoder = decoders[1]
	}
	obj, gvk, err, decoded := h.decodeConverted(req, strict, r)
	if !decoded {
		// Into the request's Template, which is what storage.New makes when there are
		// splitters; but decodeConverted, asked about a converted body, may have written part
		// of it before it gave up: the decoder then decodes into a Template of its own.
		var into runtime.Object = &r.template
		if h.splitters == nil || bodyConversion(req) != nil {
			into = h.storage.New()
		}
		obj, gvk, err = decoder.Decode(body, &r.kind, into)
	}
	var warnings []string
	if err != nil {
		strict, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict || obj == nil || directive != metav1.FieldValidationWarn {
			return false
		}
		for _, e := range strict.Errors() {
			warnings = append(warnings, strictWarnings(e.Error())...)
		}
	}
	if gvk == nil || !h.scope.AcceptsGroupVersion(gvk.GroupVersion()) {
		return false
	}
	t, ok := obj.(*templates.Template)
	if !ok || len(t.OwnerReferences) > 0 || len(t.ManagedFields) > 0 {
		return false
	}
	rest.WipeObjectMetaSystemFields(t)
	if rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForResource(namespace, h.scope.Resource), t) != nil {
		return false
	}

	// From here on the request is this handler's.
	ctx = r.deadline.start(ctx, time.Now().Add(requestTimeoutUpperBound))
	defer r.deadline.cancel()
	requestmetrics.RecordRequestBodySize(ctx, h.scope.Resource.GroupResource(), requestmetrics.Create, len(body))
	for _, message := range warnings {
		warning.AddWarning(req.Context(), "", message)
	}
	ctx = request.WithNamespace(ctx, namespace)
	// The answer's objects may be written into memory given back once it is written in time.
	ctx = renderrest.WithAnswerRelease(ctx, &r.release)
	audit.LogRequestObject(req.Context(), obj, gvk.GroupVersion(), h.scope.Resource, "", h.scope.Serializer)
	result, err := h.create(ctx, req, t, namespace, options)
	// Only a request served to its end in time gives back the memory its processing and its
	// answer held: past its deadline, whatever processing started may still run. (A context's
	// error, once set, stays: asked at the end, it covers processing and the answer's writing.)
	defer func() {
		if ctx.Err() == nil {
			finishBody(req)
		}
	}()
	if ctx.Err() != nil {
		// What the create handler's finisher answers when the request's time ends before
		// its storage call returns (processing stops with its context, so here it returns).
		result, err = nil, apierrors.NewTimeoutError(fmt.Sprintf("request did not complete within requested timeout - %s", ctx.Err()), 0)
	}
	if err != nil {
		h.refuse(w, req, err)
		return true
	}
	if status, ok := result.(*metav1.Status); ok && status.Code == 0 {
		status.Code = http.StatusCreated
	}
	// What the create handler's answer does with an empty list: items [], never null. (The
	// processed List, the usual answer, is looked at directly: meta's questions go through
	// reflection.)
	if list, ok := result.(*v1alpha1.List); ok {
		if list.Items == nil {
			list.Items = []runtime.RawExtension{}
		}
	} else if meta.IsListType(result) && meta.LenList(result) == 0 {
		if err := meta.SetList(result, []runtime.Object{}); err != nil {
			h.refuse(w, req, err)
			return true
		}
	}
	request.TrackTransformResponseObjectLatency(ctx, func() {})
	h.answer(w, req, pretty, outputMediaType, output, result, &r.answer)
	if list, ok := result.(*v1alpha1.List); ok && ctx.Err() == nil {
		// Written in time: the answer's encoders and audit's copy of it are done with the
		// List and its objects' bytes, and nothing else was handed them. A late request's
		// processing may have outlived its answer: its memory goes to the collector.
		r.release.Release(list)
	}
	return true
}

// strictWarnings are the warnings of one strict decoding error, as the create handler adds
// them: a YAML conversion's list of errors (one per line after its heading) one each.
func strictWarnings(message string) []string {
	list, ok := strings.CutPrefix(message, "yaml: unmarshal errors:\n")
	if !ok {
		if list, ok = strings.CutPrefix(message, "error converting YAML to JSON: yaml: unmarshal errors:\n"); !ok {
			return []string{message}
		}
	}
	warnings := strings.Split(list, "\n")
	for i := range warnings {
		warnings[i] = strings.TrimSpace(warnings[i])
	}
	return warnings
}

// create admits t and gives it to the storage, as the create handler does.
//
// The attributes admission is asked with are made only when there is an admission to ask: a
// server without admission (local mode) reads none.
func (h *processingHandler) create(ctx context.Context, req *http.Request, t *templates.Template, namespace string, options *metav1.CreateOptions) (runtime.Object, error) {
	admit := h.admitCreate
	var attributes admission.Attributes
	if admit != nil {
		user, _ := request.UserFrom(ctx)
		attributes = admission.NewAttributesRecord(t, nil, h.scope.Kind, namespace, t.Name, h.scope.Resource, "", admission.Create,
			options, dryrun.IsDryRun(options.DryRun), user)
	}
	if mutating, ok := admit.(admission.MutationInterface); ok && mutating.Handles(admission.Create) {
		if err := mutating.Admit(ctx, attributes, h.scope); err != nil {
			return nil, err
		}
	}
	dedupOwnerReferencesAfterAdmission(req.Context(), t)
	var validate rest.ValidateObjectFunc
	if _, ok := admit.(admission.ValidationInterface); ok {
		validate = rest.AdmissionToValidateObjectFunc(admit, attributes, h.scope)
	}
	return h.storage.Create(ctx, t, validate, options)
}

// refuse answers err as the create handler does.
func (h *processingHandler) refuse(w http.ResponseWriter, req *http.Request, err error) {
	responsewriters.ErrorNegotiated(err, h.scope.Serializer, h.scope.Kind.GroupVersion(), w, req)
}

// createOptions reads the request's create options into the zero options, decoded and
// validated as the create handler does; false when they are not valid, for that handler to
// say why.
func createOptions(req *http.Request, options *metav1.CreateOptions) bool {
	if req.URL.RawQuery != "" {
		if err := metainternalversionscheme.ParameterCodec.DecodeParameters(req.URL.Query(), metav1.SchemeGroupVersion, options); err != nil {
			return false
		}
		if errs := metav1validation.ValidateCreateOptions(options); len(errs) > 0 {
			return false
		}
	}
	// What options.SetGroupVersionKind(CreateOptions) sets, without writing the apiVersion
	// again for each request.
	options.TypeMeta = createOptionsType
	return true
}

var createOptionsType = metav1.TypeMeta{APIVersion: metav1.SchemeGroupVersion.String(), Kind: "CreateOptions"}

// processingRequest is what a request keeps past serve's frame (the decoder, admission, the
// storage and the answer's writer are given pointers to it), in one allocation instead of one
// each.
type processingRequest struct {
	// kind is the decoder's default kind: the scope's, a copy the decoder may write.
	kind schema.GroupVersionKind
	// template is what the body is decoded into (what storage.New would make: checked by
	// newProcessingHandler, which makes splitters only then); decodedKind is the kind
	// decodeConverted decodes a converted YAML body as.
	template    templates.Template
	decodedKind schema.GroupVersionKind
	options     metav1.CreateOptions
	deadline    onDemandDeadline
	answer      listAnswer
	// release is what the answer gives back once written in time.
	release renderrest.AnswerRelease
}

// dedupOwnerReferencesAfterAdmission drops the owner references of t that a mutating admission
// added twice (the same UID, equal), with the create handler's warning. A body with owner
// references is the create handler's (it dedups them before admission too).
func dedupOwnerReferencesAfterAdmission(ctx context.Context, t *templates.Template) {
	if len(t.OwnerReferences) < 2 {
		return
	}
	var kept []metav1.OwnerReference
	var duplicates []string
	for _, ref := range t.OwnerReferences {
		seen := false
		for _, k := range kept {
			if k.UID == ref.UID && apiequality.Semantic.DeepEqual(k, ref) {
				seen = true
				break
			}
		}
		if seen {
			duplicates = append(duplicates, string(ref.UID))
			continue
		}
		kept = append(kept, ref)
	}
	if len(duplicates) > 0 {
		warning.AddWarning(ctx, "", fmt.Sprintf(handlers.DuplicateOwnerReferencesAfterMutatingAdmissionWarningFormat, strings.Join(duplicates, ", ")))
		t.OwnerReferences = kept
	}
}
