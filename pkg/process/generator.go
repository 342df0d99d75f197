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
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
)

// Generator is the source of randomness behind generated parameter values.
type Generator interface {
	// IntN returns a uniformly distributed integer in [0, n); n is at least 1.
	IntN(n int) int
}

// cryptoSource feeds math/rand/v2's unbiased IntN from crypto/rand. It holds no state, so the
// Rand built on it is safe for concurrent use.
type cryptoSource struct{}

// Uint64 returns 64 bits from crypto/rand, which never fails on supported platforms.
func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// CryptoGenerator is a Generator drawing uniformly from crypto/rand, safe for concurrent use.
var CryptoGenerator Generator = mrand.New(cryptoSource{})

// bufferedCryptoSource reads crypto/rand 256 bytes at a time instead of 8. Execute makes one
// per request when a value must be generated, so it needs no lock.
type bufferedCryptoSource struct {
	buf  [256]byte
	used int
}

// Uint64 returns the next 64 random bits.
func (s *bufferedCryptoSource) Uint64() uint64 {
	if s.used == 0 || s.used+8 > len(s.buf) {
		_, _ = crand.Read(s.buf[:])
		s.used = 0
	}
	v := binary.LittleEndian.Uint64(s.buf[s.used:])
	s.used += 8
	return v
}

// newRequestGenerator returns the default Generator of one request: crypto/rand, buffered.
func newRequestGenerator() Generator { return mrand.New(&bufferedCryptoSource{}) }

// NewSeededGenerator returns a deterministic Generator for tests and reproducible examples. It
// is not secure and not safe for concurrent use.
func NewSeededGenerator(seed uint64) Generator {
	return mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// The character sets of generator expressions, as OpenShift defines them.
const (
	lowerLetters = "abcdefghijklmnopqrstuvwxyz"
	upperLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digitChars   = "0123456789"
	symbolChars  = "~!@#$%^&*()-_+={}[]\\|<,>.?/\"';:`"
	// rangeOrder is the order ranges such as [a-Z] follow in OpenShift; unlike OpenShift we
	// include the upper bound.
	rangeOrder = lowerLetters + upperLetters + digitChars
)

// maxGeneratedLength bounds {n} in a generator expression, as in OpenShift.
const maxGeneratedLength = 255

// expression is a compiled generator expression: literal text and random groups.
type expression struct {
	parts []expressionPart
}

// expressionPart is literal text, or length characters drawn from alphabet.
type expressionPart struct {
	literal  string
	alphabet string
	length   int
}

// parseExpression compiles a generator expression. A "[" always starts a group, so that a
// mistyped group is an error rather than literal text in a password.
func parseExpression(from string) (*expression, error) {
	if from == "" {
		return nil, fmt.Errorf("the expression is empty")
	}
	e := &expression{}
	literal := strings.Builder{}
	for i := 0; i < len(from); {
		if from[i] != '[' {
			literal.WriteByte(from[i])
			i++
			continue
		}
		closing := strings.IndexByte(from[i:], ']')
		if closing < 0 {
			return nil, fmt.Errorf("unterminated group at offset %d: %q has no ]", i, from[i:])
		}
		alphabet, err := parseGroupBody(from[i+1 : i+closing])
		if err != nil {
			return nil, fmt.Errorf("group %q: %v", from[i:i+closing+1], err)
		}
		lengthAt := i + closing + 1
		length, next, err := parseGroupLength(from, lengthAt)
		if err != nil {
			return nil, fmt.Errorf("group %q: %v", from[i:lengthAt], err)
		}
		if literal.Len() > 0 {
			e.parts = append(e.parts, expressionPart{literal: literal.String()})
			literal.Reset()
		}
		e.parts = append(e.parts, expressionPart{alphabet: alphabet, length: length})
		i = next
	}
	if literal.Len() > 0 {
		e.parts = append(e.parts, expressionPart{literal: literal.String()})
	}
	return e, nil
}

// parseGroupBody returns the characters a group such as [a-z\d] may draw, each once.
func parseGroupBody(body string) (string, error) {
	if body == "" {
		return "", fmt.Errorf("a group needs at least one range or class")
	}
	var chars []byte
	var seen [256]bool
	add := func(set string) {
		for i := 0; i < len(set); i++ {
			if !seen[set[i]] {
				seen[set[i]] = true
				chars = append(chars, set[i])
			}
		}
	}
	for i := 0; i < len(body); {
		if body[i] == '\\' && i+1 < len(body) {
			switch body[i+1] {
			case 'w':
				add(lowerLetters + upperLetters + digitChars + "_")
			case 'd':
				add(digitChars)
			case 'a':
				add(lowerLetters + upperLetters + digitChars)
			case 'A':
				add(symbolChars)
			default:
				return "", fmt.Errorf(`unknown class \%c: use \w, \d, \a or \A`, body[i+1])
			}
			i += 2
			continue
		}
		if i+2 >= len(body) || body[i+1] != '-' {
			return "", fmt.Errorf("expected a range such as a-z or a class such as \\d at %q", body[i:])
		}
		from, to := strings.IndexByte(rangeOrder, body[i]), strings.IndexByte(rangeOrder, body[i+2])
		switch {
		case from < 0 || to < 0:
			return "", fmt.Errorf("range %q: bounds must be letters or digits", body[i:i+3])
		case from > to:
			return "", fmt.Errorf("range %q: the first bound comes after the second", body[i:i+3])
		}
		add(rangeOrder[from : to+1])
		i += 3
	}
	return string(chars), nil
}

// parseGroupLength reads the {n} at from[at:] and returns n and the offset after it.
func parseGroupLength(from string, at int) (int, int, error) {
	if at >= len(from) || from[at] != '{' {
		return 0, 0, fmt.Errorf("must be followed by a length such as {8}")
	}
	closing := strings.IndexByte(from[at:], '}')
	if closing < 0 {
		return 0, 0, fmt.Errorf("unterminated length %q", from[at:])
	}
	digits := from[at+1 : at+closing]
	n, err := strconv.Atoi(digits)
	if err != nil || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, 0, fmt.Errorf("length %q is not a number", digits)
	}
	if n < 1 || n > maxGeneratedLength {
		return 0, 0, fmt.Errorf("length %d must be within 1..%d", n, maxGeneratedLength)
	}
	return n, at + closing + 1, nil
}

// generate returns a new value of the expression drawn from g.
func (e *expression) generate(g Generator) string {
	var b strings.Builder
	for _, p := range e.parts {
		if p.alphabet == "" {
			b.WriteString(p.literal)
			continue
		}
		for range p.length {
			b.WriteByte(p.alphabet[g.IntN(len(p.alphabet))])
		}
	}
	return b.String()
}

// GenerateValue returns a value of the generator expression from, drawn from g: the engine's
// own generation, for a caller that chooses the randomness of each parameter itself (a GitOps
// render derives it from a secret seed, so that renders of the same inputs agree).
func GenerateValue(from string, g Generator) (string, error) {
	e, err := parseExpression(from)
	if err != nil {
		return "", err
	}
	return e.generate(g), nil
}
