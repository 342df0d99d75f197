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

package process

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/positions"
)

// DecodeTemplate reads a Template from JSON or YAML: ours (templates.stencil.dev/v1alpha1), an
// OpenShift template.openshift.io/v1 Template, or the legacy "apiVersion: v1, kind: Template".
// The Template's TypeMeta keeps the apiVersion it was written with.
//
// It is the fast path of a template given in a request: YAML is converted to JSON once (by
// pkg/positions, which gives what sigs.k8s.io/yaml gives, at a fraction of its cost), then
// one scan of the top-level members finds apiVersion and kind and the bytes of each object,
// which become the template's objects as they are (Compile validates them). Only the small
// rest of the template (metadata, parameters, labels, transformers) goes through a typed
// decoder. The objects share data's memory: data must not change while the template is used.
func DecodeTemplate(data []byte) (t *templates.Template, d Dialect, err error) {
	// No input may panic this function.
	defer func() {
		if r := recover(); r != nil {
			t, d, err = nil, Stencil, fmt.Errorf("cannot read the template: %v", r)
		}
	}()
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, Stencil, fmt.Errorf("the input is empty")
	}
	var top *templateBytes
	if trimmed[0] != '{' {
		// JSON input keeps its exact bytes (and big numbers); YAML is converted as kubectl does,
		// and the converter says where the top-level members lie.
		var members *positions.Top
		if trimmed, members, err = positions.YAMLToJSONTop(data); err != nil {
			return nil, Stencil, fmt.Errorf("cannot read the template as YAML: %v", err)
		}
		top = splitTop(trimmed, members)
	}
	if top == nil {
		if top, err = splitTemplate(trimmed); err != nil {
			return nil, Stencil, fmt.Errorf("cannot read the template: %w", err)
		}
	}
	if top.kind != "Template" {
		return nil, Stencil, fmt.Errorf("not a Template: the input is kind %q, apiVersion %q", top.kind, top.apiVersion)
	}
	switch top.apiVersion {
	case v1alpha1.SchemeGroupVersion.String():
		t, err = decodeStencil(top)
	case openshift.SchemeGroupVersion.String(), openshift.LegacyGroupVersion.String():
		t, err = decodeOpenShift(top)
	default:
		return nil, Stencil, fmt.Errorf("unsupported Template apiVersion %q: use %s, %s or %s",
			top.apiVersion, v1alpha1.SchemeGroupVersion, openshift.SchemeGroupVersion, openshift.LegacyGroupVersion)
	}
	if err != nil {
		return nil, Stencil, err
	}
	t.APIVersion, t.Kind = top.apiVersion, top.kind
	// Either form may hold either dialect (v1alpha1's dialect, OpenShift's annotation of
	// Stencil's fields).
	if t.OpenShift {
		return t, OpenShift, nil
	}
	return t, Stencil, nil
}

func decodeStencil(top *templateBytes) (*templates.Template, error) {
	versioned, _, ok := top.stencil(false)
	if !ok {
		params, err := topParameters[v1alpha1.Parameter](top)
		if err != nil {
			return nil, fmt.Errorf("cannot read the template: %w", err)
		}
		versioned = &v1alpha1.Template{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(top.rest, versioned); err != nil {
			return nil, fmt.Errorf("cannot read the template: %w", wordTypeErrors(top.rest, versioned, err))
		}
		versioned.Objects, versioned.Parameters = top.objects, params
	}
	if top.hasParameters && versioned.Parameters == nil {
		// A member present, even null, gives a list that is not nil, as DecodeTemplate's
		// results always had.
		versioned.Parameters = []v1alpha1.Parameter{}
	}
	v1alpha1.SetObjectDefaults_Template(versioned)
	t := &templates.Template{}
	if err := v1alpha1.Convert_v1alpha1_Template_To_templates_Template(versioned, t, nil); err != nil {
		return nil, fmt.Errorf("cannot convert the template: %v", err)
	}
	return t, nil
}

func decodeOpenShift(top *templateBytes) (*templates.Template, error) {
	// The lean reader reads the parameters into the internal type, which the conversion
	// takes as they are (the API's decoder reads them into OpenShift's, which it copies).
	in, params, _, ok := top.openShift(false)
	if !ok {
		return decodeOpenShiftTyped(top)
	}
	if top.hasParameters && params == nil {
		params = []templates.Parameter{} // as for ours
	}
	t := &templates.Template{}
	if err := openshift.ToInternalWithParameters(in, params, t); err != nil {
		return nil, fmt.Errorf("cannot read the OpenShift template: %v", err)
	}
	return t, nil
}

// decodeOpenShiftTyped is decodeOpenShift with the API's typed decoders, which word what is
// wrong: what the lean path reads, it reads the same (FuzzLean).
func decodeOpenShiftTyped(top *templateBytes) (*templates.Template, error) {
	params, err := topParameters[openshift.Parameter](top)
	if err != nil {
		return nil, fmt.Errorf("cannot read the template: %w", err)
	}
	in := &openshift.Template{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(top.rest, in); err != nil {
		return nil, fmt.Errorf("cannot read the OpenShift template: %w", wordTypeErrors(top.rest, in, err))
	}
	in.Objects, in.Parameters = top.objects, params
	if top.hasParameters && in.Parameters == nil {
		in.Parameters = []openshift.Parameter{}
	}
	t := &templates.Template{}
	if err := openshift.ToInternal(in, t); err != nil {
		return nil, fmt.Errorf("cannot read the OpenShift template: %v", err)
	}
	return t, nil
}

// wordTypeErrors replaces the decoder's err, worded in Go types, with where data does not
// fit target's JSON types, worded about the template (templates.JSONTypeErrors); err stays
// when data has no such misfit (invalid JSON, which its message locates).
func wordTypeErrors(data []byte, target any, err error) error {
	errs := templates.JSONTypeErrors(data, reflect.TypeOf(target).Elem(), nil)
	if len(errs) == 0 {
		return err
	}
	return errs.ToAggregate()
}

// topParameters reads top's parameters with decodeParameters.
func topParameters[P any](top *templateBytes) ([]P, error) {
	if !top.hasParameters {
		return nil, nil
	}
	return decodeParameters[P](top.parametersJSON)
}

// decodeParameters reads a template's parameters array, in the wire format of a parameter of
// its dialect (v1alpha1.Parameter, openshift.Parameter), with the API's own typed decoder,
// which also words the errors. Members the type does not know are skipped, as a non-strict
// decoder does. (The lean reader, lean_parameters.go, reads the usual shapes first.)
func decodeParameters[P any](data []byte) ([]P, error) {
	var params []P
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &params); err != nil {
		// Every member of the wrong JSON type at once, at its path, when that is what is wrong.
		if errs := templates.JSONTypeErrors(data, reflect.TypeOf(params), field.NewPath("parameters")); len(errs) > 0 {
			return nil, errs.ToAggregate()
		}
		return nil, fmt.Errorf("parameters: %v", err)
	}
	return params, nil
}

// templateBytes is a template split at its top level.
type templateBytes struct {
	apiVersion, kind string
	// objects are the bytes of each element of "objects", not yet validated.
	objects []runtime.RawExtension
	// parametersJSON is the value of the parameters member, read apart from the rest (see
	// leanParameters); hasParameters says the template has the member.
	parametersJSON []byte
	hasParameters  bool
	// hasObjects says the template has the objects member.
	hasObjects bool
	// repeated says a member the scan takes out of the rest (objects, parameters) is written
	// twice: the last is read, as by encoding/json, and a strict decoder has a word to say.
	repeated bool
	// foldedKind says a member is spelled as apiVersion or kind in other cases ("Kind"):
	// the API machinery finds the kind of a body with encoding/json, which reads those.
	foldedKind bool
	// objectNumbersFit says the scan read every number of the objects and none may be one
	// Kubernetes cannot read (see scanner.unfitNumber). False when unknown: the objects were
	// split by another reader.
	objectNumbersFit bool

	// rest is the template as a JSON object without its objects and parameters, written
	// once its members are known (closeRest), at its size: grown member by member, it
	// allocated twice or three times its bytes. restMembers are those members, name and value;
	// restSpace holds the usual few.
	rest        []byte
	restMembers [][2][]byte
	restSpace   [8][2][]byte
}

// maxDepth bounds the nesting the scan follows, as encoding/json does.
const maxDepth = 10000

// splitTemplate scans the members of the JSON object data once. It checks the syntax of the
// top level and of the objects array; what it hands on is checked by whoever reads it.
func splitTemplate(data []byte) (*templateBytes, error) {
	s := scanner{b: data}
	out := &templateBytes{}
	s.space()
	if !s.consume('{') {
		return nil, s.errorf("a template must be a JSON object")
	}
	for first := true; ; first = false {
		s.space()
		if s.consume('}') {
			break
		}
		if !first && !s.consume(',') {
			return nil, s.errorf("expected , or }")
		}
		s.space()
		keyAt := s.i
		if err := s.skipString(); err != nil {
			return nil, err
		}
		key := s.b[keyAt:s.i]
		name := key
		if bytes.IndexByte(key, '\\') >= 0 {
			// An escaped spelling of a member name is the same member, as for any decoder; the
			// rest keeps the spelling, for its decoder to read as it reads any.
			content, err := jsontext.AppendUnquote(nil, key)
			if err != nil {
				return nil, s.errorf("invalid member name %s: %v", key, err)
			}
			name = jsonbytes.AppendQuoted(nil, content)
		}
		s.space()
		if !s.consume(':') {
			return nil, s.errorf("expected :")
		}
		s.space()
		valueAt := s.i
		if string(name) == `"objects"` {
			s.unfitNumber = false
			objects, err := s.objects()
			if err != nil {
				return nil, err
			}
			out.setObjects(objects)
			out.objectNumbersFit = !s.unfitNumber
			continue
		}
		if err := s.skipValue(0); err != nil {
			return nil, err
		}
		if err := out.member(key, name, s.b[valueAt:s.i]); err != nil {
			return nil, err
		}
	}
	s.space()
	if s.i != len(s.b) {
		return nil, s.errorf("unexpected data after the template")
	}
	out.closeRest()
	return out, nil
}

// plainQuoted returns the content of value when it is a quoted string of printable ASCII
// without an escape, which encoding/json reads as it stands (the usual apiVersion and kind:
// an Unmarshal costs more than the rest of a small template's split).
func plainQuoted(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return "", false
	}
	content := value[1 : len(value)-1]
	for _, c := range content {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(content), true
}

// closeRest writes rest from the members member took.
func (out *templateBytes) closeRest() {
	size := 2
	for _, m := range out.restMembers {
		size += len(m[0]) + len(m[1]) + 2
	}
	out.rest = make([]byte, 0, size)
	out.rest = append(out.rest, '{')
	for i, m := range out.restMembers {
		if i > 0 {
			out.rest = append(out.rest, ',')
		}
		out.rest = append(out.rest, m[0]...)
		out.rest = append(out.rest, ':')
		out.rest = append(out.rest, m[1]...)
	}
	out.rest = append(out.rest, '}')
	out.restMembers, out.restSpace = nil, [8][2][]byte{}
}

// setObjects takes the elements of the objects member.
func (out *templateBytes) setObjects(objects []runtime.RawExtension) {
	out.repeated = out.repeated || out.hasObjects
	out.objects, out.hasObjects = objects, true
}

// member takes a top-level member other than objects: key is its name as written, name the
// same unescaped and quoted again, value its bytes.
func (out *templateBytes) member(key, name, value []byte) error {
	switch string(name) {
	case `"parameters"`:
		out.repeated = out.repeated || out.hasParameters
		out.parametersJSON, out.hasParameters = value, true
		return nil
	case `"apiVersion"`, `"kind"`:
		v, plain := plainQuoted(value)
		if !plain {
			if err := json.Unmarshal(value, &v); err != nil {
				return fmt.Errorf("%s must be a string", jsonbytes.StringContent(name))
			}
		}
		if string(name) == `"kind"` {
			out.kind = v
		} else {
			out.apiVersion = v
		}
	default:
		if content := name[1 : len(name)-1]; bytes.EqualFold(content, []byte("kind")) || bytes.EqualFold(content, []byte("apiVersion")) {
			// encoding/json, which the API machinery finds a body's kind with, matches
			// member names without regard to case.
			out.foldedKind = true
		}
	}
	if out.restMembers == nil {
		out.restMembers = out.restSpace[:0]
	}
	out.restMembers = append(out.restMembers, [2][]byte{key, value})
	return nil
}
