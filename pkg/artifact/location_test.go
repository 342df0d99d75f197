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

package artifact

import (
	"strings"
	"testing"
)

func TestURLPathRoundTrip(t *testing.T) {
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if token == other || !ValidToken(token) || len(token) != 43 {
		t.Fatalf("tokens %q %q", token, other)
	}
	digest := "sha256:" + strings.Repeat("ab", 32)
	p := URLPath("demo", "web.v1", token, digest)
	if p != "/templateinstance/demo/web.v1/"+token+"/"+strings.Repeat("ab", 32)+".tar.gz" {
		t.Errorf("URLPath: %q", p)
	}
	if got := Path("demo", "web.v1", digest); got != "templateinstance/demo/web.v1/"+strings.Repeat("ab", 32)+".tar.gz" {
		t.Errorf("Path: %q", got)
	}
	loc, ok := ParseURLPath(p)
	if !ok || loc != (Location{Namespace: "demo", Name: "web.v1", Token: token, Digest: digest}) {
		t.Errorf("ParseURLPath: %+v %v", loc, ok)
	}
	hex := strings.Repeat("ab", 32)
	for _, bad := range []string{
		"", "/", "templateinstance/demo/web/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/web/" + token + "/" + strings.ToUpper(hex) + ".tar.gz",
		"/templateinstance/demo/web/" + token + "/" + hex[:63] + ".tar.gz",
		"/templateinstance/demo/web/" + token[:42] + "/" + hex + ".tar.gz",
		"/templateinstance/demo/web/" + token + "=/" + hex + ".tar.gz",
		"/templateinstance/../web/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/../" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/./" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/web%2f..%2f/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo_x/web/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/web/" + token + "/" + hex + ".tar.gz/x",
		"/other/demo/web/" + token + "/" + hex + ".tar.gz",
	} {
		if loc, ok := ParseURLPath(bad); ok {
			t.Errorf("ParseURLPath(%q) = %+v", bad, loc)
		}
	}
	for _, bad := range []string{"", strings.Repeat("A", 42), strings.Repeat("A", 44), strings.Repeat("+", 43), strings.Repeat("A", 42) + "B"} {
		if ValidToken(bad) {
			t.Errorf("ValidToken(%q)", bad)
		}
	}
}
