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
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/process/celparams"
	"stencil.dev/stencil/pkg/process/valuecheck"
)

// Execute processes the plan with one request's values. All problems are returned at once.
func (p *Plan) Execute(req Request) (*Result, field.ErrorList) {
	values, errs := p.resolveParameters(&req)
	var celValues *celparams.Params
	if p.cel != nil {
		celValues = p.cel.env.Values(values)
		errs = append(errs, p.checkRules(celValues, values, len(errs) > 0, req.FromSecret)...)
	}
	if len(errs) > 0 {
		// The caller's labels need no values: report their problems now too.
		return nil, append(errs, validateLabels(req.Labels, field.NewPath("labels"))...)
	}
	limit := req.MaxOutputBytes
	if limit <= 0 {
		limit = DefaultMaxOutputBytes
	}
	// The answer carries every value too, generated ones included: they spend from the same
	// budget, or many generators in a small body could answer with tens of megabytes.
	valueBytes := 0
	for _, v := range values {
		valueBytes += len(v)
	}
	if valueBytes > limit && req.Grow != nil {
		limit = req.Grow(valueBytes)
	}
	if valueBytes > limit {
		return nil, field.ErrorList{field.Invalid(field.NewPath("parameters"), "",
			fmt.Sprintf("the parameter values, generated ones included, come to more than %d bytes, the bound of one request", limit)).WithOrigin(OutputLimitOrigin)}
	}
	// Values past the parameters' are the elements of repeated objects, set as each is written.
	x := newExecutor(p)
	defer x.release()
	x.limit, x.valueBytes, x.grow, x.celValues = limit-valueBytes, valueBytes, req.Grow, celValues
	x.pooledList = req.PooledList
	if req.Provenance {
		x.origins = make([]origin, 0, len(p.objects))
	}
	// The values substituted as text are escaped into one buffer, not one allocation each:
	// most need no escape, so their total size (and an eighth for those that do) holds them.
	textBytes := 0
	for i, v := range values {
		if p.usage[i]&usedAsText != 0 {
			textBytes += len(v)
		}
	}
	if textBytes += textBytes / 8; cap(x.texts) < textBytes {
		x.texts = make([]byte, 0, textBytes)
	}
	for i, v := range values {
		x.values[i] = prepareValue(v, p.params[i].Type, p.usage[i], &x.texts)
	}
	var labelWarnings []string
	if p.fixedLabels != nil && len(req.Labels) == 0 {
		x.useLabels(p.fixedLabels)
	} else {
		labels, warnings, errs := p.objectLabels(values, req.Labels)
		if len(errs) > 0 {
			return nil, errs
		}
		labelWarnings = warnings
		x.useLabels(newLabelSet(labels))
	}

	message, ok := renderText(p.message, values, x.limit)
	if !ok && x.raise(textSize(p.message, values)) {
		message, ok = renderText(p.message, values, x.limit)
	}
	if !ok {
		return nil, field.ErrorList{tooLong(field.NewPath("message"), x.limit)}
	}
	result := &Result{
		Message:  message,
		Warnings: append(append([]string(nil), p.warnings...), labelWarnings...),
	}
	result.Parameters, result.pooledParameters = takeParameters(len(p.params), req.PooledList)
	if p.redeclared {
		result.Warnings = append(result.Warnings, p.droppedValueWarnings(&req)...)
	}
	for i := range p.params {
		result.Parameters[i] = *p.params[i].Parameter
		result.Parameters[i].Value = values[i]
	}
	result.Objects = x.writeList(p.objects)
	result.origins, result.list, result.bounds, result.pooledList = x.origins, x.list, x.bounds, x.listHolder
	result.Generators = x.writeConfigs(p.generators, "generators")
	result.Transformers = x.writeConfigs(p.transformers, "transformers")
	result.TransformerOverrides = x.writeConfigs(p.transformerOverrides, "transformerOverrides")
	if len(x.errs) > 0 {
		return nil, x.errs
	}
	return result, nil
}

// paramValue is a parameter's value prepared for the forms the plan uses it in.
type paramValue struct {
	raw string
	// text is the value escaped for the inside of a JSON string.
	text []byte
	// json is the value as a JSON value: itself when it is JSON, else a JSON string.
	json []byte
	null bool
}

func prepareValue(v string, t templates.ParameterType, usage paramUsage, texts *[]byte) paramValue {
	pv := paramValue{raw: v}
	if usage&usedAsText != 0 {
		// Appended to texts, which later values extend but never change: a value's text
		// stays where it was written, even when texts grows into new memory.
		at := len(*texts)
		*texts = jsonbytes.AppendEscaped(*texts, v)
		pv.text = (*texts)[at:len(*texts):len(*texts)]
	}
	if usage&usedAsJSON != 0 {
		if t == templates.ParameterTypeInt && v != "" && valuecheck.OfType(t, v) == nil {
			v = canonicalInteger(v)
		}
		// A value with a number Kubernetes cannot read is not JSON to Kubernetes: it stays a
		// string, as OpenShift's processor leaves a value its JSON reader refuses.
		if compact, err := jsonbytes.Compact([]byte(v)); err == nil && len(templates.NumberErrors(compact, nil)) == 0 {
			pv.json, pv.null = compact, string(compact) == "null"
		} else {
			pv.json = jsonbytes.AppendQuoted(nil, v)
		}
	}
	return pv
}

// DefaultMaxOutputBytes bounds the output of one Execute when the request sets no limit. A
// template may refer to a parameter many times, so a small request could otherwise ask for
// gigabytes: the size is the number of references times the value's length.
const DefaultMaxOutputBytes = 64 << 20

// maxLabelBytes bounds a substituted label key or value; valid ones are far shorter.
const maxLabelBytes = 1024

// renderText substitutes values into a plain-text template; ok is false when the text would
// be longer than limit, and then nothing is built.
func renderText(parts []textPart, values []string, limit int) (string, bool) {
	size := 0
	for _, p := range parts {
		if p.param < 0 {
			size += len(p.literal)
		} else {
			size += len(values[p.param])
		}
		if size > limit {
			return "", false
		}
	}
	var b strings.Builder
	b.Grow(size)
	for _, p := range parts {
		if p.param < 0 {
			b.WriteString(p.literal)
		} else {
			b.WriteString(values[p.param])
		}
	}
	return b.String(), true
}

// textSize is the size of a plain-text template once substituted.
func textSize(parts []textPart, values []string) int {
	size := 0
	for _, p := range parts {
		if p.param < 0 {
			size += len(p.literal)
		} else {
			size += len(values[p.param])
		}
	}
	return size
}

// raise makes room for an output of size bytes (values apart), asking the request's Grow;
// false when there is none: no Grow, or Grow stopped.
func (x *executor) raise(size int) bool {
	if size <= x.limit {
		return true
	}
	if x.grow == nil {
		return false
	}
	x.limit = x.grow(size+x.valueBytes) - x.valueBytes
	return size <= x.limit
}

// OutputLimitOrigin is the Origin of the problems Execute reports when the output would pass
// Request.MaxOutputBytes, so that a caller that tried a smaller bound than it may use can tell
// them from the template's own problems and try again with a larger one.
const OutputLimitOrigin = "maxOutputBytes"

// tooLong reports output beyond the limit at path.
func tooLong(path *field.Path, limit int) *field.Error {
	return field.Invalid(path, "", fmt.Sprintf("processing would produce more than %d bytes here: "+
		"the parameter values are too long for the number of places the template uses them", limit)).WithOrigin(OutputLimitOrigin)
}

// objectLabels returns the template's labels, substituted, with the caller's merged over them,
// after checking they are valid labels. The template's labels that are not, in the OpenShift
// dialect, are warnings.
func (p *Plan) objectLabels(values []string, callerLabels map[string]string) (labels map[string]string, warnings []string, errs field.ErrorList) {
	if len(p.labels) == 0 && len(callerLabels) == 0 {
		return nil, nil, nil
	}
	labels = make(map[string]string, len(p.labels)+len(callerLabels))
	var substituted map[string]string
	for _, l := range p.labels {
		k, kOK := renderText(l.key, values, maxLabelBytes)
		v, vOK := renderText(l.value, values, maxLabelBytes)
		if !kOK || !vOK {
			errs = append(errs, field.Invalid(p.labelsPath, "", fmt.Sprintf("a label would be longer than %d bytes once substituted", maxLabelBytes)))
			continue
		}
		labels[k] = v
		if l.substituted {
			if substituted == nil {
				substituted = map[string]string{}
			}
			substituted[k] = v
		}
	}
	if p.dialect == OpenShift {
		keys := make([]string, 0, len(substituted))
		for k := range substituted {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if msg := invalidLabel(k, substituted[k], p.labelsPath); msg != "" {
				warnings = append(warnings, p.labelsPath.String()+": "+msg)
			}
		}
	} else {
		errs = append(errs, validateLabels(substituted, p.labelsPath)...)
	}
	for k, v := range callerLabels {
		labels[k] = v
	}
	if len(callerLabels) > 0 {
		errs = append(errs, validateLabels(callerLabels, field.NewPath("labels"))...)
	}
	return labels, warnings, errs
}

// executor writes one request's output.
type executor struct {
	plan   *Plan
	values []paramValue
	// texts holds the values escaped for the inside of a JSON string (paramValue.text).
	texts []byte
	buf   []byte
	errs  field.ErrorList
	// list and bounds are the List writeList wrote and its objects' offsets (Result.ListOf).
	list   []byte
	bounds []int

	// labels are the object labels as `"key":"value"` members, sorted by key; labelIndex finds
	// them by key; labelObject is all of them as a JSON object.
	labels      []labelMember
	labelIndex  map[string]int
	labelObject []byte
	// used marks the labels a label map already had, while it is written.
	used []bool
	// frames are the objects being written whose ops decide on their members.
	frames []frame
	// limit bounds the output (the values apart, valueBytes), raised by grow when it is set;
	// overflow says run stopped at it.
	limit, valueBytes int
	grow              func(size int) int
	overflow          bool
	// celValues are the parameters as CEL sees them, for conditional and repeated objects;
	// results hold what the objects' expressions gave, by celProgram.id.
	celValues *celparams.Params
	results   []evalResult
	// origins, when provenance is asked, get the origin of each object written; element is
	// the for-each element being written, -1 outside one.
	origins []origin
	element int
	// pooledList takes the List's buffer from the pool (Request.PooledList); listHolder
	// holds it for the Result to give back.
	pooledList bool
	listHolder *[]byte
}

// writeList writes the objects inside a v1 List and returns each object's bytes: none for a
// conditional object whose condition is false, one per element for a repeated one.
func (x *executor) writeList(objects []compiledObject) []json.RawMessage {
	size := x.plan.outputSize + x.plan.outputSize/4 + len(listPrefix) + len(listSuffix) + 256
	if x.pooledList {
		// The buffer may grow past its room as the objects are written: the List given
		// back is whatever the buffer is at the end (ReleaseList).
		x.listHolder = takeList(size)
		x.buf = *x.listHolder
	} else {
		x.buf = make([]byte, 0, size)
	}
	x.buf = append(x.buf, listPrefix...)
	bounds := make([]int, 0, 2*len(objects))
	for i := range objects {
		o := &objects[i]
		written := false
		if o.expr == nil {
			bounds, written = x.writeObject(o, bounds)
		} else {
			bounds, written = x.writeExpanded(o, bounds)
		}
		if !written {
			return nil
		}
	}
	x.buf = append(x.buf, listSuffix...)
	x.list, x.bounds = x.buf, bounds
	out := make([]json.RawMessage, len(bounds)/2)
	for i := range out {
		start, end := bounds[2*i], bounds[2*i+1]
		out[i] = x.buf[start:end:end]
	}
	return out
}

// writeObject writes one object into the List and adds its bounds; false when the output
// grew past its limit.
func (x *executor) writeObject(o *compiledObject, bounds []int) ([]int, bool) {
	if len(bounds) > 0 {
		x.buf = append(x.buf, ',')
	}
	start := len(x.buf)
	x.run(o.from, o.to)
	if x.overflow {
		x.errs = append(x.errs, tooLong(o.at.path(), x.limit))
		return bounds, false
	}
	if o.slow {
		x.reshape(start, o)
	}
	if x.origins != nil {
		x.origins = append(x.origins, x.originOf(o))
	}
	return append(bounds, start, len(x.buf)), true
}

// writeConfigs writes the generator or transformer configs of the field list into a buffer
// of their own.
func (x *executor) writeConfigs(configs []compiledObject, list string) []json.RawMessage {
	if len(configs) == 0 {
		return nil
	}
	objects := x.buf
	x.buf = nil
	out := make([]json.RawMessage, len(configs))
	for i := range configs {
		start := len(x.buf)
		x.run(configs[i].from, configs[i].to)
		if x.overflow {
			x.errs = append(x.errs, tooLong(field.NewPath(list).Index(i), x.limit))
			break
		}
		out[i] = x.buf[start:len(x.buf):len(x.buf)]
	}
	x.buf = objects
	return out
}
