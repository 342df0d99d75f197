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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

func configMap(namespace, name, value string) Object {
	return Object{Kind: "ConfigMap", Namespace: namespace, Name: name,
		JSON: fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q},"data":{"value":%q}}`, name, namespace, value)}
}

func sample() []Object {
	return []Object{
		configMap("demo", "b", "2"),
		{Group: "apps", Kind: "Deployment", Namespace: "demo", Name: "web",
			JSON: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"demo"},"spec":{"replicas":3}}`)},
		configMap("demo", "a", "1"),
		{Kind: "Namespace", Name: "demo", JSON: []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}}`)},
	}
}

// entry is one file of an archive as read back.
type entry struct {
	header tar.Header
	body   []byte
}

func unpack(t *testing.T, archive []byte) (*gzip.Reader, []entry) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{header: *h, body: body})
	}
	return zr, out
}

func TestBuildPacksOneSortedFilePerObject(t *testing.T) {
	a, err := Build(sample(), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(a.Archive)
	if want := "sha256:" + hex.EncodeToString(sum[:]); a.Digest != want || a.Hex() != hex.EncodeToString(sum[:]) {
		t.Errorf("digest %q (hex %q), want %q", a.Digest, a.Hex(), want)
	}
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(a.Digest) {
		t.Errorf("digest %q is not in Flux's form", a.Digest)
	}
	zr, entries := unpack(t, a.Archive)
	if zr.Name != "" || !zr.ModTime.IsZero() || zr.Comment != "" || zr.Extra != nil {
		t.Errorf("gzip header carries varying data: %+v", zr.Header)
	}
	// Core kinds before apps, then by kind, namespace and name.
	wantNames := []string{"000001-configmap.yaml", "000002-configmap.yaml", "000003-namespace.yaml", "000004-deployment.yaml"}
	wantObjects := []string{"a", "b", "demo", "web"}
	if len(entries) != len(wantNames) || a.Objects != 4 {
		t.Fatalf("%d entries (%d objects), want %d", len(entries), a.Objects, len(wantNames))
	}
	var content int64
	for i, e := range entries {
		h := e.header
		if h.Name != wantNames[i] || h.Typeflag != tar.TypeReg || h.Mode != 0o644 || h.Uid != 0 || h.Gid != 0 ||
			h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(time.Unix(0, 0)) {
			t.Errorf("entry %d: %+v", i, h)
		}
		var obj struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if err := yaml.Unmarshal(e.body, &obj); err != nil {
			t.Fatalf("%s: %v", h.Name, err)
		}
		if obj.Metadata.Name != wantObjects[i] {
			t.Errorf("%s holds %q, want %q", h.Name, obj.Metadata.Name, wantObjects[i])
		}
		content += int64(len(e.body))
	}
	if a.ContentBytes != content {
		t.Errorf("ContentBytes %d, the files hold %d", a.ContentBytes, content)
	}
	if got := Revision("r3", a.Digest); got != "r3@"+a.Digest {
		t.Errorf("Revision: %q", got)
	}
}

// The same objects in any order give the same bytes; any change of one gives others.
func TestBuildIsDeterministic(t *testing.T) {
	first, err := Build(sample(), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	reversed := sample()
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	for i := 0; i < 100; i++ {
		in := sample()
		if i%2 == 1 {
			in = reversed
		}
		again, err := Build(in, DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Archive, first.Archive) {
			t.Fatalf("build %d differs: %s, first %s", i, again.Digest, first.Digest)
		}
	}
	changed := sample()
	changed[0] = configMap("demo", "b", "3")
	other, err := Build(changed, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if other.Digest == first.Digest {
		t.Error("a changed value kept the digest")
	}
}

func TestBuildLimits(t *testing.T) {
	many := make([]Object, 101)
	for i := range many {
		many[i] = configMap("demo", fmt.Sprintf("cm-%d", i), "x")
	}
	random := make([]byte, 4096)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	incompressible := []Object{configMap("demo", "noise", hex.EncodeToString(random))}
	for _, tc := range []struct {
		name    string
		objects []Object
		limits  Limits
		want    string
	}{
		{"objects", many, Limits{MaxObjects: 100}, "the render has 101 objects; a published artifact holds at most 100"},
		{"content", many, Limits{MaxContentBytes: 1000}, "the render's artifact is over 1000 bytes of YAML; a published artifact holds at most 1000 bytes of YAML"},
		{"compressed", incompressible, Limits{MaxArchiveBytes: 2000}, "the render's artifact is over 2000 bytes compressed; a published artifact holds at most 2000 bytes compressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Build(tc.objects, tc.limits)
			if err == nil || !IsLimitError(err) || err.Error() != tc.want {
				t.Fatalf("Build: %v, %v; want %q", a, err, tc.want)
			}
		})
	}
	if _, err := Build(many, Limits{MaxObjects: 101, MaxContentBytes: 1 << 20, MaxArchiveBytes: 1 << 20}); err != nil {
		t.Errorf("at the limits: %v", err)
	}
}

func TestBuildRefusesAnObjectThatIsNotJSON(t *testing.T) {
	_, err := Build([]Object{{Kind: "ConfigMap", Name: "broken", JSON: []byte(`{"a":`)}}, DefaultLimits)
	if err == nil || !strings.Contains(err.Error(), "ConfigMap broken") || IsLimitError(err) {
		t.Errorf("Build: %v", err)
	}
}

func TestFileKind(t *testing.T) {
	for in, want := range map[string]string{"ConfigMap": "configmap", "": "object", "../..": "object", "Ünïcode9": "ncode9",
		strings.Repeat("A", 100): strings.Repeat("a", 63)} {
		if got := fileKind(in); got != want {
			t.Errorf("fileKind(%q) = %q, want %q", in, got, want)
		}
	}
}
