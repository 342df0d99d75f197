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
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// fast runs the fast reader alone: ok is false when it leaves the input to YAMLToJSON, or
// refuses it for its expansion (expanded).
func fast(data []byte) ([]byte, bool) {
	p := parser{src: data, positions: true}
	out, err := p.read()
	return out, err == nil
}

// unbounded runs the fast reader without the bound on what it writes, and says how much it
// wrote, what it took back included; err is errBail when it leaves the input to YAMLToJSON.
func unbounded(data []byte) (out []byte, written int, err error) {
	p := parser{src: data, limit: math.MaxInt}
	out, err = p.read()
	return out, p.written, err
}

// expanded checks a refusal for expansion: without the bound, the fast reader writes more
// than MaxJSONBytes of data, or sigs.k8s.io/yaml does. It reports whether err is one.
func expanded(t testing.TB, data []byte, err error) bool {
	var refusal *ExpansionError
	if !errors.As(err, &refusal) {
		return false
	}
	limit := MaxJSONBytes(len(data))
	if refusal.Limit != limit || refusal.Source != len(data) {
		t.Fatalf("%q: refused with %v, whose numbers are not those of the document (%d bytes, limit %d)", data, err, len(data), limit)
	}
	if _, written, uerr := unbounded(data); uerr == nil && written > limit {
		return true
	}
	if want, _ := yaml.YAMLToJSON(data); len(want) > limit {
		return true
	}
	t.Fatalf("%q: refused for its expansion (%v), yet neither reader writes more than %d bytes", data, err, limit)
	return true
}

// sameAsSigs checks that YAMLToJSON and Read give what sigs.k8s.io/yaml gives for data,
// bytes or error, when the fast reader answers; what it leaves, sigs.k8s.io/yaml answers
// itself (and may answer at random: keys that are one string but not one YAML value are
// written in the order of a Go map).
func sameAsSigs(t testing.TB, data []byte) (fastPath bool) {
	if _, err := YAMLToJSON(data); expanded(t, data, err) {
		return false
	}
	sameStrictAsSigs(t, data)
	out, fastPath := fast(data)
	if !fastPath {
		return false
	}
	want, wantErr := yaml.YAMLToJSON(data)
	if wantErr != nil || !bytes.Equal(out, want) {
		t.Fatalf("%q: the fast reader gives %s,\nsigs.k8s.io/yaml %s (error %v)", data, out, want, wantErr)
	}
	if got, err := YAMLToJSON(data); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%q: YAMLToJSON gives %s, %v", data, got, err)
	}
	// A strict decoder skips sigs.k8s.io/yaml's strict pass only when no key repeats: every
	// document it refuses must be said to repeat one.
	if got, repeats, err := YAMLToJSONRepeats(data); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%q: YAMLToJSONRepeats gives %s, %v", data, got, err)
	} else if _, strictErr := yaml.YAMLToJSONStrict(data); strictErr != nil && !repeats {
		t.Fatalf("%q: sigs.k8s.io/yaml's strict conversion refuses it (%v), yet no key is said to repeat", data, strictErr)
	}
	if !looksLikeJSON(data) {
		if x, err := Read("f.yaml", data); err != nil || !bytes.Equal(x.JSON(), want) {
			t.Fatalf("%q: Read gives %v, %v", data, x, err)
		}
	}
	return true
}

// sameStrictAsSigs checks that the strict fast reader, where it answers, gives what
// sigs.k8s.io/yaml's YAMLToJSONStrict gives: the same bytes, or an error in the same words
// (the keys a mapping repeats, at the lines of their values, in the decoder's order).
func sameStrictAsSigs(t testing.TB, data []byte) {
	p := parser{src: data, strict: true}
	got, err := p.read()
	if err == errBail {
		return
	}
	want, wantErr := yaml.YAMLToJSONStrict(data)
	if !bytes.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%q: the strict fast reader gives %s (error %v),\nsigs.k8s.io/yaml %s (error %v)", data, got, err, want, wantErr)
	}
	if got, err := YAMLToJSONStrict(data); !bytes.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%q: YAMLToJSONStrict gives %s (error %v)", data, got, err)
	}
}

// The fast reader fails only by leaving the input to sigs.k8s.io/yaml: every error is its.
func TestErrorsAreYAMLToJSONs(t *testing.T) {
	for _, in := range []string{"a: .inf\n", "a: *nope\n", "a: [1, 2\n", "~: a\n"} {
		_, want := yaml.YAMLToJSON([]byte(in))
		if _, err := YAMLToJSON([]byte(in)); err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%q: error %v, want %v", in, err, want)
		}
	}
}

func TestYAMLToJSONCases(t *testing.T) {
	for _, c := range yamlCases {
		if fastPath := sameAsSigs(t, []byte(c.in)); fastPath != c.fast {
			t.Errorf("%q: fast path %v, want %v", c.in, fastPath, c.fast)
		}
	}
}

// FuzzYAMLToJSON is the differential fuzz test: YAMLToJSON (and Read) give the bytes
// sigs.k8s.io/yaml gives, or fail where it fails, on any input.
func FuzzYAMLToJSON(f *testing.F) {
	for _, c := range yamlCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		sameAsSigs(t, data)
		g := yamlGen{choices: data}
		sameAsSigs(t, []byte(g.doc()))
	})
}

// TestYAMLToJSONStrictCases: the strict fast reader words the refusal of repeated keys itself
// (cases of sameStrictAsSigs), and leaves to sigs.k8s.io/yaml only the values whose line it
// does not keep (anchored, or empty).
func TestYAMLToJSONStrictCases(t *testing.T) {
	for _, c := range []struct {
		in   string
		fast bool
	}{
		{"a: 1\nb: 2\n", true},
		{"a: 1\na: 2\n", true},
		{"a: 1\nb:\n  c: x\n  c: y\n  c: z\na:\n  - 1\n", true},
		{"x: &m {k: 1}\ny:\n  <<: *m\n  k: 2\n", true},
		{"x: &m {k: 1}\ny:\n  k: 2\n  <<: [*m, {k: 3}]\n", true},
		{"1: a\n0x1: b\ntrue: c\nyes: d\n1.5: e\n1.50: f\n", true},
		{"a: {b: 1, b: \"two\", b: [3]}\n", true},
		{"x: &a {k: 1, k: 2}\ny: *a\nz: *a\n", true},
		{"\"a\tb\": 1\n'a\tb': |\n  text\n", true},
		{"a: 1\na:\n", false},
		{"a: 1\na: &x 2\n", false},
	} {
		p := parser{src: []byte(c.in), strict: true}
		if _, err := p.read(); (err != errBail) != c.fast {
			t.Errorf("%q: fast %v (%v), want %v", c.in, err != errBail, err, c.fast)
		}
		sameStrictAsSigs(t, []byte(c.in))
		if got, want := fmt.Sprint(YAMLToJSONStrict([]byte(c.in))), fmt.Sprint(yaml.YAMLToJSONStrict([]byte(c.in))); got != want {
			t.Errorf("%q: YAMLToJSONStrict gives %s, sigs.k8s.io/yaml %s", c.in, got, want)
		}
	}
}

func TestYAMLToJSONRepeats(t *testing.T) {
	for in, want := range map[string]bool{
		"a: 1\nb: 2\n":                         false,
		"a: 1\na: 2\n":                         true,
		"x: &m {k: 1}\ny:\n  <<: *m\n  k: 2\n": true,
		"x: &m {k: 1}\ny:\n  <<: *m\n  j: 2\n": false,
		"a: {b: 1, c: {b: 2}}\n":               false,
	} {
		_, repeats, err := YAMLToJSONRepeats([]byte(in))
		if err != nil || repeats != want {
			t.Errorf("%q: repeats %v (%v), want %v", in, repeats, err, want)
		}
	}
}

// printableByByte is printable without its eight-byte steps: what they must agree with.
func printableByByte(src []byte) (ok, tabs bool) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c >= 0x20 && c < 0x7f || c == '\n':
			i++
			continue
		case c == '\t':
			tabs = true
			i++
			continue
		case c == '\r' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			continue
		case c < 0x80:
			return false, tabs
		}
		r, size := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return false, tabs
		case r == 0xFEFF && i == 0:
		case r < 0xA0, r == 0x2028, r == 0x2029, r == 0xFEFF, r > 0xFFFD && r < 0x10000:
			return false, tabs
		}
		i += size
	}
	return true, tabs
}

// TestLineFeeds checks lineFeeds on every byte at every place of a word among line feeds and
// other bytes.
func TestLineFeeds(t *testing.T) {
	for _, fill := range []byte{'\n', 0, 0x0b, 0x8a, 0x7f, ' ', 0xff} {
		for at := 0; at < 8; at++ {
			for c := 0; c < 256; c++ {
				var word [8]byte
				for i := range word {
					word[i] = fill
				}
				word[at] = byte(c)
				var want uint64
				for i, b := range word {
					if b == '\n' {
						want |= 0x80 << (8 * i)
					}
				}
				if got := lineFeeds(binary.LittleEndian.Uint64(word[:])); got != want {
					t.Fatalf("lineFeeds(%q) = %#x, want %#x", word, got, want)
				}
			}
		}
	}
}

// TestPrintableByWords puts every byte at every place of a word and its neighbours, in text
// of each kind printable meets, and compares with the byte-by-byte reading.
func TestPrintableByWords(t *testing.T) {
	for _, base := range []string{"abcdefghijklmnopqrstuvwx", "key: value\n  k: 'v'\n", "caf\u00e9 na\u00efve \u2028 text", "a\n\nb\n\n\n\nc:\n d\n\n\n\n\n\n\n\ne\n"} {
		for at := 0; at < len(base); at++ {
			for c := 0; c < 256; c++ {
				in := []byte(base)
				in[at] = byte(c)
				gotOK, gotTabs := printable(in)
				wantOK, wantTabs := printableByByte(in)
				if gotOK != wantOK || gotTabs != wantTabs {
					t.Fatalf("%q: printable says %v, %v; byte by byte %v, %v", in, gotOK, gotTabs, wantOK, wantTabs)
				}
			}
		}
	}
}
