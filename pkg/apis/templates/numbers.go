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

package templates

import (
	"bytes"
	"encoding/json"
	"strconv"

	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// NumberRangeDetail explains the numbers Kubernetes refuses. Its JSON readers (the API server's
// for custom resources, structured-merge-diff for managed fields, kubectl) hold a number as an
// int64 or a float64, so a number beyond ±1.8e308 cannot be read by any of them, even though
// JSON's grammar allows it.
const NumberRangeDetail = "must be a number Kubernetes can read: an integer or a floating-point number within ±1.8e308"

// maxNumberErrors bounds the problems reported for one value or one template: a 3 MB body of
// "1e400," would otherwise answer with half a million causes.
const maxNumberErrors = 8

// maxShownNumber bounds how much of a long number a message repeats.
const maxShownNumber = 40

// NumberFits reports whether the JSON number n is one Kubernetes can read (see
// NumberRangeDetail). Only overflow counts: a number too small for a float64 reads as zero, as
// everywhere else in Kubernetes.
func NumberFits[T ~string | ~[]byte](n T) bool {
	// Without an exponent, a number of at most 308 digits is below 1e308: the common case
	// needs no parsing.
	if len(n) <= 308 {
		exponent := false
		for i := 0; i < len(n); i++ {
			exponent = exponent || n[i] == 'e' || n[i] == 'E'
		}
		if !exponent {
			return true
		}
	}
	_, err := strconv.ParseFloat(string(n), 64)
	return err == nil
}

// NumberErrors reports the numbers in the JSON value raw that Kubernetes cannot read, each at
// its path below fldPath (at most a few per value). Bytes that are not valid JSON yield no
// errors here: the JSON reader reports those.
func NumberErrors(raw []byte, fldPath *field.Path) field.ErrorList {
	if !mayHoldUnfitNumber(raw) {
		return nil
	}
	return numberErrors(raw, fldPath)
}

// numberErrors is NumberErrors' walk of raw, without its pre-check.
func numberErrors(raw []byte, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	var stack []numberFrame
	for i := 0; i < len(raw) && len(errs) < maxNumberErrors; {
		c := raw[i]
		switch {
		case c == '"':
			end := skipJSONString(raw, i)
			if end < 0 {
				return errs
			}
			if n := len(stack); n > 0 && stack[n-1].expectKey {
				stack[n-1].key, stack[n-1].expectKey = raw[i:end], false
			}
			i = end
		case c == '{' || c == '[':
			stack = append(stack, numberFrame{array: c == '[', expectKey: c == '{'})
			i++
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		case c == ',':
			if n := len(stack); n > 0 {
				stack[n-1].index++
				stack[n-1].expectKey = !stack[n-1].array
			}
			i++
		case c == '-' || c >= '0' && c <= '9':
			end := i + 1
			for end < len(raw) && isNumberByte(raw[end]) {
				end++
			}
			if !NumberFits(raw[i:end]) {
				errs = append(errs, field.Invalid(numberPath(fldPath, stack), shortNumber(raw[i:end]), NumberRangeDetail))
			}
			i = end
		default:
			i++
		}
	}
	return errs
}

// RawList is one list of raw objects of a Template, named by its field.
type RawList struct {
	// Name is the list's field name, the root of the errors' paths.
	Name string
	// Raws are the list's objects.
	Raws []runtime.RawExtension
}

// RawNumberErrors reports the numbers Kubernetes cannot read in a Template's raw lists
// (objects, generators, transformers, transformerOverrides), with their field paths; a few at
// most, as NumberErrors.
func RawNumberErrors(lists ...RawList) field.ErrorList {
	var errs field.ErrorList
	for _, list := range lists {
		for i := range list.Raws {
			if len(errs) >= maxNumberErrors {
				return errs
			}
			if raw := list.Raws[i].Raw; mayHoldUnfitNumber(raw) {
				errs = append(errs, NumberErrors(raw, field.NewPath(list.Name).Index(i))...)
			}
		}
	}
	return errs
}

// decodeContext is the type of ObjectNumbersRead: no other package's context equals it.
type decodeContext string

// ObjectNumbersRead is the context (conversion.Meta's) a decoder passes to the scheme's
// conversion of a Template when it has read every number of the template's objects, while it
// found where each object ends, and found none that may be one Kubernetes cannot read: the
// conversion need not walk the objects again (their RawNumberErrors would be empty).
const ObjectNumbersRead decodeContext = "objects' numbers read"

// ObjectNumbersChecked reports whether s is the scope of a conversion whose decoder passed
// ObjectNumbersRead.
func ObjectNumbersChecked(s conversion.Scope) bool {
	if s == nil {
		return false
	}
	meta := s.Meta()
	return meta != nil && meta.Context == ObjectNumbersRead
}

// mayHoldUnfitNumber reports whether raw may hold a number NumberFits refuses, which has an
// exponent or more than 308 digits. It looks at bytes, not tokens: a string such as "sha:1e5"
// answers true as well, and NumberErrors' walk decides. Most values have neither, and this
// costs a few percent of that walk: an exponent is an "e" or "E" found by bytes.IndexByte
// where a number's could be (mayBeExponent), and a run of over 308 digits covers one of every
// 300 bytes.
func mayHoldUnfitNumber(raw []byte) bool {
	for _, e := range [...]byte{'e', 'E'} {
		for i := 0; ; i++ {
			j := bytes.IndexByte(raw[i:], e)
			if j < 0 {
				break
			}
			// Most e's follow a letter: that is looked at here, without a call.
			if i += j; i > 0 && raw[i-1]-'0' <= 9 && mayBeExponent(raw, i) {
				return true
			}
		}
	}
	for i := 0; i < len(raw); i += 300 {
		if !isDigitOrPoint(raw[i]) {
			continue
		}
		start, end := i, i
		for start > 0 && isDigitOrPoint(raw[start-1]) {
			start--
		}
		for end < len(raw) && isDigitOrPoint(raw[end]) {
			end++
		}
		if end-start > 308 {
			return true
		}
		i = end // on past the run, so that no run is walked twice
	}
	return false
}

// mayBeExponent reports whether the "e" at raw[i] may be a JSON number's exponent, which
// follows a digit and comes before a digit or a sign, in a number that follows a delimiter, a
// space or its minus: never a letter, which only a string puts there. Most of the e's of a
// template are in words ("platform.events") and in what encoding/json writes of < and >
// ("\u003e"), and would otherwise send the whole value to NumberErrors' walk.
func mayBeExponent(raw []byte, i int) bool {
	if i == 0 || raw[i-1] < '0' || raw[i-1] > '9' {
		return false
	}
	if next := i + 1; next < len(raw) && raw[next] != '+' && raw[next] != '-' && (raw[next] < '0' || raw[next] > '9') {
		return false
	}
	k := i - 1
	for k >= 0 && isDigitOrPoint(raw[k]) {
		k--
	}
	return k < 0 || !isASCIILetter(raw[k])
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigitOrPoint(c byte) bool { return c >= '0' && c <= '9' || c == '.' }

// numberFrame is one open object or array around the number being read.
type numberFrame struct {
	array     bool
	index     int
	key       []byte
	expectKey bool
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// skipJSONString returns the offset after the string starting at raw[i], or -1 when it does
// not end.
func skipJSONString(raw []byte, i int) int {
	for j := i + 1; j < len(raw); {
		q := bytes.IndexByte(raw[j:], '"')
		if q < 0 {
			return -1
		}
		q += j
		escapes := 0
		for k := q - 1; k > i && raw[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return -1
}

// numberPath is the field path of the value the stack points at; it is built only for errors.
func numberPath(fldPath *field.Path, stack []numberFrame) *field.Path {
	p := fldPath
	for _, f := range stack {
		if f.array {
			p = p.Index(f.index)
			continue
		}
		var name string
		if err := json.Unmarshal(f.key, &name); err != nil {
			name = string(f.key)
		}
		if isPlainName(name) {
			p = p.Child(name)
		} else {
			p = p.Key(name)
		}
	}
	return p
}

// isPlainName reports whether a member name reads well as .name in a path, rather than [name].
func isPlainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

func shortNumber(n []byte) string {
	if len(n) <= maxShownNumber {
		return string(n)
	}
	return string(n[:maxShownNumber]) + "... (" + strconv.Itoa(len(n)) + " characters)"
}
