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

package adopt

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// helmEncode stores a release as Helm's storage driver does: JSON, gzip, base64.
func helmEncode(t *testing.T, release any) []byte {
	t.Helper()
	raw, err := json.Marshal(release)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(base64.StdEncoding.EncodeToString(gzipped(t, raw)))
}

func gzipped(t *testing.T, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const webManifest = `---
# Source: web/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: web-db
---
# Source: web/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
`

func release(name string, revision int, status string) map[string]any {
	return map[string]any{"name": name, "version": revision, "namespace": "shop", "manifest": webManifest,
		"info":   map[string]any{"status": status, "description": "Install complete"},
		"chart":  map[string]any{"metadata": map[string]any{"name": "web", "version": "1.0.0"}, "templates": []any{map[string]any{"name": "x", "data": "AAAA"}}},
		"config": map[string]any{"replicas": 2}, "apply_method": "ssa"}
}

func record(t *testing.T, name string, revision int, status string) HelmRecord {
	return HelmRecord{Name: HelmRecordName(name, revision), Type: HelmReleaseSecretType,
		Labels:  map[string]string{"owner": "helm", "name": name, "version": strconv.Itoa(revision), "status": status},
		Release: helmEncode(t, release(name, revision, status))}
}

func TestDecodeHelmRecord(t *testing.T) {
	rel, err := DecodeHelmRecord("shop", record(t, "web", 3, "deployed"))
	if err != nil {
		t.Fatal(err)
	}
	if rel.Name != "web" || rel.Revision != 3 || rel.Status != "deployed" || rel.Chart != "web-1.0.0" || rel.ApplyMethod != "ssa" || rel.Manifest != webManifest {
		t.Errorf("got %+v", rel)
	}
	refs, err := ManifestObjects(rel.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	if got := refs[0].String() + "; " + refs[1].String(); got != "Secret web-db; Deployment.apps shop/web" {
		t.Errorf("objects: %s", got)
	}

	// Helm 3's first releases were stored without gzip: still read.
	plain := record(t, "web", 3, "deployed")
	raw, _ := json.Marshal(release("web", 3, "deployed"))
	plain.Release = []byte(base64.StdEncoding.EncodeToString(raw))
	if _, err := DecodeHelmRecord("shop", plain); err != nil {
		t.Errorf("uncompressed release: %v", err)
	}
}

// TestDecodeHelmRecordTampered checks that every damaged record is a clear error naming the
// record, and that a record inflating past the bound is refused without inflating it all.
func TestDecodeHelmRecordTampered(t *testing.T) {
	good := record(t, "web", 1, "deployed")
	with := func(f func(*HelmRecord)) HelmRecord {
		r := good
		r.Labels = map[string]string{}
		for k, v := range good.Labels {
			r.Labels[k] = v
		}
		f(&r)
		return r
	}
	bomb := gzipped(t, bytes.Repeat([]byte{' '}, 50<<20))
	truncated := gzipped(t, []byte(`{"name":"web","version":1}`))
	cases := []struct {
		name   string
		record HelmRecord
		want   string
	}{
		{"not base64", with(func(r *HelmRecord) { r.Release = []byte("H4sI%%%%not base64") }), "data.release is not base64: illegal base64 data at input byte 4"},
		{"corrupt gzip", with(func(r *HelmRecord) {
			r.Release = []byte(base64.StdEncoding.EncodeToString(truncated[:len(truncated)-9]))
		}), "data.release is not valid gzip: unexpected EOF"},
		{"gzip header only", with(func(r *HelmRecord) {
			r.Release = []byte(base64.StdEncoding.EncodeToString([]byte{0x1f, 0x8b, 0x08, 0, 1}))
		}), "data.release is not valid gzip"},
		{"50 MB inflated", with(func(r *HelmRecord) { r.Release = []byte(base64.StdEncoding.EncodeToString(bomb)) }), "data.release inflates to more than 16 MiB"},
		{"no JSON", with(func(r *HelmRecord) {
			r.Release = []byte(base64.StdEncoding.EncodeToString(gzipped(t, []byte("{not json"))))
		}), "data.release is not a Helm release: invalid JSON at byte 2"},
		{"empty", with(func(r *HelmRecord) { r.Release = nil }), "data.release is empty"},
		{"another type", with(func(r *HelmRecord) { r.Type = "Opaque" }), `type is "Opaque", not "helm.sh/release.v1"`},
		{"claims another release", with(func(r *HelmRecord) { r.Release = helmEncode(t, release("db", 1, "deployed")) }), `it holds revision 1 of release "db", which is stored as sh.helm.release.v1.db.v1`},
		{"labels disagree", with(func(r *HelmRecord) { r.Labels["version"] = "2" }), `its labels name="web" version="2" disagree`},
		{"another namespace", with(func(r *HelmRecord) {
			rel := release("web", 1, "deployed")
			rel["namespace"] = "prod"
			r.Release = helmEncode(t, rel)
		}), `it holds a release of namespace "prod"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeHelmRecord("shop", tc.record)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "Helm release record Secret shop/sh.helm.release.v1.web.v1") {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLatestHelmRelease(t *testing.T) {
	records := []HelmRecord{record(t, "web", 1, "superseded"), record(t, "web", 2, "deployed"), record(t, "other", 5, "deployed")}
	rel, names, err := LatestHelmRelease("shop", "web", records)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Revision != 2 || strings.Join(names, ",") != "sh.helm.release.v1.web.v1,sh.helm.release.v1.web.v2" {
		t.Errorf("revision %d, records %v", rel.Revision, names)
	}
	if _, _, err := LatestHelmRelease("shop", "web", append(records, record(t, "web", 3, "pending-upgrade"))); err == nil ||
		!strings.Contains(err.Error(), `revision 3 is "pending-upgrade", not "deployed"`) {
		t.Errorf("pending: %v", err)
	}
	if _, _, err := LatestHelmRelease("shop", "gone", records); err == nil || !strings.Contains(err.Error(), `Helm release "gone" has no record in namespace shop`) {
		t.Errorf("missing: %v", err)
	}
	bad := record(t, "web", 4, "deployed")
	bad.Labels["version"] = "x"
	if _, _, err := LatestHelmRelease("shop", "web", append(records, bad)); err == nil || !strings.Contains(err.Error(), `label version="x" does not match its name`) {
		t.Errorf("bad label: %v", err)
	}
}

func TestManifestObjects(t *testing.T) {
	refs, err := ManifestObjects("---\n\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: r}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 2 || refs[0].String() != "ConfigMap a" || refs[1].String() != "ClusterRole.rbac.authorization.k8s.io r" {
		t.Errorf("got %v", refs)
	}
	_, err = ManifestObjects("# Source: web/templates/a.yaml\nkind: ConfigMap\nmetadata: {name: a}\n---\n# Source: web/templates/b.yaml\napiVersion: v1\nkind: ConfigMap\n---\n- a list\n")
	for _, want := range []string{"document 0 (web/templates/a.yaml): apiVersion and kind are required", "document 1 (web/templates/b.yaml): ConfigMap has no metadata.name", "document 2: error unmarshaling JSON"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

// TestDecodeHelmRecordMemory: a record that inflates to 50 MB is refused having allocated
// about twice the bound, not the 50 MB.
func TestDecodeHelmRecordMemory(t *testing.T) {
	r := record(t, "web", 1, "deployed")
	r.Release = []byte(base64.StdEncoding.EncodeToString(gzipped(t, bytes.Repeat([]byte{' '}, 50<<20))))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := DecodeHelmRecord("shop", r); err == nil {
		t.Fatal("a 50 MB release was read")
	}
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("refusing a release of 50 MB inflated allocated %d MiB", got>>20)
	if got > 3*MaxHelmReleaseBytes {
		t.Errorf("more than 3 times the bound")
	}
}
