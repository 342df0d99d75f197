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
	"strconv"

	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// The wire format of a parameter is its dialect's type: v1alpha1.Parameter, or OpenShift's
// openshift.Parameter (seven members; those only ours has are members it does not know, as
// OpenShift's decoder reads them), their JSON names and the types of their fields (a Bound
// and a Length read themselves). The lean reader reads ours into that type, which the
// conversion (defaults, bounds) makes the internal parameter. OpenShift's it reads straight
// into the internal type, each member into the internal field of its field's name, where
// openshift.ToInternal would copy it (which openshift.ToInternalWithParameters then leaves
// out): the parameters were a fifth of the bytes processing an OpenShift template allocated,
// read once and copied once. Which member goes to which field is generated from the wire
// type (zz_generated.parameter_reader.go, by hack/parameter-reader), one case per member,
// each read as encoding/json reads its field's type: text and flags, most of what parameters
// hold, in place; a bound or a length by its own UnmarshalJSON; an enum as a []string;
// anything else (items, properties) by the API's decoder on that member's bytes. So no list
// of a parameter's members is written here, and FuzzLean checks the reader against the
// decoders (and OpenShift's against ToInternal of what its decoder reads).

// parameterReader reads one member of a parameter into a P (a generated member switch).
type parameterReader[P any] func(r *leanReader, p *P, name []byte)

var (
	stencilParameter   parameterReader[v1alpha1.Parameter]  = (*leanReader).parameterMember
	openShiftParameter parameterReader[templates.Parameter] = (*leanReader).openShiftParameterMember
)

// leanParametersWarned is the strict lean reader of parameters, in the dialect member reads,
// that reads on past a member a parameter does not have (a misspelled "requred" is the usual one) and
// returns what the API's strict decoder says of each, in its words and order, instead of
// leaving the array to that decoder: a large template with one misspelled member would
// otherwise be decoded by reflection. Anything else a strict decoder has to say (a member
// written twice, a word inside items or properties) still makes ok false.
func leanParametersWarned[P any](data []byte, member parameterReader[P]) (params []P, warnings []error, ok bool) {
	r := &leanReader{b: data, strict: true}
	r.unknown = func(name []byte) {
		// sigs.k8s.io/json keeps the first 100 of a decode's words.
		if len(warnings) < maxStrictErrors {
			warnings = append(warnings, unknownMember("parameters["+strconv.Itoa(r.element)+"]."+string(name)))
		}
	}
	if params, ok = readParameters(r, member); !ok {
		return nil, nil, false
	}
	return params, warnings, true
}

// maxStrictErrors is how many words a strict decode of sigs.k8s.io/json keeps.
const maxStrictErrors = 100

// unknownMember is what sigs.k8s.io/json's strict decoder says of a member the type does not
// have (its strictError of type "unknown field"), at the member's path.
type unknownMember string

func (m unknownMember) Error() string { return "unknown field " + strconv.Quote(string(m)) }

// readParameters reads a parameters array with r, each member of a parameter with member.
func readParameters[P any](r *leanReader, member parameterReader[P]) (params []P, ok bool) {
	data := r.b
	if r.null() {
		r.end()
		return nil, !r.failed
	}
	if !r.next('[') {
		return nil, false
	}
	if r.next(']') {
		r.end()
		return []P{}, !r.failed
	}
	// Sized for the parameters (parameterRoom), the list (224 bytes a parameter, internal or
	// ours) is not grown and copied as it is read.
	params = make([]P, 0, parameterRoom(data))
	for !r.failed {
		var empty P
		params = append(params, empty)
		r.element = len(params) - 1
		p := &params[r.element]
		// null is an empty parameter, as encoding/json reads it.
		r.object(func(name []byte) { member(r, p, name) })
		if r.failed || r.next(']') {
			break
		}
		if !r.next(',') {
			r.fail()
		}
	}
	r.end()
	return params, !r.failed
}

// parameterRoom is how many parameters the list of the array data is made for: its objects
// that follow a [ or a comma, as every parameter does, and open with a name or close at once,
// not a member's object (after a colon) nor a reference (${NAME}). A brace in a string adds
// room only as "[{}" or ",{}" (a quote would be escaped), three bytes a parameter as the
// shortest parameters are: a description of a million braces or "[{" makes room for one, not
// for a million, 224 bytes for each byte of the body, as counting every brace did. Braces are
// found several times faster than a word such as "name", whose quote is in every string.
func parameterRoom(data []byte) int {
	n := 0
	for i := 0; ; i++ {
		k := bytes.IndexByte(data[i:], '{')
		if k < 0 {
			return n
		}
		i += k
		before, after := i-1, i+1
		for before >= 0 && isSpace(data[before]) {
			before--
		}
		for after < len(data) && isSpace(data[after]) {
			after++
		}
		if before >= 0 && (data[before] == '[' || data[before] == ',') && after < len(data) && (data[after] == '"' || data[after] == '}') {
			n++
		}
	}
}

// isSpace reports whether c is JSON's white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// selfReader is a pointer to a type that reads itself from JSON, as Bound and Length do.
type selfReader[T any] interface {
	*T
	json.Unmarshaler
}

// readsItself reads a string or a number into *target with its type's UnmarshalJSON, as
// encoding/json does; null makes *target nil.
func readsItself[T any, PT selfReader[T]](r *leanReader, target **T) {
	if r.null() {
		*target = nil
		return
	}
	var raw []byte
	if r.i < len(r.b) && r.b[r.i] == '"' {
		raw, _ = r.rawString()
	} else {
		raw = r.number()
	}
	if r.failed {
		return
	}
	if *target == nil {
		*target = new(T)
	}
	if err := PT(*target).UnmarshalJSON(raw); err != nil {
		r.fail()
	}
}

// number reads a JSON number and returns its text.
func (r *leanReader) number() []byte {
	start := r.i
	for r.i < len(r.b) && numberByte[r.b[r.i]] {
		r.i++
	}
	if !templates.IsJSONNumber(r.b[start:r.i]) {
		r.fail()
		return nil
	}
	return r.b[start:r.i]
}

// numberByte marks the bytes a JSON number is written with.
var numberByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true,
	'8': true, '9': true, '-': true, '+': true, '.': true, 'e': true, 'E': true}

// stringList reads an array of strings into *target: a null element is "", and null makes
// *target nil. A repeated member, which encoding/json decodes into the slice already there,
// is read by the API's decoder.
func (r *leanReader) stringList(target *[]string) {
	if r.null() {
		*target = nil
		return
	}
	if *target != nil {
		r.typed(target)
		return
	}
	if !r.next('[') {
		r.fail()
		return
	}
	out := []string{}
	for !r.next(']') && !r.failed {
		if len(out) > 0 && !r.next(',') {
			r.fail()
			return
		}
		var s string // "" for null
		r.str(&s)
		out = append(out, s)
	}
	*target = out
}

// typed reads the value at the reader into target with the API's decoder, a strict one in a
// strict reader.
func (r *leanReader) typed(target any) {
	raw := r.value()
	if r.failed {
		return
	}
	if !r.strict {
		if kjson.UnmarshalCaseSensitivePreserveInts(raw, target) != nil {
			r.fail()
		}
		return
	}
	if strictErrs, err := kjson.UnmarshalStrict(raw, target); err != nil || len(strictErrs) > 0 {
		r.fail()
	}
}

// skip passes the value of a member the type does not have, after checking it as the API's
// decoder does; a strict reader fails there.
func (r *leanReader) skip() {
	if r.strict {
		if r.unknown == nil {
			r.fail()
			return
		}
		r.unknown(r.member)
	}
	if raw := r.value(); !r.failed && !json.Valid(raw) {
		r.fail()
	}
}

// value returns the bytes of the value at the reader, a member's value inside a parameter
// inside the array: its nesting counts from there, as the API's decoder counts it.
func (r *leanReader) value() []byte {
	r.space()
	s := scanner{b: r.b, i: r.i}
	if s.skipValue(2) != nil {
		r.fail()
		return nil
	}
	raw := r.b[r.i:s.i]
	r.i = s.i
	return raw
}
