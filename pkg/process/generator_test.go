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
	"regexp"
	"strings"
	"testing"
)

func TestGeneratorExpressions(t *testing.T) {
	cases := []struct {
		from    string
		matches string
	}{
		{"[a-z]{8}", `^[a-z]{8}$`},
		{"[A-Z]{8}", `^[A-Z]{8}$`},
		{"[0-9]{8}", `^[0-9]{8}$`},
		{`[\w]{20}`, `^[a-zA-Z0-9_]{20}$`},
		{`[\d]{20}`, `^[0-9]{20}$`},
		{`[\a]{20}`, `^[a-zA-Z0-9]{20}$`},
		{`[\A]{20}`, "^[~!@#$%^&*()\\-_+={}\\[\\]\\\\|<,>.?/\"';:`]{20}$"},
		{"[a-zA-Z0-9]{16}", `^[a-zA-Z0-9]{16}$`},
		{"user[A-Z0-9]{3}", `^user[A-Z0-9]{3}$`},
		{"0x[A-F0-9]{4}-[a-c]{2}!", `^0x[A-F0-9]{4}-[a-c]{2}!$`},
		{"[a-Z]{30}", `^[a-zA-Z]{30}$`},
		{"[a-z\\d]{1}", `^[a-z0-9]$`},
		{"[a-z]{255}", `^[a-z]{255}$`},
		{"plain text", `^plain text$`},
	}
	gen := NewSeededGenerator(7)
	for _, tc := range cases {
		e, err := parseExpression(tc.from)
		if err != nil {
			t.Errorf("%q: %v", tc.from, err)
			continue
		}
		if got := e.generate(gen); !regexp.MustCompile(tc.matches).MatchString(got) {
			t.Errorf("%q generated %q, which does not match %s", tc.from, got, tc.matches)
		}
	}
}

func TestGeneratorRejectsBadExpressions(t *testing.T) {
	for _, from := range []string{
		"", "[ABC]{3}", "[Z-A]{3}", "[a-z]{0}", "[a-z]{256}", "[a-z]{300}", "[a-z]", "[a-z]{8", "[a-z{8}",
		"[]{3}", `[\x]{3}`, "[a-]{3}", "[a-z_]{3}", "[a-z]{-1}", "[a-z]{+3}", "[a-z]{x}", "x[", "[0-z]{3}",
	} {
		if _, err := parseExpression(from); err == nil {
			t.Errorf("%q: no error", from)
		}
	}
}

// TestGeneratorRangesAreInclusive proves OpenShift's off-by-one bug is gone: every character
// of a range, its upper bound included, can appear.
func TestGeneratorRangesAreInclusive(t *testing.T) {
	for _, gen := range []Generator{CryptoGenerator, newRequestGenerator(), NewSeededGenerator(3)} {
		binary, _ := parseExpression("[0-1]{64}")
		got := binary.generate(gen)
		if !strings.Contains(got, "0") || !strings.Contains(got, "1") {
			t.Errorf("[0-1]{64} gave %q, want both digits", got)
		}
		letters, _ := parseExpression("[a-z]{255}")
		seen := map[rune]bool{}
		for range 20 {
			for _, r := range letters.generate(gen) {
				seen[r] = true
			}
		}
		if !seen['z'] || !seen['a'] || len(seen) != 26 {
			t.Errorf("[a-z] drew %d letters (z: %v), want all 26", len(seen), seen['z'])
		}
		digits, _ := parseExpression("[0-9]{255}")
		if !strings.Contains(digits.generate(gen), "9") {
			t.Errorf("[0-9]{255} never gave 9")
		}
	}
}

func TestGeneratedParameters(t *testing.T) {
	template := stencilTemplate(`[
		{"name":"PASSWORD","generate":"expression","from":"[a-zA-Z0-9]{16}"},
		{"name":"GIVEN","generate":"expression","from":"[a-z]{4}"},
		{"name":"DEFAULTED","value":"dflt","generate":"expression","from":"[a-z]{4}"},
		{"name":"EMPTIED","value":"dflt","generate":"expression","from":"[a-z]{4}"},
		{"name":"PORT","type":"int","generate":"expression","from":"[1-9]{1}[0-9]{3}"}]`,
		`[`+cm(`"p":"${PASSWORD}","g":"${GIVEN}","d":"${DEFAULTED}","e":"${EMPTIED}","port":"${{PORT}}"`)+`]`)
	r, errs := processCase(t, template, Request{
		Parameters: map[string]string{"GIVEN": "mine", "EMPTIED": ""},
		Generator:  CryptoGenerator,
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	values := map[string]string{}
	for _, p := range r.Parameters {
		values[p.Name] = p.Value
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9]{16}$`).MatchString(values["PASSWORD"]) {
		t.Errorf("PASSWORD = %q", values["PASSWORD"])
	}
	if values["GIVEN"] != "mine" || values["DEFAULTED"] != "dflt" {
		t.Errorf("caller value or default lost: %v", values)
	}
	if !regexp.MustCompile(`^[a-z]{4}$`).MatchString(values["EMPTIED"]) {
		t.Errorf("an empty caller value should be generated, got %q", values["EMPTIED"])
	}
	want := `"p":"` + values["PASSWORD"] + `","g":"mine","d":"dflt","e":"` + values["EMPTIED"] + `","port":` + values["PORT"]
	if got := objectsOf(r); got != cm(want) {
		t.Errorf("got  %s\nwant %s", got, cm(want))
	}
}
