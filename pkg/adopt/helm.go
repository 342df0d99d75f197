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
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Helm stores each revision of a release in a Secret of this type, named
// sh.helm.release.v1.<release>.v<revision>, labelled owner=helm, name=<release>,
// version=<revision> and status=<status>; Helm 3 and Helm 4 share the format.
const (
	HelmReleaseSecretType = "helm.sh/release.v1"
	helmRecordPrefix      = "sh.helm.release.v1."
	helmOwnerLabel        = "owner"
	helmNameLabel         = "name"
	helmVersionLabel      = "version"
	helmStatusLabel       = "status"
	// HelmDeployed is the status of the revision a release runs.
	HelmDeployed = "deployed"
)

// MaxHelmReleaseBytes bounds the JSON one release record decompresses to. A record is a
// Secret (at most about 1 MiB in etcd) holding gzip, which a crafted record turns into
// gigabytes; the releases of real charts, templates and files included, are a few MiB.
const MaxHelmReleaseBytes = 16 << 20

// HelmRecord is one Secret of a release as its reader got it.
type HelmRecord struct {
	// Name is the Secret's name.
	Name string
	// Type is the Secret's type.
	Type string
	// Labels are the Secret's labels.
	Labels map[string]string
	// Release is the Secret's data.release: base64 text of the gzipped release JSON.
	Release []byte
}

// HelmRelease is what adoption needs of one revision of a release.
type HelmRelease struct {
	Name      string
	Namespace string
	Revision  int
	Status    string
	// Chart is the chart's name and version, "web-1.2.0".
	Chart string
	// ApplyMethod is how Helm wrote the objects: "ssa", "csa", or empty for releases
	// written before Helm 4, which always used client-side apply.
	ApplyMethod string
	// Manifest is every object the release rendered (hooks aside), as YAML documents.
	Manifest string
}

// HelmRecordName names the Secret of one revision of a release.
func HelmRecordName(release string, revision int) string {
	return helmRecordPrefix + release + ".v" + strconv.Itoa(revision)
}

// HelmRecordSelector selects every record of a release in its namespace.
func HelmRecordSelector(release string) string {
	return helmOwnerLabel + "=helm," + helmNameLabel + "=" + release
}

// releaseJSON is the part of Helm's release record adoption reads; the rest (chart files,
// values, hooks) is skipped.
type releaseJSON struct {
	Name string `json:"name"`
	Info *struct {
		Status string `json:"status"`
	} `json:"info"`
	Chart *struct {
		Metadata *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"metadata"`
	} `json:"chart"`
	Manifest    string `json:"manifest"`
	Version     int    `json:"version"`
	Namespace   string `json:"namespace"`
	ApplyMethod string `json:"apply_method"`
}

var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// DecodeHelmRecord reads the release of one record. Every way a record can be damaged is an
// error naming the record: data.release that is not base64, gzip that does not inflate, more
// than MaxHelmReleaseBytes of JSON, JSON that is no release, or a release that is not the one
// the record's name and labels say (a record edited to claim objects of another release).
// As Helm does, data that does not start with gzip's magic bytes is read as plain JSON: the
// records of Helm 3's first releases were not compressed.
func DecodeHelmRecord(namespace string, r HelmRecord) (*HelmRelease, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("Helm release record Secret %s/%s: %s", namespace, r.Name, fmt.Sprintf(format, args...))
	}
	if r.Type != HelmReleaseSecretType {
		return nil, bad("type is %q, not %q", r.Type, HelmReleaseSecretType)
	}
	if len(r.Release) == 0 {
		return nil, bad("data.release is empty")
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(r.Release)))
	n, err := base64.StdEncoding.Decode(raw, bytes.TrimSpace(r.Release))
	if err != nil {
		return nil, bad("data.release is not base64: %v", err)
	}
	raw = raw[:n]
	if bytes.HasPrefix(raw, gzipMagic) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, bad("data.release is not valid gzip: %v", err)
		}
		inflated, more, err := readAtMost(zr, MaxHelmReleaseBytes)
		if err != nil {
			return nil, bad("data.release is not valid gzip: %v", err)
		}
		if more {
			return nil, bad("data.release inflates to more than %d MiB, more than any release adoption reads", MaxHelmReleaseBytes>>20)
		}
		raw = inflated
	} else if len(raw) > MaxHelmReleaseBytes {
		return nil, bad("data.release holds more than %d MiB", MaxHelmReleaseBytes>>20)
	}
	var rel releaseJSON
	if err := json.Unmarshal(raw, &rel); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, bad("data.release is not a Helm release: invalid JSON at byte %d: %v", syntax.Offset, err)
		}
		return nil, bad("data.release is not a Helm release: %v", err)
	}
	out := &HelmRelease{Name: rel.Name, Namespace: rel.Namespace, Revision: rel.Version, Manifest: rel.Manifest, ApplyMethod: rel.ApplyMethod}
	if rel.Info != nil {
		out.Status = rel.Info.Status
	}
	if rel.Chart != nil && rel.Chart.Metadata != nil {
		out.Chart = rel.Chart.Metadata.Name + "-" + rel.Chart.Metadata.Version
	}
	switch {
	case out.Name == "" || out.Revision <= 0:
		return nil, bad("the release names no release or revision")
	case r.Name != HelmRecordName(out.Name, out.Revision):
		return nil, bad("it holds revision %d of release %q, which is stored as %s", out.Revision, out.Name, HelmRecordName(out.Name, out.Revision))
	case r.Labels[helmNameLabel] != out.Name || r.Labels[helmVersionLabel] != strconv.Itoa(out.Revision):
		return nil, bad("its labels name=%q version=%q disagree with the release it holds (%s revision %d)",
			r.Labels[helmNameLabel], r.Labels[helmVersionLabel], out.Name, out.Revision)
	case out.Namespace != "" && out.Namespace != namespace:
		return nil, bad("it holds a release of namespace %q", out.Namespace)
	}
	if out.Namespace == "" {
		out.Namespace = namespace
	}
	return out, nil
}

// LatestHelmRelease picks the release's newest revision among its records and decodes it; it
// must be deployed (a pending or failed revision is Helm's to finish first). It also returns
// the names of every record of the release, which adoption removes once the objects are
// Stencil's. Only the newest record is decoded: the others are history.
func LatestHelmRelease(namespace, release string, records []HelmRecord) (*HelmRelease, []string, error) {
	var names []string
	latest, latestRevision := -1, 0
	for i, r := range records {
		if r.Labels[helmOwnerLabel] != "helm" || r.Labels[helmNameLabel] != release {
			continue
		}
		revision, err := strconv.Atoi(r.Labels[helmVersionLabel])
		if err != nil || revision <= 0 || r.Name != HelmRecordName(release, revision) {
			return nil, nil, fmt.Errorf("Helm release record Secret %s/%s: label version=%q does not match its name", namespace, r.Name, r.Labels[helmVersionLabel])
		}
		names = append(names, r.Name)
		if revision > latestRevision {
			latest, latestRevision = i, revision
		}
	}
	if latest < 0 {
		return nil, nil, fmt.Errorf("Helm release %q has no record in namespace %s (no Secret labelled %s): %w", release, namespace, HelmRecordSelector(release), ErrSourceGone)
	}
	sort.Strings(names)
	rel, err := DecodeHelmRecord(namespace, records[latest])
	if err != nil {
		return nil, nil, err
	}
	if rel.Status != HelmDeployed {
		return nil, nil, fmt.Errorf("Helm release %s/%s: revision %d is %q, not %q: let Helm finish or roll it back before adopting it",
			namespace, release, rel.Revision, rel.Status, HelmDeployed)
	}
	return rel, names, nil
}

// readAtMost reads r to its end or to max bytes, whichever is first, into a buffer that
// doubles but never past max (what it allocates stays under twice max whatever the stream
// claims; io.ReadAll's growth has no such bound), and says whether r had more.
func readAtMost(r io.Reader, max int) (data []byte, more bool, err error) {
	buf := make([]byte, 0, min(64<<10, max))
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= max {
				var one [1]byte
				n, err := io.ReadFull(r, one[:])
				if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
					return nil, false, err
				}
				return buf, n > 0, nil
			}
			grown := make([]byte, len(buf), min(2*cap(buf), max))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}
