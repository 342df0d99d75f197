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

// Package redact is the one rule of what is secret and the one way secret values are kept out
// of what Stencil shows: errors and the conditions they become, Events, logs, previews,
// provenance and the catalog's pages. Whether a parameter's value is secret is decided once
// (Parameter); a Set holds the secret values of one rendering and finds them in decoded
// values (Holds) and in free text, whatever spelling the text gives them (Scrub).
//
// Masking is the second line: what an identity may not read is kept from it first by
// authorization (an author or a preview's caller who may not read an instance's inputs gets
// nothing rendered from them). A Set hides what a reader may read but should not see in
// passing, and what a message from elsewhere (the cluster's refusals) quotes.
package redact

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Masked replaces a secret value wherever it is shown.
const Masked = "(masked)"

// MinLength is the length from which a secret value is found inside a longer text. A shorter
// one ("1", "ab") is in everything: it is hidden only where it is a whole value.
const MinLength = 4

// credentialName names parameters that hold credentials in templates written without the
// secret flag (OpenShift's have none). The catalog's form masks the same names
// (pkg/ui/static/js/schema.js, SECRET_LIKE).
var credentialName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(PASSWORD|PASSWD|SECRET|TOKEN|PRIVATE_KEY|API_KEY)`)
})

// Secret is the rule: the value of a parameter is secret when the parameter is marked secret,
// is typed base64 (binary keys and certificates), is generated (a password more often than
// not), or is named like a credential; and, whatever the template says, when the value was
// read from a Secret (fromSecret): a template's editor cannot make a value public by
// editing its declaration.
func Secret(name string, marked bool, typ templates.ParameterType, generated, fromSecret bool) bool {
	return fromSecret || marked || typ == templates.ParameterTypeBase64 || generated || namedLikeCredential(name)
}

// credentialWords are what credentialName matches, in capitals.
var credentialWords = [][]byte{[]byte("PASSWORD"), []byte("PASSWD"), []byte("SECRET"), []byte("TOKEN"), []byte("PRIVATE_KEY"), []byte("API_KEY")}

// namedLikeCredential is credentialName's match: by the words in capitals for a name of ASCII
// (every name the API accepts), which costs a tenth of the case-insensitive expression.
func namedLikeCredential(name string) bool {
	var upper [64]byte
	if len(name) > len(upper) {
		return credentialName().MatchString(name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 {
			return credentialName().MatchString(name) // Unicode folds (ſ, K) are the expression's
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		upper[i] = c
	}
	for _, w := range credentialWords {
		if bytes.Contains(upper[:len(name)], w) {
			return true
		}
	}
	return false
}

// Parameter is Secret of a declared parameter.
func Parameter(p *templates.Parameter, fromSecret bool) bool {
	return Secret(p.Name, p.Secret, p.Type, p.Generate != "", fromSecret)
}

// Hidden says whether value, a value of the declared parameter p, is kept out of what is shown
// (added to a Set): p is secret, and value is not p's own default, which is the template's
// text, shown wherever the template is, and which, short and common ("secret", "admin"),
// would mask half of every text. A value read from a Secret is hidden whatever it equals.
func Hidden(p *templates.Parameter, value string, fromSecret bool) bool {
	return value != "" && Parameter(p, fromSecret) && (fromSecret || value != p.Value)
}

// Set is the secret values of one rendering. The zero value is an empty Set; a Set is not
// safe for concurrent writes.
type Set struct {
	values map[string]bool
	// forms are the lower-cased spellings of the values of MinLength or more, longest first;
	// short the lower-cased short values. Both are made again after an Add.
	forms, short []string
	stale        bool
}

// Add adds values; empty ones are ignored.
func (s *Set) Add(values ...string) {
	for _, v := range values {
		if v == "" {
			continue
		}
		if s.values == nil {
			s.values = map[string]bool{}
		}
		if !s.values[v] {
			s.values[v], s.stale = true, true
		}
	}
}

// AddSet adds every value of o.
func (s *Set) AddSet(o *Set) {
	if o == nil {
		return
	}
	for v := range o.values {
		s.Add(v)
	}
}

// Len is the number of values.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.values)
}

// Holds says whether a decoded value (a string as an object holds it, never its JSON text)
// holds a secret value in any spelling: the whole of a short one, anywhere for a longer one.
func (s *Set) Holds(value string) bool {
	if s.Len() == 0 || value == "" {
		return false
	}
	s.prepare()
	lower := asciiLower(value)
	for _, v := range s.short {
		if lower == v {
			return true
		}
	}
	for _, f := range s.forms {
		if strings.Contains(lower, f) {
			return true
		}
	}
	return false
}

// Scrub replaces every secret value in text with Masked, in every spelling a message may give
// it (see spellings), case aside; a short value only where it is the whole text or quoted.
// It reports whether it replaced anything.
func (s *Set) Scrub(text string) (string, bool) {
	if s.Len() == 0 || text == "" {
		return text, false
	}
	s.prepare()
	lower := asciiLower(text)
	var spans [][2]int
	for _, v := range s.short {
		if lower == v {
			return Masked, true
		}
		for _, q := range []string{`"` + v + `"`, `\"` + v + `\"`, `'` + v + `'`} {
			spans = appendSpans(spans, lower, q, 1)
		}
	}
	for _, f := range s.forms {
		spans = appendSpans(spans, lower, f, 0)
	}
	if len(spans) == 0 {
		return text, false
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		switch {
		case sp[1] <= at:
			// Inside what is replaced already.
			continue
		case sp[0] >= at:
			b.WriteString(text[at:sp[0]])
			b.WriteString(Masked)
		}
		// An overlapping span extends the replacement before it.
		at = sp[1]
	}
	b.WriteString(text[at:])
	return b.String(), true
}

// ScrubString is Scrub without the report.
func (s *Set) ScrubString(text string) string {
	out, _ := s.Scrub(text)
	return out
}

// appendSpans adds the spans of every occurrence of form in text, trimmed by trim bytes at
// each end (the quotes around a short value stay).
func appendSpans(spans [][2]int, text, form string, trim int) [][2]int {
	for from := 0; ; {
		i := strings.Index(text[from:], form)
		if i < 0 {
			return spans
		}
		start := from + i
		spans = append(spans, [2]int{start + trim, start + len(form) - trim})
		from = start + 1
	}
}

func (s *Set) prepare() {
	if !s.stale && (s.forms != nil || s.short != nil) {
		return
	}
	s.stale = false
	s.forms, s.short = nil, nil
	seen := map[string]bool{}
	for v := range s.values {
		if len(v) < MinLength {
			s.short = append(s.short, asciiLower(v))
			continue
		}
		for _, f := range spellings(v) {
			if f = asciiLower(f); len(f) >= MinLength && !seen[f] {
				seen[f] = true
				s.forms = append(s.forms, f)
			}
		}
	}
	sort.Slice(s.forms, func(i, j int) bool { return len(s.forms[i]) > len(s.forms[j]) })
	sort.Strings(s.short)
}

// spellings are the forms a value takes in a text: as it is, lower- and upper-cased (object
// names lower-case what they hold; the callers ignore ASCII case besides); escaped as a JSON
// string is (encoding/json's HTML escapes and without them), twice (JSON inside a JSON
// string); quoted as Go quotes (%q, and ASCII-only); and each of these in base64 (standard
// and URL alphabets), at each of the three alignments it can have inside a longer encoded
// text.
func spellings(v string) []string {
	texts := []string{v, strings.ToLower(v), strings.ToUpper(v)}
	for _, once := range []string{jsonEscape(v, true), jsonEscape(v, false)} {
		texts = append(texts, once, jsonEscape(once, false))
	}
	texts = append(texts, unquote(strconv.Quote(v)), unquote(strconv.QuoteToASCII(v)))
	out := texts
	for _, text := range texts[:len(texts):len(texts)] {
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			for k := 0; k < 3; k++ {
				encoded := enc.EncodeToString(append(make([]byte, k), text...))
				// The characters that depend on the text's bytes alone: from the first whole
				// sextet after the k leading bytes to the last whole one of the text.
				first, last := (8*k+5)/6, 8*(k+len(text))/6
				if last-first >= MinLength {
					out = append(out, encoded[first:last])
				}
			}
		}
	}
	return out
}

func unquote(q string) string { return q[1 : len(q)-1] }

// jsonEscape escapes v as the inside of a JSON string, with encoding/json's HTML escapes
// (<, >, & as \u003c...) when html is set.
func jsonEscape(v string, html bool) string {
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20, html && (r == '<' || r == '>' || r == '&'), r == '\u2028', r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// asciiLower lower-cases the ASCII letters of s only, so that byte offsets stay the same.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
