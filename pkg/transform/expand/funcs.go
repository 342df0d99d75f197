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

package expand

// The functions templates may call: text/template's defaults, reimplemented or wrapped so
// that every byte they build or compare is charged to the expander's budget, and index made
// strict about missing keys.

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"
)

// expandFuncs is the function map of one expansion: the defaults of text/template, bound to
// e's budget, plus the step function the instrumentation calls.
func (e *expander) expandFuncs() template.FuncMap {
	return template.FuncMap{
		expandStepFunc: e.step,
		"index":        e.index,
		"print":        e.print,
		"printf":       e.printf,
		"println":      e.println,
		"html":         e.escaper(template.HTMLEscaper),
		"js":           e.escaper(template.JSEscaper),
		"urlquery":     e.escaper(template.URLQueryEscaper),
		"eq":           e.eq,
		"ne":           func(a, b reflect.Value) (bool, error) { eq, err := e.eq(a, b); return !eq, err },
		"lt":           func(a, b reflect.Value) (bool, error) { lt, _, err := e.compare(a, b); return lt, err },
		"le":           func(a, b reflect.Value) (bool, error) { lt, eq, err := e.compare(a, b); return lt || eq, err },
		"gt":           func(a, b reflect.Value) (bool, error) { lt, eq, err := e.compare(a, b); return !lt && !eq, err },
		"ge":           func(a, b reflect.Value) (bool, error) { lt, _, err := e.compare(a, b); return !lt, err },
	}
}

// index is text/template's index, except that a missing map key is an error, as
// missingkey=error makes {{ .key }} (KubeStellar returns "" for {{ index . "nope" }}).
func (e *expander) index(item reflect.Value, keys ...reflect.Value) (reflect.Value, error) {
	item = expandIndirect(item)
	if !item.IsValid() {
		return reflect.Value{}, errors.New("index of untyped nil")
	}
	for _, key := range keys {
		key = expandIndirect(key)
		switch item.Kind() {
		case reflect.Array, reflect.Slice, reflect.String:
			var i int64
			switch key.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				i = key.Int()
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
				i = int64(min(key.Uint(), 1<<62))
			default:
				return reflect.Value{}, fmt.Errorf("cannot index %s with %s", item.Type(), expandTypeName(key))
			}
			if i < 0 || i >= int64(item.Len()) {
				return reflect.Value{}, fmt.Errorf("index out of range: %d", i)
			}
			item = item.Index(int(i))
		case reflect.Map:
			if !key.IsValid() || !key.Type().AssignableTo(item.Type().Key()) {
				return reflect.Value{}, fmt.Errorf("cannot index %s with %s", item.Type(), expandTypeName(key))
			}
			if key.Kind() == reflect.String {
				if err := e.charge(key.Len()); err != nil {
					return reflect.Value{}, err
				}
			}
			v := item.MapIndex(key)
			if !v.IsValid() {
				return reflect.Value{}, fmt.Errorf("map has no entry for key %s", expandQuote(fmt.Sprint(key.Interface())))
			}
			item = v
		default:
			return reflect.Value{}, fmt.Errorf("can't index item of type %s", item.Type())
		}
	}
	return item, nil
}

// expandQuote quotes s for a message, shortened: a key or value may be megabytes long.
func expandQuote(s string) string {
	const limit = 64
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

func expandIndirect(v reflect.Value) reflect.Value {
	for v.IsValid() && v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	return v
}

func expandTypeName(v reflect.Value) string {
	if !v.IsValid() {
		return "nil"
	}
	return v.Type().String()
}

// expandArgSize bounds how many bytes fmt's %v (and Sprint) writes for a value a template can
// hold: a string, the properties map, or a scalar.
func expandArgSize(a any) int {
	switch a := a.(type) {
	case string:
		return len(a)
	case map[string]string:
		n := 8
		for k, v := range a {
			n += len(k) + len(v) + 2
		}
		return n
	}
	return 64
}

// funcBound checks, before a function builds its result, that a result of up to bound bytes
// fits in the budget: fmt builds the whole string in memory before anyone can look at it.
// The bytes actually built are charged afterwards.
func (e *expander) funcBound(bound int) error {
	if bound > e.maxWork-e.work {
		e.work = e.maxWork
		return errExpandWork
	}
	return nil
}

func (e *expander) built(s string) (string, error) {
	if err := e.charge(len(s)); err != nil {
		return "", err
	}
	return s, nil
}

func (e *expander) sprintBound(args []any) int {
	n := 0
	for _, a := range args {
		n += expandArgSize(a) + 1
	}
	return n + 1
}

func (e *expander) print(args ...any) (string, error) {
	if err := e.funcBound(e.sprintBound(args)); err != nil {
		return "", err
	}
	return e.built(fmt.Sprint(args...))
}

func (e *expander) println(args ...any) (string, error) {
	if err := e.funcBound(e.sprintBound(args)); err != nil {
		return "", err
	}
	return e.built(fmt.Sprintln(args...))
}

// printf bounds Sprintf's result: every verb may write its width and precision, plus any
// argument at up to six bytes per byte (`% #x`), plus a little for numbers and error text.
func (e *expander) printf(format string, args ...any) (string, error) {
	largest, all := 0, 0
	for _, a := range args {
		largest = max(largest, expandArgSize(a))
		all += 6*expandArgSize(a) + 64
	}
	bound := len(format) + all
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		// Widths and precisions are the only numbers in a verb; fmt caps each at 1e6, and a
		// "*" takes its value from an argument.
		bound += 6*largest + 400
		for i++; i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0; i++ {
			switch c := format[i]; {
			case c == '*':
				bound += 1_000_000
			case c >= '1' && c <= '9' && format[i-1] != '[':
				j := i
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
				n, _ := strconv.Atoi(format[i:min(j, i+7)])
				bound += min(n, 1_000_000)
				i = j - 1
			}
		}
		if e.funcBound(bound) != nil {
			return "", errExpandWork
		}
	}
	if err := e.funcBound(bound); err != nil {
		return "", err
	}
	return e.built(fmt.Sprintf(format, args...))
}

// escaper wraps html, js and urlquery, which write at most six bytes per byte of input.
func (e *expander) escaper(fn func(...any) string) func(...any) (string, error) {
	return func(args ...any) (string, error) {
		if err := e.funcBound(6 * e.sprintBound(args)); err != nil {
			return "", err
		}
		return e.built(fn(args...))
	}
}

// The comparison functions are text/template's, reimplemented because comparing two long
// strings is work that must be charged, and the built-ins cannot be wrapped.

type expandKind int

const (
	expandInvalid expandKind = iota
	expandBool
	expandComplex
	expandInt
	expandFloat
	expandString
	expandUint
)

func expandBasicKind(v reflect.Value) expandKind {
	switch v.Kind() {
	case reflect.Bool:
		return expandBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return expandInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return expandUint
	case reflect.Float32, reflect.Float64:
		return expandFloat
	case reflect.Complex64, reflect.Complex128:
		return expandComplex
	case reflect.String:
		return expandString
	}
	return expandInvalid
}

// eq reports whether a equals any of bs, as text/template's eq.
func (e *expander) eq(a reflect.Value, bs ...reflect.Value) (bool, error) {
	if len(bs) == 0 {
		return false, errors.New("missing argument for comparison")
	}
	for _, b := range bs {
		_, equal, err := e.order(a, b, true)
		if err != nil || equal {
			return equal, err
		}
	}
	return false, nil
}

func (e *expander) compare(a, b reflect.Value) (less, equal bool, err error) {
	return e.order(a, b, false)
}

// order compares two basic values; bool and complex values only for equality. Integers
// compare across signedness, as in text/template.
func (e *expander) order(a, b reflect.Value, equality bool) (less, equal bool, err error) {
	a, b = expandIndirect(a), expandIndirect(b)
	if !a.IsValid() || !b.IsValid() {
		if equality {
			return false, a.IsValid() == b.IsValid(), nil
		}
		return false, false, errors.New("invalid type for comparison")
	}
	ka, kb := expandBasicKind(a), expandBasicKind(b)
	switch {
	case ka == expandInvalid || kb == expandInvalid:
		return false, false, fmt.Errorf("invalid type for comparison: %s and %s", a.Type(), b.Type())
	case ka == expandInt && kb == expandUint:
		if a.Int() < 0 {
			return true, false, nil
		}
		c := cmp.Compare(uint64(a.Int()), b.Uint())
		return c < 0, c == 0, nil
	case ka == expandUint && kb == expandInt:
		if b.Int() < 0 {
			return false, false, nil
		}
		c := cmp.Compare(a.Uint(), uint64(b.Int()))
		return c < 0, c == 0, nil
	case ka != kb:
		return false, false, fmt.Errorf("incompatible types for comparison: %s and %s", a.Type(), b.Type())
	}
	switch ka {
	case expandBool, expandComplex:
		if !equality {
			return false, false, errors.New("invalid type for comparison")
		}
		if ka == expandBool {
			return false, a.Bool() == b.Bool(), nil
		}
		return false, a.Complex() == b.Complex(), nil
	case expandInt:
		return a.Int() < b.Int(), a.Int() == b.Int(), nil
	case expandUint:
		return a.Uint() < b.Uint(), a.Uint() == b.Uint(), nil
	case expandFloat:
		return a.Float() < b.Float(), a.Float() == b.Float(), nil
	}
	if err := e.charge(min(a.Len(), b.Len())); err != nil {
		return false, false, err
	}
	c := strings.Compare(a.String(), b.String())
	return c < 0, c == 0, nil
}
