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

package positions

import (
	"encoding/binary"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// Scalars resolve as go.yaml.in/yaml/v2 resolves a plain scalar (YAML 1.1), and are written as
// encoding/json writes the Go value it decodes to.

// resolvedKind is the Go type a plain scalar decodes to.
const (
	resolvedString uint8 = iota
	resolvedNull
	resolvedBool
	resolvedInt
	resolvedUint
	resolvedFloat
)

// yamlStyleFloat is the decoder's test of a float written as YAML writes floats.
var yamlStyleFloat = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
})

// resolve returns the type and value (ints as int64 or uint64 bits, floats as float64 bits,
// bools as 0 and 1) of a plain scalar.
func resolve(s []byte) (uint8, uint64) {
	if len(s) == 0 {
		return resolvedNull, 0
	}
	switch resolveStarts[s[0]] {
	case startsNumber:
		if k, v, ok := resolveWord(s); ok {
			return k, v
		}
		return resolveNumber(string(s))
	case startsDot:
		if k, v, ok := resolveWord(s); ok {
			return k, v
		}
		if f, err := strconv.ParseFloat(string(s), 64); err == nil {
			return resolvedFloat, math.Float64bits(f)
		}
	case startsWord:
		if k, v, ok := resolveWord(s); ok {
			return k, v
		}
	}
	return resolvedString, 0
}

// resolveStarts says, by a scalar's first byte, what it may resolve to: most keys and values
// start with a byte that makes them a string at once (one lookup, not a search of the words'
// first letters).
var resolveStarts = func() (starts [256]uint8) {
	for _, c := range []byte("+-0123456789") {
		starts[c] = startsNumber
	}
	starts['.'] = startsDot
	for _, c := range []byte("yYnNtTfFoO~") {
		starts[c] = startsWord
	}
	return starts
}()

const (
	startsString uint8 = iota
	startsNumber
	startsDot
	startsWord
)

// maxWord is the length of the longest word of the decoder's table.
const maxWord = 5

// resolveWord looks s up in the decoder's table of words.
func resolveWord(s []byte) (uint8, uint64, bool) {
	if len(s) > maxWord {
		return 0, 0, false // longer than any word of the table (a key such as metadata)
	}
	switch string(s) {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return resolvedBool, 1, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return resolvedBool, 0, true
	case "~", "null", "Null", "NULL":
		return resolvedNull, 0, true
	case ".nan", ".NaN", ".NAN":
		return resolvedFloat, math.Float64bits(math.NaN()), true
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return resolvedFloat, math.Float64bits(math.Inf(1)), true
	case "-.inf", "-.Inf", "-.INF":
		return resolvedFloat, math.Float64bits(math.Inf(-1)), true
	}
	return 0, 0, false
}

// resolveNumber is the decoder's order for a scalar starting with a sign or a digit: an int
// (underscores dropped, any Go base prefix), an unsigned int, a YAML-style float, a binary
// int; else a string. A timestamp, tried first there, stays a string either way.
func resolveNumber(in string) (uint8, uint64) {
	for i := 0; i < len(in); i++ {
		if !numberByte(in[i]) {
			// No parse below takes it (1Gi, 8080/TCP, 10m): a string, without their errors'
			// allocations and the regexp.
			return resolvedString, 0
		}
	}
	plain := strings.ReplaceAll(in, "_", "")
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return resolvedInt, uint64(i)
	}
	if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return resolvedUint, u
	}
	if yamlStyleFloat().MatchString(plain) {
		if f, err := strconv.ParseFloat(plain, 64); err == nil {
			return resolvedFloat, math.Float64bits(f)
		}
	}
	if strings.HasPrefix(plain, "0b") {
		if i, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
			return resolvedInt, uint64(i)
		}
		if u, err := strconv.ParseUint(plain[2:], 2, 64); err == nil {
			return resolvedUint, u
		}
	} else if strings.HasPrefix(plain, "-0b") {
		if i, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
			return resolvedInt, uint64(i)
		}
	}
	return resolvedString, 0
}

// numberByte reports a byte that may be in a scalar resolveNumber reads as a number: a
// digit, a hex digit, a sign, '_', '.', or a base prefix's letter (x, o; b and e are hex digits).
func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' ||
		c == '+' || c == '-' || c == '_' || c == '.' || c == 'x' || c == 'X' || c == 'o' || c == 'O'
}

// appendResolved writes a plain scalar as the JSON of what it resolves to; clean says a
// string of it needs no escape (nodeClean).
func appendResolved(dst, s []byte, clean bool) []byte {
	kind, v := resolve(s)
	switch kind {
	case resolvedNull:
		return append(dst, "null"...)
	case resolvedBool:
		if v == 1 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case resolvedInt:
		return strconv.AppendInt(dst, int64(v), 10)
	case resolvedUint:
		return strconv.AppendUint(dst, v, 10)
	case resolvedFloat:
		return appendJSONFloat(dst, math.Float64frombits(v))
	}
	if clean {
		return appendClean(dst, s)
	}
	return appendJSONString(dst, s)
}

// appendClean writes as a JSON string s, which holds no byte a JSON string escapes: a short
// one (a key, a name) in two words read from the memory it lies in, as appendJSONString does.
func appendClean(dst, s []byte) []byte {
	if n := len(s); n <= 16 && cap(s) >= 16 && cap(dst)-len(dst) >= 18 {
		w := s[:16]
		at := len(dst)
		d := dst[at : at+18]
		d[0] = '"'
		binary.LittleEndian.PutUint64(d[1:9], binary.LittleEndian.Uint64(w))
		binary.LittleEndian.PutUint64(d[9:17], binary.LittleEndian.Uint64(w[8:]))
		d[n+1] = '"'
		return dst[:at+n+2]
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendJSONFloat writes f as encoding/json does; NaN and infinities are its error.
func appendJSONFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		bail() // json: unsupported value
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// resolveKey returns a plain key as sigs.k8s.io/yaml writes it into JSON, and its typed value.
func resolveKey(s []byte) ([]byte, typedKey) {
	kind, v := resolve(s)
	typed := typedKey{kind: kind, num: v}
	switch kind {
	case resolvedString:
		return s, typed
	case resolvedBool:
		if v == 1 {
			return []byte("true"), typed
		}
		return []byte("false"), typed
	case resolvedInt:
		return strconv.AppendInt(nil, int64(v), 10), typed
	case resolvedFloat:
		f := math.Float64frombits(v)
		if math.IsNaN(f) {
			bail() // no NaN key equals another: YAMLToJSON writes one of them at random
		}
		text := strconv.FormatFloat(f, 'g', -1, 32)
		switch text {
		case "+Inf":
			text = ".inf"
		case "-Inf":
			text = "-.inf"
		case "NaN":
			text = ".nan"
		}
		return []byte(text), typed
	}
	bail() // a null or unsigned key: YAMLToJSON's error
	return nil, typed
}

// appendJSONString writes s as encoding/json writes a string: <, > and & escaped for HTML,
// U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
//
// A short string (most keys and values: names, kinds, ports) is checked in one or two words
// read from the memory it lies in, the bytes past its end taken as safe, rather than a byte
// at a time: the escaping of strings was a tenth of the engine's work on YAML.
func appendJSONString(dst, s []byte) []byte {
	if n := len(s); n <= 16 && cap(s) >= 16 && cap(dst)-len(dst) >= 18 {
		w := s[:16]
		x, y := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
		if jsonbytes.HTMLSafeWord(withSafeTail(x, n)) && (n <= 8 || jsonbytes.HTMLSafeWord(withSafeTail(y, n-8))) {
			// The words go to dst as read, their bytes past the string's end overwritten by
			// the closing quote and then by what follows.
			at := len(dst)
			d := dst[at : at+18]
			d[0] = '"'
			binary.LittleEndian.PutUint64(d[1:9], x)
			binary.LittleEndian.PutUint64(d[9:17], y)
			d[n+1] = '"'
			return dst[:at+n+2]
		}
	}
	return jsonbytes.AppendQuotedHTML(dst, s)
}

// safeWord is eight bytes written as they are in a JSON string.
const safeWord = 0x6161616161616161

// withSafeTail keeps the first n bytes of x (all from 8 on) and makes the others safe.
func withSafeTail(x uint64, n int) uint64 {
	keep := uint64(1)<<(8*n) - 1 // a shift past 63 gives 0: all ones
	return x&keep | safeWord&^keep
}
