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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/handlers"
	"k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// recordingAdmission is a mutating and validating admission that records what it is asked,
// labels the Template it admits and refuses a Template named "refused". It may be asked by
// requests at once.
type recordingAdmission struct {
	mu                 sync.Mutex
	mutated, validated []string
	dryRun             []bool
}

func (a *recordingAdmission) Handles(admission.Operation) bool { return true }

func (a *recordingAdmission) Admit(_ context.Context, attrs admission.Attributes, _ admission.ObjectInterfaces) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mutated = append(a.mutated, attrs.GetNamespace()+"/"+attrs.GetName()+" "+attrs.GetResource().String()+" "+string(attrs.GetOperation()))
	a.dryRun = append(a.dryRun, attrs.IsDryRun())
	t := attrs.GetObject().(*templates.Template)
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	t.Labels["admitted"] = "yes"
	return nil
}

func (a *recordingAdmission) Validate(_ context.Context, attrs admission.Attributes, _ admission.ObjectInterfaces) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := attrs.GetObject().(*templates.Template)
	a.validated = append(a.validated, t.Name+" labelled "+t.Labels["admitted"])
	if t.Name == "refused" {
		return apierrors.NewForbidden(attrs.GetResource().GroupResource(), t.Name, admission.NewForbidden(attrs, nil))
	}
	return nil
}

// processingPair is the processing route of one resource twice: the server's (the handler of
// its own, handing on to the create handler) and the create handler alone, each behind the
// filters processing requests meet (warnings, request info, user, memory, the body filter,
// ?provenance).
type processingPair struct {
	fast, generic http.Handler
	// fastHandler is the server's handler inside fast, and fastBodies its body filter.
	fastHandler *processingHandler
	fastBodies  *bodyReader
	// handedOn counts the requests the server's handler handed to the create handler.
	handedOn                atomic.Int32
	fastAdmit, genericAdmit *recordingAdmission
}

func newProcessingPair(t *testing.T, gv schema.GroupVersion, storage processingStorage) *processingPair {
	t.Helper()
	pair := &processingPair{fastAdmit: &recordingAdmission{}, genericAdmit: &recordingAdmission{}}
	build := func(admit *recordingAdmission, fast bool) http.Handler {
		s := processingScope{serializer: Served, admission: admit, maxBodyBytes: 1 << 20}
		scope, err := processingRequestScope(gv, "processedtemplates", storage, s)
		if err != nil {
			t.Fatal(err)
		}
		generic := handlers.CreateResource(storage, scope, s.admission)
		route := http.Handler(instrumentProcessing(gv, "processedtemplates", generic))
		if fast {
			h, err := newProcessingHandler(storage, scope, s.admission, func(w http.ResponseWriter, r *http.Request) {
				pair.handedOn.Add(1)
				generic(w, r)
			})
			if err != nil {
				t.Fatal(err)
			}
			pair.fastHandler = h
			route = instrumentProcessing(gv, "processedtemplates", h.ServeHTTP)
		}
		p := &processingRoutes{next: http.NotFoundHandler(), routes: map[schema.GroupVersionResource]http.Handler{gv.WithResource("processedtemplates"): route}}
		budget := renderrest.NewProcessingBudget(64<<20, nil)
		bodies := withBodies(renderrest.ReadProvenanceParameter(p), 1<<20, Codecs, p.mayFinish).(*bodyReader)
		if fast {
			pair.fastBodies = bodies
		}
		inner := budget.HoldUntilWritten(bodies)
		withUser := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inner.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), &user.DefaultInfo{Name: "alice"})))
		})
		return filters.WithWarningRecorder(filters.WithRequestInfo(withUser,
			&request.RequestInfoFactory{APIPrefixes: sets.NewString("apis"), GrouplessAPIPrefixes: sets.NewString("api")}))
	}
	pair.fast, pair.generic = build(pair.fastAdmit, true), build(pair.genericAdmit, false)
	return pair
}

// processingCase is one request.
type processingCase struct {
	name, query, contentType, accept, userAgent, body string
	namespace, acceptEncoding                         string
	// handedOn says the server's handler should hand the request to the create handler.
	handedOn bool
}

func (c processingCase) request(gv schema.GroupVersion) *http.Request {
	namespace := c.namespace
	if namespace == "" {
		namespace = "demo"
	}
	path := "/apis/" + gv.Group + "/" + gv.Version + "/namespaces/" + namespace + "/processedtemplates"
	if c.query != "" {
		path += "?" + c.query
	}
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(c.body))
	req.Header.Set("Content-Type", c.contentType)
	if c.accept != "" {
		req.Header.Set("Accept", c.accept)
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if c.acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", c.acceptEncoding)
	}
	return req
}

const (
	stencilTemplate = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t","namespace":"demo"},` +
		`"parameters":[{"name":"A","value":"1"}],"objects":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c-${A}"},"data":{"a":"<b>&"}}]}`
	stencilYAML = "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: t\nparameters:\n- name: A\n  value: \"1\"\n" +
		"objects:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: c-${A}\n"
	openShiftYAML = "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\nparameters:\n- name: A\n  value: \"1\"\n  requred: true\n" +
		"objects:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: c-${A}\n"
	openShiftTemplate = `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"t"},` +
		`"parameters":[{"name":"A","value":"1","requred":true}],"objects":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c-${A}"}}]}`
)

func processingCases() []processingCase {
	misspelled := strings.Replace(stencilTemplate, `"value":"1"`, `"value":"1","requred":true`, 1)
	unknownTop := strings.Replace(stencilTemplate, `"kind":"Template",`, `"kind":"Template","unknown":1,`, 1)
	large := strings.Replace(stencilTemplate, `"a":"<b>&"`, `"a":"<b>&","big":"`+strings.Repeat("x", 200<<10)+`"`, 1)
	keyTwice := strings.Replace(stencilYAML, "  name: t\n", "  name: t\n  name: t\n", 1)
	return []processingCase{
		{name: "json", body: stencilTemplate},
		{name: "yaml body", contentType: "application/yaml", body: stencilYAML},
		// The body filter leaves a YAML body that repeats a key as YAML: the YAML decoder
		// reads it, and its words are warnings, one a line, before the JSON decoder's.
		{name: "yaml with a key twice", contentType: "application/yaml", body: keyTwice},
		{name: "yaml with keys twice and a misspelled member", contentType: "application/yaml",
			body: strings.Replace(strings.Replace(keyTwice, "kind: Template\n", "kind: Template\nkind: Template\n", 1), "  value: \"1\"\n", "  value: \"1\"\n  requred: true\n", 1)},
		{name: "yaml with a key twice after an empty document", contentType: "application/yaml", body: "---\n# nothing\n---\n" + keyTwice},
		{name: "yaml with a key twice, ignored", contentType: "application/yaml", query: "fieldValidation=Ignore", body: keyTwice},
		// A YAML body the body filter converts is decoded from where the converter wrote its
		// members (decodeConverted); anything that does not decode is the decoder's.
		{name: "yaml openshift body, misspelled member warns", contentType: "application/yaml", body: openShiftYAML},
		{name: "yaml misspelled member, ignored", contentType: "application/yaml", query: "fieldValidation=Ignore", body: openShiftYAML},
		{name: "yaml misspelled member, strict", contentType: "application/yaml", query: "fieldValidation=Strict", body: openShiftYAML, handedOn: true},
		{name: "yaml unknown member warns", contentType: "application/yaml", body: strings.Replace(stencilYAML, "kind: Template\n", "kind: Template\nunknown: 1\n", 1)},
		{name: "yaml without apiVersion and kind", contentType: "application/yaml", body: strings.Replace(stencilYAML, "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\n", "", 1)},
		{name: "yaml with a kind in other letters", contentType: "application/yaml", body: strings.Replace(stencilYAML, "kind: Template\n", "kind: Template\nKind: ConfigMap\n", 1)},
		{name: "yaml type error", contentType: "application/yaml", body: strings.Replace(stencilYAML, "  value: \"1\"\n", "  value: [1]\n", 1), handedOn: true},
		{name: "yaml objects not a list", contentType: "application/yaml", body: strings.Replace(stencilYAML, "objects:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: c-${A}\n", "objects: {}\n", 1), handedOn: true},
		{name: "yaml answer", accept: "application/yaml", body: stencilTemplate},
		{name: "no accept", accept: "-", body: stencilTemplate},
		// The answer's own writer: gzip past 128 KiB to a client that takes it, not below.
		{name: "gzip, small", acceptEncoding: "gzip", body: stencilTemplate},
		{name: "gzip, large", acceptEncoding: "gzip", body: large},
		{name: "large, no gzip", body: large},
		{name: "large, another encoding", acceptEncoding: "br", body: large},
		{name: "accept anything", accept: "*/*", body: stencilTemplate},
		{name: "openshift body", body: openShiftTemplate},
		{name: "no objects", body: strings.Replace(stencilTemplate, `"objects":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c-${A}"},"data":{"a":"<b>&"}}]`, `"objects":[]`, 1)},
		{name: "dry run", query: "dryRun=All", body: stencilTemplate},
		{name: "field manager", query: "fieldManager=me&provenance=false", body: stencilTemplate},
		{name: "misspelled parameter member warns", body: misspelled},
		{name: "unknown member warns", body: unknownTop},
		{name: "unknown member ignored", query: "fieldValidation=Ignore", body: unknownTop},
		{name: "unknown member strict", query: "fieldValidation=Strict", body: unknownTop, handedOn: true},
		{name: "misspelled member strict", query: "fieldValidation=Strict", body: misspelled, handedOn: true},
		{name: "unknown field validation", query: "fieldValidation=Loud", body: stencilTemplate, handedOn: true},
		{name: "bad dry run", query: "dryRun=Some", body: stencilTemplate, handedOn: true},
		{name: "invalid template", body: strings.Replace(stencilTemplate, `"name":"A","value":"1"`, `"name":"a b","required":true`, 1)},
		{name: "missing parameter", body: strings.Replace(stencilTemplate, `"value":"1"`, `"required":true`, 1)},
		{name: "refused by admission", body: strings.Replace(stencilTemplate, `"name":"t"`, `"name":"refused"`, 1)},
		{name: "another namespace", namespace: "other", body: stencilTemplate, handedOn: true},
		{name: "not json", body: `{"apiVersion":`, handedOn: true},
		{name: "a type error", body: strings.Replace(stencilTemplate, `"value":"1"`, `"value":1`, 1), handedOn: true},
		{name: "not a template", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, handedOn: true},
		{name: "yaml stream", contentType: "application/yaml", body: stencilYAML + "---\n" + stencilYAML, handedOn: true},
		{name: "yaml with a key twice, strict", contentType: "application/yaml", query: "fieldValidation=Strict", body: keyTwice, handedOn: true},
		{name: "table", accept: "application/json;as=Table;v=v1;g=meta.k8s.io", body: stencilTemplate, handedOn: true},
		{name: "not acceptable", accept: "text/html", body: stencilTemplate, handedOn: true},
		// No type of ours is encoded in protobuf, which the groups do not offer: a 406.
		{name: "protobuf answer", accept: "application/vnd.kubernetes.protobuf", body: stencilTemplate, handedOn: true},
		{name: "protobuf or json", accept: "application/vnd.kubernetes.protobuf, application/json", body: stencilTemplate},
		{name: "pretty", query: "pretty=true", body: stencilTemplate},
		{name: "curl", userAgent: "curl/8.5", body: stencilTemplate},
		{name: "owner references", body: strings.Replace(stencilTemplate, `"namespace":"demo"`,
			`"namespace":"demo","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u"},{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u"}]`, 1), handedOn: true},
		{name: "content type with charset", contentType: "application/json; charset=utf-8", body: stencilTemplate, handedOn: true},
		{name: "provenance", query: "provenance=true", body: stencilTemplate},
		{name: "bad provenance", query: "provenance=maybe", body: stencilTemplate},
	}
}

// TestProcessingHandlerAnswersAsTheCreateHandler sends each request to the server's
// processing handler and to the API server's create handler alone, and checks the answers are
// the same, byte for byte: status, body (metav1.Status and its causes included), content
// type, warnings, and what admission was asked; and that the server's handler answered
// itself every request it should.
func TestProcessingHandlerAnswersAsTheCreateHandler(t *testing.T) {
	for _, group := range []struct {
		gv      schema.GroupVersion
		storage processingStorage
	}{
		{v1alpha1.SchemeGroupVersion, processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{}))},
		{openshift.SchemeGroupVersion, processedtemplate.NewOpenShiftREST(renderrest.NewAdapter(renderrest.Sources{}))},
	} {
		pair := newProcessingPair(t, group.gv, group.storage)
		// Bodies given back once the processing handler finished them (body_finish.go).
		var givenBack atomic.Int32
		pair.fastBodies.finishedGivenBack = func() { givenBack.Add(1) }
		// Twice: the second time, the answer's media type is the one negotiated before for
		// the same Accept header.
		for _, c := range append(processingCases(), processingCases()...) {
			if group.gv == openshift.SchemeGroupVersion && strings.Contains(c.body, "templates.stencil.dev") {
				// OpenShift's group takes only its own Templates: handed on as the
				// create handler's 400.
				c.handedOn = true
			}
			if c.contentType == "" {
				c.contentType = "application/json"
			}
			if c.accept == "" {
				c.accept = "application/json"
			} else if c.accept == "-" {
				c.accept = ""
			}
			t.Run(group.gv.Group+"/"+c.name, func(t *testing.T) {
				handedOn, given := pair.handedOn.Load(), givenBack.Load()
				fast, generic := httptest.NewRecorder(), httptest.NewRecorder()
				pair.fast.ServeHTTP(fast, c.request(group.gv))
				pair.generic.ServeHTTP(generic, c.request(group.gv))
				if fast.Code != generic.Code || fast.Body.String() != generic.Body.String() {
					t.Errorf("the processing handler answered %d:\n%s\nthe create handler %d:\n%s", fast.Code, fast.Body, generic.Code, generic.Body)
				}
				if c.name == "protobuf answer" && fast.Code != http.StatusNotAcceptable {
					t.Errorf("an answer asked only in protobuf: %d, want 406", fast.Code)
				}
				if c.name == "gzip, large" && generic.Code == http.StatusCreated && fast.Header().Get("Content-Encoding") != "gzip" {
					t.Errorf("a large answer to a client that takes gzip was not compressed")
				}
				for _, header := range []string{"Content-Type", "Warning", "Content-Encoding", "Vary", "X-Content-Type-Options"} {
					if got, want := fast.Header().Values(header), generic.Header().Values(header); strings.Join(got, "|") != strings.Join(want, "|") {
						t.Errorf("%s: %q, the create handler's %q", header, got, want)
					}
				}
				if got := pair.handedOn.Load() > handedOn; got != c.handedOn {
					t.Errorf("handed on to the create handler: %v, want %v (status %d: %s)", got, c.handedOn, fast.Code, fast.Body)
				}
				// A request handed on never gives its body back; a body the processing
				// handler answered does (a YAML body's JSON, or the YAML left to the decoder).
				switch gaveBack := givenBack.Load() > given; {
				case c.handedOn && gaveBack:
					t.Errorf("a body handed on to the create handler was given back")
				case !c.handedOn && !gaveBack:
					t.Errorf("a body the processing handler answered (%d) was not given back", fast.Code)
				}
			})
		}
		if strings.Join(pair.fastAdmit.mutated, "\n") != strings.Join(pair.genericAdmit.mutated, "\n") ||
			strings.Join(pair.fastAdmit.validated, "\n") != strings.Join(pair.genericAdmit.validated, "\n") ||
			len(pair.fastAdmit.dryRun) != len(pair.genericAdmit.dryRun) {
			t.Errorf("%s: admission was asked\n%q %q\nby the processing handler, and\n%q %q\nby the create handler", group.gv,
				pair.fastAdmit.mutated, pair.fastAdmit.validated, pair.genericAdmit.mutated, pair.genericAdmit.validated)
		}
		for i := range pair.fastAdmit.dryRun {
			if pair.fastAdmit.dryRun[i] != pair.genericAdmit.dryRun[i] {
				t.Errorf("%s: admission %d was told dry run %v, by the create handler %v", group.gv, i, pair.fastAdmit.dryRun[i], pair.genericAdmit.dryRun[i])
			}
		}
		if len(pair.fastAdmit.mutated) == 0 || len(pair.fastAdmit.validated) == 0 {
			t.Errorf("%s: admission was never asked", group.gv)
		}
	}
}
