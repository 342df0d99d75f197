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
	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/positions"
)

// TemplateJSON is a template's JSON split at its top level by DecodeTemplate's one scan:
// apiVersion and kind read where they stand, the bytes of each object as they are, the
// parameters and the rest read apart. It is how the API server reads a Template body without
// a second parse to find its kind: the server picks the versioned type from APIVersion and
// Kind (and its defaults), then reads it with ReadStencil or ReadOpenShift, and converts and
// defaults it as its codec would (an OpenShift Template with the parameters read apart, with
// openshift.DecodeWithParameters).
type TemplateJSON struct {
	top *templateBytes
}

// SplitTemplateJSON scans data, one JSON object, at its top level. Its error says what the scan
// found wrong with the top level or the objects array; the objects themselves are checked by
// Compile.
func SplitTemplateJSON(data []byte) (*TemplateJSON, error) {
	top, err := splitTemplate(data)
	if err != nil {
		return nil, err
	}
	return &TemplateJSON{top: top}, nil
}

// SplitTemplateJSONTop is SplitTemplateJSON of the JSON positions.OnlyDocumentStrict or
// YAMLToJSONTop wrote, split where the converter says its members lie instead of scanned
// again; what that cannot split exactly as the scan does is scanned.
func SplitTemplateJSONTop(data []byte, members *positions.Top) (*TemplateJSON, error) {
	if top := splitTop(data, members); top != nil {
		return &TemplateJSON{top: top}, nil
	}
	return SplitTemplateJSON(data)
}

// KindFolded reports whether a member is spelled as apiVersion or kind in other letter cases:
// the API machinery, which finds the kind of a body with encoding/json (it matches member
// names without regard to case), may read another kind than APIVersion and Kind say.
func (t *TemplateJSON) KindFolded() bool { return t.top.foldedKind }

// Repeated reports whether a member the scan takes out of the rest (objects, parameters) is
// written twice: the scan keeps the last, as encoding/json does, without checking the others.
func (t *TemplateJSON) Repeated() bool { return t.top.repeated }

// ObjectNumbersFit reports that the scan read every number of the template's objects and
// found none that may be one Kubernetes cannot read: templates.RawNumberErrors of the objects
// is empty, and a decoder need not walk them again. False when it does not know.
func (t *TemplateJSON) ObjectNumbersFit() bool { return t.top.objectNumbersFit }

// APIVersion is the apiVersion the template is written with, "" when it has none.
func (t *TemplateJSON) APIVersion() string { return t.top.apiVersion }

// Kind is the kind the template is written with, "" when it has none.
func (t *TemplateJSON) Kind() string { return t.top.kind }

// ReadStencil reads the template into our versioned type, as the API's JSON decoder
// (sigs.k8s.io/json, case-sensitive, integers kept) reads it, without defaulting it; its
// objects share the scanned bytes. ok is false when the lean readers cannot read it exactly,
// or, when strict, when a strict decoder would have something to say (a member repeated or
// unknown outside the objects): the API's own decoder then reads the bytes and says it.
func (t *TemplateJSON) ReadStencil(strict bool) (*v1alpha1.Template, bool) {
	versioned, warnings, ok := t.top.stencil(strict)
	return versioned, ok && len(warnings) == 0
}

// ReadOpenShift is ReadStencil for an OpenShift Template (template.openshift.io/v1 or the
// legacy v1), whose parameters it reads straight into the internal type: params, as
// openshift.ToInternal would copy them from in.Parameters, which is left nil. They are the
// parameters of openshift.ToInternalWithParameters and openshift.DecodeWithParameters, which
// convert in without copying them.
func (t *TemplateJSON) ReadOpenShift(strict bool) (in *openshift.Template, params []templates.Parameter, ok bool) {
	in, params, warnings, ok := t.top.openShift(strict)
	return in, params, ok && len(warnings) == 0
}

// ReadStencilStrict reads the template as a strict decoder does: the template, and what the
// decoder would say of it (unknown and repeated members inside the parameters or inside the
// rest, at their paths, in the decoder's words). A template with nothing to say, or only
// members its parameters do not have (a misspelled "requred"), is read by the strict lean
// readers, which word those; one with more is read by the lean readers that skip what the
// type lacks, and only its small parts (the rest and the parameters, never the objects) go
// through the strict decoder for its words. ok is false when that cannot be done exactly
// (a member the scan takes out, objects or parameters, written twice; something to say in
// both parts, whose order in the decoder's list depends on where the parameters stand).
func (t *TemplateJSON) ReadStencilStrict() (*v1alpha1.Template, []error, bool) {
	if versioned, warnings, ok := t.top.stencil(true); ok {
		return versioned, warnings, true
	}
	versioned, _, ok := t.top.stencil(false)
	if !ok {
		return nil, nil, false
	}
	var params struct {
		Parameters []v1alpha1.Parameter `json:"parameters"`
	}
	errs, ok := t.top.strictErrors(&v1alpha1.Template{}, &params)
	if !ok {
		return nil, nil, false
	}
	return versioned, errs, true
}

// ReadOpenShiftStrict is ReadStencilStrict for an OpenShift Template, whose parameters it
// reads as ReadOpenShift does.
func (t *TemplateJSON) ReadOpenShiftStrict() (*openshift.Template, []templates.Parameter, []error, bool) {
	if in, params, warnings, ok := t.top.openShift(true); ok {
		return in, params, warnings, true
	}
	in, params, _, ok := t.top.openShift(false)
	if !ok {
		return nil, nil, nil, false
	}
	// Only for the decoder's words: what it reads is dropped.
	var wire struct {
		Parameters []openshift.Parameter `json:"parameters"`
	}
	errs, ok := t.top.strictErrors(&openshift.Template{}, &wire)
	if !ok {
		return nil, nil, nil, false
	}
	return in, params, errs, true
}

// stencil reads the template into our versioned type with the lean readers (strict ones when
// strict), leaving the objects as they are and defaults unset; ok is false when the lean
// readers cannot read it exactly, or, when strict, when a strict decoder would find
// something to say (a member repeated or unknown outside the objects) that is not one of
// warnings: the parameters' unknown members, in the strict decoder's words.
func (top *templateBytes) stencil(strict bool) (_ *v1alpha1.Template, warnings []error, ok bool) {
	if strict && top.repeated {
		return nil, nil, false
	}
	params, warnings, ok := leanParametersOf(top, strict, stencilParameter)
	if !ok {
		return nil, nil, false
	}
	versioned := &v1alpha1.Template{}
	if strict {
		if strictErrs, err := kjson.UnmarshalStrict(top.rest, versioned); err != nil || len(strictErrs) > 0 {
			return nil, nil, false
		}
	} else if kjson.UnmarshalCaseSensitivePreserveInts(top.rest, versioned) != nil {
		return nil, nil, false
	}
	versioned.Objects, versioned.Parameters = top.objects, params
	return versioned, warnings, true
}

// openShift is stencil for an OpenShift template, whose parameters it reads into the internal
// type (params) instead of in.Parameters (see ReadOpenShift).
func (top *templateBytes) openShift(strict bool) (_ *openshift.Template, params []templates.Parameter, warnings []error, ok bool) {
	if strict && top.repeated {
		return nil, nil, nil, false
	}
	params, warnings, ok = leanParametersOf(top, strict, openShiftParameter)
	if !ok {
		return nil, nil, nil, false
	}
	in := &openshift.Template{}
	if !leanOpenShift(top.rest, in, strict) {
		*in = openshift.Template{}
		if strict {
			if strictErrs, err := kjson.UnmarshalStrict(top.rest, in); err != nil || len(strictErrs) > 0 {
				return nil, nil, nil, false
			}
		} else if kjson.UnmarshalCaseSensitivePreserveInts(top.rest, in) != nil {
			return nil, nil, nil, false
		}
	}
	in.Objects = top.objects
	return in, params, warnings, true
}

// strictErrors are what a strict decoder of the whole template says of its rest (decoded
// into rest) and of its parameters (decoded into params, a struct of one member, parameters,
// so that the paths read as in the whole template). ok is false when the parts cannot say it
// as the whole would: a member the scan takes out written twice, a part the decoder cannot
// read, or something to say in both parts.
func (top *templateBytes) strictErrors(rest, params any) (errs []error, ok bool) {
	if top.repeated {
		return nil, false
	}
	restErrs, err := kjson.UnmarshalStrict(top.rest, rest)
	if err != nil {
		return nil, false
	}
	if !top.hasParameters {
		return restErrs, true
	}
	wrapped := make([]byte, 0, len(top.parametersJSON)+len(`{"parameters":}`))
	wrapped = append(append(append(wrapped, `{"parameters":`...), top.parametersJSON...), '}')
	paramErrs, err := kjson.UnmarshalStrict(wrapped, params)
	if err != nil || len(restErrs) > 0 && len(paramErrs) > 0 {
		return nil, false
	}
	return append(restErrs, paramErrs...), true
}

// leanParametersOf reads top's parameters with the lean reader of member's dialect; a strict
// one reads on past unknown members and returns the strict decoder's words on them
// (leanParametersWarned).
func leanParametersOf[P any](top *templateBytes, strict bool, member parameterReader[P]) ([]P, []error, bool) {
	switch {
	case !top.hasParameters:
		return nil, nil, true
	case strict:
		return leanParametersWarned(top.parametersJSON, member)
	}
	params, ok := readParameters(&leanReader{b: top.parametersJSON}, member)
	return params, nil, ok
}
