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

// Package artifact packs rendered objects into the artifact a GitOps controller fetches: a
// gzip-compressed tarball with one YAML file per object, the same bytes for the same objects
// (sorted entries, fixed times, modes and owners, a fixed gzip header), named by its SHA-256
// digest in the form Flux's Artifact API gives it ("sha256:<hex>"), with a revision
// "<name>@sha256:<hex>" (Flux RFC-0005). It is a pure library: it imports nothing of the server.
package artifact

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// Object is one rendered object to pack: its identity and its JSON.
type Object struct {
	// Group, Kind, Namespace and Name identify the object; they order the archive's files.
	Group, Kind, Namespace, Name string
	// JSON is the object as rendered.
	JSON []byte
}

// Limits bound what one artifact may hold, so that neither the server that packs and stores
// it nor the controller that fetches, unpacks and applies it runs out of memory on a render.
type Limits struct {
	// MaxObjects is the most objects an artifact holds.
	MaxObjects int
	// MaxContentBytes is the most bytes of YAML it holds, unpacked.
	MaxContentBytes int64
	// MaxArchiveBytes is the largest tarball it may be, compressed.
	MaxArchiveBytes int64
}

// DefaultLimits fit an artifact into one ConfigMap (1 MiB of data) with room for its metadata,
// and keep what kustomize-controller unpacks and builds from it to 32 MiB of YAML.
var DefaultLimits = Limits{MaxObjects: 10000, MaxContentBytes: 32 << 20, MaxArchiveBytes: 1000000}

// Artifact is a packed render.
type Artifact struct {
	// Archive is the tar.gz.
	Archive []byte
	// Digest is the SHA-256 of Archive, as "sha256:<64 hex digits>".
	Digest string
	// Objects is how many objects Archive holds; ContentBytes their YAML's size unpacked.
	Objects      int
	ContentBytes int64
}

// Hex is the digest's hexadecimal part, which names the archive's file.
func (a *Artifact) Hex() string { return strings.TrimPrefix(a.Digest, DigestPrefix) }

// DigestPrefix is the algorithm part of a digest: Flux's canonical algorithm.
const DigestPrefix = "sha256:"

// Digest returns the digest of data as Flux writes one.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return DigestPrefix + hex.EncodeToString(sum[:])
}

// Revision names a render as Flux's revisions name an artifact: a human-readable name, "@",
// and the digest.
func Revision(name, digest string) string { return name + "@" + digest }

// LimitError says which bound a render exceeds; nothing was packed.
type LimitError struct {
	// What names the bound: "objects", "bytes of YAML" or "bytes compressed".
	What string
	// Limit is the bound, Got how far the render reached (at least Limit+1: packing stops
	// there).
	Limit, Got int64
}

func (e *LimitError) Error() string {
	if e.What == "objects" {
		return fmt.Sprintf("the render has %d objects; a published artifact holds at most %d", e.Got, e.Limit)
	}
	return fmt.Sprintf("the render's artifact is over %d %s; a published artifact holds at most %d %s", e.Limit, e.What, e.Limit, e.What)
}

// IsLimitError tells an error of Build about a bound.
func IsLimitError(err error) bool {
	var l *LimitError
	return errors.As(err, &l)
}

// epoch is every entry's time: the archive depends on nothing but the objects.
var epoch = time.Unix(0, 0).UTC()

// Build packs objects into an artifact. The files are named by their place in the objects'
// order by group, kind, namespace and name, and their kind ("000001-configmap.yaml"): short,
// unique, and never one of the names Flux's source-ignore rules skip. It refuses, with a
// LimitError and before packing, more objects than limits allow, and stops at the first byte
// past the others.
func Build(objects []Object, limits Limits) (*Artifact, error) {
	if limits.MaxObjects > 0 && len(objects) > limits.MaxObjects {
		return nil, &LimitError{What: "objects", Limit: int64(limits.MaxObjects), Got: int64(len(objects))}
	}
	order := make([]int, len(objects))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareObjects(&objects[a], &objects[b]) })

	out := &cappedBuffer{limit: limits.MaxArchiveBytes}
	// The gzip header is the zero header: no name, no time, "unknown" OS, so that it never varies.
	zw, err := gzip.NewWriterLevel(out, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	var content int64
	width := len(fmt.Sprint(len(objects)))
	if width < 6 {
		width = 6
	}
	for n, i := range order {
		o := &objects[i]
		doc, err := jsonbytes.ToYAML(o.JSON)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", o.Kind, o.Name, err)
		}
		content += int64(len(doc))
		if limits.MaxContentBytes > 0 && content > limits.MaxContentBytes {
			return nil, &LimitError{What: "bytes of YAML", Limit: limits.MaxContentBytes, Got: content}
		}
		header := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     fmt.Sprintf("%0*d-%s.yaml", width, n+1, fileKind(o.Kind)),
			Size:     int64(len(doc)),
			Mode:     0o644,
			ModTime:  epoch,
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(header); err != nil {
			return nil, out.wrap(err)
		}
		if _, err := tw.Write(doc); err != nil {
			return nil, out.wrap(err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, out.wrap(err)
	}
	if err := zw.Close(); err != nil {
		return nil, out.wrap(err)
	}
	data := out.Bytes()
	return &Artifact{Archive: data, Digest: Digest(data), Objects: len(objects), ContentBytes: content}, nil
}

func compareObjects(a, b *Object) int {
	if c := strings.Compare(a.Group, b.Group); c != 0 {
		return c
	}
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// fileKind is the kind as it appears in a file name: lower case, letters and digits only, at
// most 63 of them (a kind is a Go-style identifier; anything else becomes "object").
func fileKind(kind string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(kind) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
		if b.Len() == 63 {
			break
		}
	}
	if b.Len() == 0 {
		return "object"
	}
	return b.String()
}

// cappedBuffer is a buffer that refuses to grow past its limit (none when 0).
type cappedBuffer struct {
	bytes.Buffer
	limit int64
}

var errArchiveTooLarge = errors.New("archive too large")

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.limit > 0 && int64(c.Len()+len(p)) > c.limit {
		return 0, errArchiveTooLarge
	}
	return c.Buffer.Write(p)
}

var _ io.Writer = (*cappedBuffer)(nil)

// wrap turns the buffer's refusal into the LimitError it means.
func (c *cappedBuffer) wrap(err error) error {
	if errors.Is(err, errArchiveTooLarge) {
		return &LimitError{What: "bytes compressed", Limit: c.limit, Got: c.limit + 1}
	}
	return err
}
