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

package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// passwd and group name root and the non-root user, so that tools inside and outside the
// container show names; neither has a login shell, and the image has none to give them.
var (
	passwd = fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", uid, gid)
	group  = fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", gid)
)

// layerTar writes the image's only layer as an uncompressed tar; every entry has the same
// modification time and owner, so equal inputs give equal bytes.
func layerTar(binary, cli []byte, modTime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []struct {
		name     string
		mode     int64
		uid, gid int
		content  []byte
		dir      bool
	}{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, content: []byte(group)},
		{name: "etc/passwd", mode: 0o644, content: []byte(passwd)},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/nonroot/", mode: 0o700, uid: uid, gid: gid, dir: true},
		{name: "tmp/", mode: 0o1777, dir: true},
		{name: "usr/", mode: 0o755, dir: true},
		{name: "usr/local/", mode: 0o755, dir: true},
		{name: "usr/local/bin/", mode: 0o755, dir: true},
		{name: cliPath[1:], mode: 0o755, content: cli},
		{name: binaryPath[1:], mode: 0o755, content: binary},
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: modTime, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.content))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.content); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func opener(b []byte) tarball.Opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}
