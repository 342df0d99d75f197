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
	"math"
	"strconv"
	"strings"
)

// Decimal is a number read exactly from its decimal text, for comparisons: 0.1 is 0.1 and an
// int of any size keeps every digit, where a float64 would round both. Unlike a big.Rat, it
// costs the length of the text whatever the exponent: 1e999999 is not a million digits.
type Decimal struct {
	neg bool
	// digits are the significant digits, without leading or trailing zeros; empty for zero.
	digits string
	// exp places them: the value is 0.digits × 10^exp.
	exp int64
}

// maxDecimalExponent clamps exponents beyond int64's reach; such numbers still compare
// exactly with every number of an exponent within it.
const maxDecimalExponent = math.MaxInt64 / 4

// ParseBound reads a minimum, a maximum or a numeric value exactly. It takes JSON numbers and
// the integers of the int type, which may have leading zeros.
func ParseBound(s string) (Decimal, bool) {
	if s == "" || !IsJSONNumber(s) && !IsInteger(s) {
		return Decimal{}, false
	}
	var d Decimal
	if s[0] == '-' {
		d.neg, s = true, s[1:]
	}
	mantissa, exponent, _ := strings.Cut(strings.ToLower(s), "e")
	whole, fraction, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(whole+fraction, "0")
	exp := int64(len(whole)) - int64(len(whole+fraction)-len(digits))
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return Decimal{}, true // zero, of either sign
	}
	if exponent != "" {
		e, err := strconv.ParseInt(strings.TrimPrefix(exponent, "+"), 10, 64)
		if err != nil || e > maxDecimalExponent || e < -maxDecimalExponent {
			// An exponent of more than 18 digits: as far as any text of this size reaches.
			e = maxDecimalExponent
			if strings.HasPrefix(exponent, "-") {
				e = -maxDecimalExponent
			}
		}
		exp += e
	}
	d.digits, d.exp = digits, exp
	return d, true
}

// Cmp is -1, 0 or +1 as d is less than, equal to or greater than o.
func (d Decimal) Cmp(o Decimal) int {
	switch {
	case d.digits == "" && o.digits == "":
		return 0
	case d.digits == "":
		return o.sign() * -1
	case o.digits == "":
		return d.sign()
	case d.neg != o.neg:
		return d.sign()
	}
	c := 0
	switch {
	case d.exp != o.exp:
		c = 1
		if d.exp < o.exp {
			c = -1
		}
	default:
		c = strings.Compare(d.digits, o.digits)
	}
	return c * d.sign()
}

func (d Decimal) sign() int {
	if d.neg {
		return -1
	}
	return 1
}

// IsInteger accepts an optionally negative run of decimal digits, the values of the int type:
// a value substituted as a JSON number keeps its full precision, and leading zeros are
// dropped then. Whether it fits is NumberFits' to judge.
func IsInteger(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IsJSONNumber follows JSON's number grammar: the text of a bound or a length written as a
// number, and the values of the number type, which substitute through ${{P}} as numbers.
func IsJSONNumber[T ~string | ~[]byte](s T) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	digits := func() int {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	switch {
	case len(s) == 0:
		return false
	case s[0] == '0':
		s = s[1:]
	case digits() == 0:
		return false
	}
	if len(s) > 0 && s[0] == '.' {
		s = s[1:]
		if digits() == 0 {
			return false
		}
	}
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return len(s) == 0
}
