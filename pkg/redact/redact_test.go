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

package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestSecret is the one rule's table.
func TestSecret(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    templates.Parameter
		from bool
		want bool
	}{
		{"plain", templates.Parameter{Name: "REPLICAS"}, false, false},
		{"marked secret", templates.Parameter{Name: "X", Secret: true}, false, true},
		{"typed base64", templates.Parameter{Name: "CERT", Type: templates.ParameterTypeBase64}, false, true},
		{"generated", templates.Parameter{Name: "SUFFIX", Generate: templates.GeneratorExpression, From: "[a-z]{4}"}, false, true},
		{"named like a password", templates.Parameter{Name: "mysql_password"}, false, true},
		{"named like a token", templates.Parameter{Name: "GITHUB_TOKEN"}, false, true},
		{"read from a Secret, the template says nothing", templates.Parameter{Name: "DB"}, true, true},
		{"read from a Secret, its declaration edited to a pattern", templates.Parameter{Name: "DB", Pattern: "^x$"}, true, true},
	} {
		if got := Parameter(&tc.p, tc.from); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestHidden: a secret parameter's value is hidden unless it is the template's own default;
// a value read from a Secret always.
func TestHidden(t *testing.T) {
	p := &templates.Parameter{Name: "APPLICATION_PASSWORD", Value: "secret"}
	for _, tc := range []struct {
		value      string
		fromSecret bool
		want       bool
	}{{"secret", false, false}, {"s3cr3t-given", false, true}, {"secret", true, true}, {"", true, false}} {
		if got := Hidden(p, tc.value, tc.fromSecret); got != tc.want {
			t.Errorf("Hidden(%q, %v) = %v", tc.value, tc.fromSecret, got)
		}
	}
	if Hidden(&templates.Parameter{Name: "REPLICAS"}, "3", false) {
		t.Error("a plain parameter's value is hidden")
	}
}

// spelled writes value the ways the world writes it into a text: the encoders are the
// standard library's, never this package's.
func spelled(value string) map[string]string {
	htmlJSON, _ := json.Marshal(value)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(value)
	twice, _ := json.Marshal(string(htmlJSON))
	object, _ := json.Marshal(map[string]string{"password": value})
	return map[string]string{
		"as is":                       "the value " + value + " was refused",
		"JSON, HTML escapes":          `{"data":{"k":` + string(htmlJSON) + `}}`,
		"JSON, no HTML escapes":       `{"data":{"k":` + strings.TrimSpace(plain.String()) + `}}`,
		"JSON inside a JSON string":   `{"message":` + string(twice) + `}`,
		"Go %q, as field errors do":   fmt.Sprintf("spec.x: Invalid value: %q: must match", value),
		"Go %+q, ASCII only":          fmt.Sprintf("value %+q", value),
		"base64 alone":                base64.StdEncoding.EncodeToString([]byte(value)),
		"base64 of a text, offset 1":  base64.StdEncoding.EncodeToString([]byte("x" + value + "tail")),
		"base64 of a text, offset 2":  base64.StdEncoding.EncodeToString([]byte("xy" + value + "tail")),
		"base64 of a JSON object":     base64.StdEncoding.EncodeToString(object),
		"base64url of a text":         base64.URLEncoding.EncodeToString([]byte("xyz" + value)),
		"raw base64url, offset 1":     base64.RawURLEncoding.EncodeToString([]byte("-" + value)),
		"lower-cased, in a name":      "configmaps \"leak-" + strings.ToLower(value) + "\" is forbidden",
		"upper-cased":                 "VALUE " + strings.ToUpper(value),
		"in a URL":                    "db://u:" + value + "@db:5432",
		"twice in one message":        value + " and again " + value,
		"in a YAML block":             "data:\n  k: |\n    " + value + "\n",
		"around other masked content": value + value,
	}
}

// TestScrubEverySpelling: a secret value is gone from every spelling of a text that holds
// it, and only it is replaced.
func TestScrubEverySpelling(t *testing.T) {
	for _, value := range []string{
		`pa&ss<word>"42`,             // what json.Marshal escapes
		`TopSecret-A1xyz`,            // upper case, lower-cased in names
		`back\slash	tab`,             // JSON and Go escapes
		"p\u00e4ssw\u00f6rt\u20ac42", // non-ASCII, escaped by %+q
		"line\nbreak-value",
	} {
		var s Set
		s.Add(value)
		for form, text := range spelled(value) {
			out, changed := s.Scrub(text)
			if !changed || !strings.Contains(out, Masked) {
				t.Errorf("%q %s: not scrubbed: %s", value, form, out)
			}
			if leaks(out, value) {
				t.Errorf("%q %s: still holds the value: %s", value, form, out)
			}
		}
	}
}

// leaks says whether text still holds value in the spellings a reader decodes at once: as it
// is, JSON-escaped, Go-quoted, or in the base64 of the whole text.
func leaks(text, value string) bool {
	lower := strings.ToLower(text)
	for _, v := range []string{value, strings.ToLower(value)} {
		j, _ := json.Marshal(v)
		for _, form := range []string{v, string(j[1 : len(j)-1]), strconv.Quote(v)[1 : len(strconv.Quote(v))-1]} {
			if strings.Contains(lower, strings.ToLower(form)) {
				return true
			}
		}
	}
	if decoded, err := base64.StdEncoding.DecodeString(text); err == nil && strings.Contains(string(decoded), value) {
		return true
	}
	return false
}

// TestScrubKeepsTheRest: text without a secret value is unchanged; around one, everything
// else stays; a short value is replaced only where it is a whole value.
func TestScrubKeepsTheRest(t *testing.T) {
	var s Set
	s.Add("hunter2hunter2", "ab", "")
	for _, tc := range []struct{ in, want string }{
		{"nothing to hide here", "nothing to hide here"},
		{"the password hunter2hunter2 is wrong", "the password (masked) is wrong"},
		{"fabulous labels", "fabulous labels"},
		{"ab", Masked},
		{`spec.x: Invalid value: "ab": must be longer`, `spec.x: Invalid value: "(masked)": must be longer`},
		{`{"k":"ab"}`, `{"k":"(masked)"}`},
		{"HUNTER2HUNTER2!", "(masked)!"},
	} {
		if got := s.ScrubString(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var empty Set
	if out, changed := empty.Scrub("hunter2hunter2"); changed || out != "hunter2hunter2" {
		t.Errorf("an empty Set scrubbed: %q", out)
	}
}

// TestScrubOverlapping: values that overlap, or one inside another, are both gone.
func TestScrubOverlapping(t *testing.T) {
	var s Set
	s.Add("secret-one", "one-more", "secret-one-more-and-then")
	for _, text := range []string{"x secret-one-more y", "secret-one-more-and-then", "one-moresecret-one"} {
		out := s.ScrubString(text)
		if strings.Contains(out, "secret-one") || strings.Contains(out, "one-more") {
			t.Errorf("Scrub(%q) = %q", text, out)
		}
	}
}

// TestHolds works on decoded values: the value, inside a longer one, lower-cased; a short one
// only whole.
func TestHolds(t *testing.T) {
	var s Set
	s.Add(`pa&ss<word>"42`, "ab")
	for _, tc := range []struct {
		value string
		want  bool
	}{
		{`pa&ss<word>"42`, true},
		{`url=db://u:pa&ss<word>"42@db`, true},
		{`PA&SS<WORD>"42`, true},
		{"ab", true},
		{"AB", true},
		{"abc", false},
		{"nothing", false},
		{"", false},
		{base64.StdEncoding.EncodeToString([]byte(`pa&ss<word>"42`)), true},
	} {
		if got := s.Holds(tc.value); got != tc.want {
			t.Errorf("Holds(%q) = %v, want %v", tc.value, got, tc.want)
		}
	}
}

// FuzzCredentialName checks the rule's quick match of credential names against the
// case-insensitive expression it stands for, on every name.
func FuzzCredentialName(f *testing.F) {
	for _, name := range []string{"MYSQL_PASSWORD", "db_passwd", "github_Token", "TLS_PRIVATE_KEY", "api_key_file", "NAME", "",
		"paſſword", "TO\u212aEN", "x_secret_y", strings.Repeat("A", 70) + "SECRET"} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := namedLikeCredential(name), credentialName().MatchString(name); got != want {
			t.Fatalf("%q: the quick match says %v, the expression %v", name, got, want)
		}
	})
}
