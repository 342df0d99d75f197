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
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Bound is a minimum or a maximum as the template wrote it: the JSON text of a number (1,
// 0.5) or of a string (\"1\"). JSON Schema's users write numbers, Stencil's first templates
// strings; either reads back as it was written, and is compared exactly (ParseBound) from its
// text, so that 1e400 or 0.1 mean what they say. A number no float64 holds is kept as a
// string (see BoundFromJSON). Its text is ParseBound's to judge: validation refuses a bound
// that holds no number.
type Bound string

// Text is the bound's number text: a string's content, or the number as written.
func (b Bound) Text() string {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal([]byte(b), &s) == nil {
			return s
		}
	}
	return string(b)
}

// NewBound is the bound written as the string text; Stencil's own writers use it.
func NewBound(text string) Bound {
	quoted, _ := json.Marshal(text)
	return Bound(quoted)
}

// errBoundType and errLengthType word a bound or a length of the wrong JSON type, about the
// template.
var (
	errBoundType  = errors.New("must be a number or a string holding one")
	errLengthType = errors.New("must be an integer or a string holding one")
)

// BoundFromJSON reads a minimum or a maximum from its JSON value raw (neither null nor
// padded): a number, or a string, whatever it holds (validation judges its text). Every
// decoder of a template (the API's, pkg/process's) reads bounds with it, so that they agree.
// A number that Kubernetes' JSON readers would not read back as the same number (beyond
// ±1.8e308, or more digits than an int64 or a float64 keeps) is kept as a string holding it:
// a client that reads the template back, kubectl among them, would fail on it or round it.
func BoundFromJSON(raw []byte) (Bound, error) {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", errBoundType
		}
		return NewBound(s), nil
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') && IsJSONNumber(string(raw)):
		if readsBack(string(raw)) {
			return Bound(raw), nil
		}
		return NewBound(string(raw)), nil
	}
	return "", errBoundType
}

// readsBack reports whether a JSON reader that holds numbers as int64 or float64, as
// Kubernetes' do, reads n as the same number.
func readsBack(n string) bool {
	if _, err := strconv.ParseInt(n, 10, 64); err == nil {
		return true
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f == 0 && strings.Trim(n, "-0.eE+") != "" {
		// Beyond the range, or below it (1e-999999 reads as 0): big.Rat would spend long on
		// the exponent to say what is known.
		return false
	}
	exact, ok := new(big.Rat).SetString(n)
	read, ok2 := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return ok && ok2 && exact.Cmp(read) == 0
}

// LengthFromJSON reads minLength, maxLength or maxItems from its JSON value raw (neither null
// nor padded): an integer, or a string holding one (\"5\"), in any JSON spelling of an integer
// (5, 5.0, 5e0). Every decoder of a template reads lengths with it. Lengths are written back
// as numbers: they are int64s, which every reader keeps.
func LengthFromJSON(raw []byte) (int64, error) {
	text := raw
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, errLengthType
		}
		text = []byte(s)
	}
	if len(text) == 0 || !IsJSONNumber(string(text)) {
		return 0, errLengthType
	}
	if n, err := strconv.ParseInt(string(text), 10, 64); err == nil {
		return n, nil
	}
	// 5.0 and 5e0 are integers to JSON Schema. The float64 reading keeps big.Rat from
	// building the huge number of a long exponent: no int64 is beyond ±9.3e18.
	if f, err := strconv.ParseFloat(string(text), 64); err != nil || math.Abs(f) > math.MaxInt64 {
		return 0, errLengthType
	}
	r, ok := new(big.Rat).SetString(string(text))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, errLengthType
	}
	return r.Num().Int64(), nil
}
