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

package gitops

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	env := Environment{"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_NAMESPACE": "prod", "KUBE_VERSION": ""}
	for in, want := range map[string]string{
		"":                      "",
		"plain":                 "plain",
		"$(ARGOCD_APP_NAME)-db": "shop-db",
		"$(ARGOCD_APP_NAME).$(ARGOCD_APP_NAMESPACE)":    "shop.prod",
		"$$(ARGOCD_APP_NAME)":                           "$(ARGOCD_APP_NAME)",
		"$(HOME) $(PATH) $(STENCIL_GENERATE_SEED_FILE)": "$(HOME) $(PATH) $(STENCIL_GENERATE_SEED_FILE)",
		"v$(KUBE_VERSION)":                              "v",
		"$":                                             "$",
		"a$b":                                           "a$b",
		"$(ARGOCD_APP_NAME":                             "$(ARGOCD_APP_NAME",
		"$$$(ARGOCD_APP_NAME)":                          "$shop",
	} {
		got, err := env.Expand(in)
		if err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := env.Expand("$(ARGOCD_APP_REVISION)"); err == nil || !strings.Contains(err.Error(), "ARGOCD_APP_REVISION) is not set") {
		t.Errorf("an unset build variable: %v", err)
	}
	got := EnvironmentFrom(func(name string) (string, bool) { return "x-" + name, true })
	if len(got) != len(BuildVariables) || got["HOME"] != "" {
		t.Errorf("EnvironmentFrom read %v: only the build variables", got)
	}
}

func TestAnnotate(t *testing.T) {
	const key, value = "templates.stencil.dev/render-digest", "sha256:00"
	for _, c := range []struct{ in, want string }{
		{`{}`, `{"metadata":{"annotations":{"` + key + `":"` + value + `"}}}`},
		{`{"kind":"A"}`, `{"kind":"A","metadata":{"annotations":{"` + key + `":"` + value + `"}}}`},
		{`{"metadata":{}}`, `{"metadata":{"annotations":{"` + key + `":"` + value + `"}}}`},
		{`{"metadata":{"name":"x"},"data":{"a":"}"}}`, `{"metadata":{"name":"x","annotations":{"` + key + `":"` + value + `"}},"data":{"a":"}"}}`},
		{`{"metadata":{"annotations":{"a":"b"}}}`, `{"metadata":{"annotations":{"a":"b","` + key + `":"` + value + `"}}}`},
		{`{"metadata":{"annotations":{}}}`, `{"metadata":{"annotations":{"` + key + `":"` + value + `"}}}`},
		{`{"metadata":{"annotations":null}}`, `{"metadata":{"annotations":{"` + key + `":"` + value + `"}}}`},
		{`{"metadata":{"annotations":{"` + key + `":"old","z":"1"}}}`, `{"metadata":{"annotations":{"` + key + `":"` + value + `","z":"1"}}}`},
		{`{"a\"metadata":{"x":1},"metadata":{"labels":{"annotations":"no"}}}`, `{"a\"metadata":{"x":1},"metadata":{"labels":{"annotations":"no"},"annotations":{"` + key + `":"` + value + `"}}}`},
		{`{"metad\u0061ta":{"name":"x"}}`, `{"metad\u0061ta":{"name":"x","annotations":{"` + key + `":"` + value + `"}}}`},
	} {
		got, err := annotate([]byte(c.in), key, value)
		if err != nil || string(got) != c.want {
			t.Errorf("annotate(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("annotate(%s) is not JSON: %s", c.in, got)
		}
	}
	for _, bad := range []string{`[]`, `{"metadata":"x"}`, `{"metadata":null}`} {
		if _, err := annotate([]byte(bad), key, value); err == nil {
			t.Errorf("annotate(%s) took an object whose metadata is not one", bad)
		}
	}
}

func TestDerivedValues(t *testing.T) {
	seed := Seed("0123456789abcdef0123456789abcdef")
	const from = "[a-zA-Z0-9]{24}"
	ctx := []string{"render", "shop", "prod"}
	first, err := derivedValue(seed, ctx, "PASSWORD", from)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9]{24}$`).MatchString(first) {
		t.Fatalf("%q does not match %s", first, from)
	}
	again, _ := derivedValue(seed, ctx, "PASSWORD", from)
	if again != first {
		t.Errorf("the same inputs gave %q then %q", first, again)
	}
	// Anything that identifies the value changes it: another seed, application, namespace,
	// render, parameter or expression.
	others := map[string][]string{}
	other := func(name string, s Seed, c []string, param, f string) {
		v, err := derivedValue(s, c, param, f)
		if err != nil {
			t.Fatal(err)
		}
		if v == first || (len(v) >= 24 && v[:24] == first) {
			t.Errorf("%s gave the same value %q", name, v)
		}
		others[v] = append(others[v], name)
	}
	other("another seed", Seed("0123456789abcdef0123456789abcdeX"), ctx, "PASSWORD", from)
	other("another application", seed, []string{"render", "shop2", "prod"}, "PASSWORD", from)
	other("another namespace", seed, []string{"render", "shop", "staging"}, "PASSWORD", from)
	other("another render", seed, []string{"other", "shop", "prod"}, "PASSWORD", from)
	other("another parameter", seed, ctx, "PASSWORD2", from)
	other("another expression", seed, ctx, "PASSWORD", "[a-zA-Z0-9]{25}")
	// Fields are length-prefixed: moving a boundary changes the value.
	other("a moved boundary", seed, []string{"rende", "rshop", "prod"}, "PASSWORD", from)
	for v, names := range others {
		if len(names) > 1 {
			t.Errorf("%v all gave %q", names, v)
		}
	}
	if err := CheckSeed(Seed("short")); err == nil {
		t.Error("a 5-byte seed was accepted")
	}
	if err := CheckSeed(seed); err != nil {
		t.Error(err)
	}
}

// TestKeyedStreamIsHMACCounterMode checks the stream against HMAC-SHA256 computed here: block
// i is HMAC(key, big-endian i), read 8 bytes at a time.
func TestKeyedStreamIsHMACCounterMode(t *testing.T) {
	key := []byte("a key of the stream")
	s := &keyedStream{mac: hmac.New(sha256.New, key)}
	var want []byte
	for i := uint64(0); i < 3; i++ {
		m := hmac.New(sha256.New, key)
		var c [8]byte
		binary.BigEndian.PutUint64(c[:], i)
		m.Write(c[:])
		want = m.Sum(want)
	}
	for i := 0; i < len(want)/8; i++ {
		if got, w := s.Uint64(), binary.BigEndian.Uint64(want[i*8:]); got != w {
			t.Fatalf("word %d: %x, want %x", i, got, w)
		}
	}
}

func TestValidate(t *testing.T) {
	r := func(spec string) string {
		return "apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nspec:\n" + spec
	}
	for _, c := range []struct {
		file  string
		wants []string // each a line:col and a part of the message
	}{
		{r("  templateFile: t.yaml\n"), nil},
		{r("  templateFile: ../t.yaml\n"), []string{"4:3", "spec.templateFile", ".. is refused"}},
		{r("  templateFile: a/../../t.yaml\n"), []string{"4:3", ".. is refused"}},
		{r("  templateFile: /etc/passwd\n"), []string{"4:3", "not absolute"}},
		{r("  valuesFiles: [a.yaml, ../b.yaml]\n  templateFile: t.yaml\n"), []string{"4:25", "spec.valuesFiles[1]"}},
		{r("  parameters: {A: b}\n"), []string{"spec.templateFile: Required"}},
		{r("  templateFile: t.yaml\n  templateRef: {namespace: x, name: shop, hash: sha256:00}\n"), []string{"give exactly one", "5:43", "spec.templateRef.hash"}},
		{r("  templateFile: t.yaml\n  paramters: {A: b}\n"), []string{"5:3", "spec.paramters: Forbidden: unknown field"}},
		{r("  templateFile: t.yaml\n  parameters: {A: 3}\n"), []string{"5:16", "spec.parameters[A]", "must be a string"}},
		{"apiVersion: v1\nkind: ConfigMap\nspec:\n  templateFile: t.yaml\n", []string{"1:1", "apiVersion", "2:1", "kind"}},
		{"a: [\n", []string{"yaml: line"}},
		{r("  templateFile: t.yaml\n  properties: {not-an-identifier: x}\n"), []string{"spec.properties[not-an-identifier]"}},
	} {
		_, err := DecodeRenderFile("r.yaml", []byte(c.file))
		if c.wants == nil {
			if err != nil {
				t.Errorf("%q: %v", c.file, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q was accepted", c.file)
			continue
		}
		text := placed(err)
		for _, w := range c.wants {
			if !strings.Contains(text, w) {
				t.Errorf("%q: %q lacks %q", c.file, text, w)
			}
		}
	}
}

// placed writes the problems of err as the CLI places them, for tests: line:col of each.
func placed(err error) string {
	p, ok := err.(*Problems)
	if !ok {
		return err.Error()
	}
	var b strings.Builder
	for _, e := range p.Errors {
		if le, ok := e.(*LineError); ok {
			b.WriteString(le.Error() + "\n")
			continue
		}
		path, _, _ := strings.Cut(e.Error(), ": ")
		if p.Positions != nil {
			if at := p.Positions.Locate(path); at != "" {
				b.WriteString(at + ": ")
			}
		}
		b.WriteString(e.Error() + "\n")
	}
	return b.String()
}
