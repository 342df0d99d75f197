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

// Command image assembles the stencil-apiserver image from static binaries, with no container
// daemon and no base image: one layer holding the server (the entrypoint) and the stencil CLI
// (what the Argo CD plugin's sidecar runs, artifacts/argocd), /etc/passwd and /etc/group naming
// the non-root user, and an empty /tmp. It writes an OCI image layout (for skopeo, crane, podman,
// containerd) and a docker-archive tarball (for docker load, kind load image-archive).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the server runs as, distroless's "nonroot": no shell, no home to write to.
const (
	uid = 65532
	gid = 65532
	// binaryPath is where the image holds the server, and its entrypoint.
	binaryPath = "/usr/local/bin/stencil-apiserver"
	// cliPath is where the image holds the stencil CLI, on the PATH of a sidecar that runs it.
	cliPath = "/usr/local/bin/stencil"
)

type options struct {
	binary, cli, output, repository, version, revision, arch string
	created                                                  time.Time
}

func main() {
	var o options
	var epoch int64
	flag.StringVar(&o.binary, "binary", "", "the static stencil-apiserver binary to put in the image")
	flag.StringVar(&o.cli, "cli", "", "the static stencil CLI binary to put in the image beside the server")
	flag.StringVar(&o.output, "output", "_output/image", "directory for oci/ (an OCI image layout) and stencil-apiserver.tar (a docker archive)")
	flag.StringVar(&o.repository, "repository", "stencil-apiserver", "repository of the image's tag")
	flag.StringVar(&o.version, "version", "v0.0.0-unknown", "version of the build: the image's tag and its org.opencontainers.image.version label")
	flag.StringVar(&o.revision, "revision", "", "commit of the build, for the org.opencontainers.image.revision label")
	flag.StringVar(&o.arch, "arch", "amd64", "GOARCH the binary was built for")
	flag.Int64Var(&epoch, "created", 0, "creation time of the image and of its files, in seconds since 1970 "+
		"(SOURCE_DATE_EPOCH): the same inputs give the same image digest")
	flag.Parse()
	o.created = time.Unix(epoch, 0).UTC()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.binary == "" || o.cli == "" {
		return fmt.Errorf("--binary and --cli are required")
	}
	tag, err := name.NewTag(o.repository + ":" + tagOf(o.version))
	if err != nil {
		return err
	}
	img, err := build(o)
	if err != nil {
		return err
	}
	layoutDir := filepath.Join(o.output, "oci")
	if err := os.RemoveAll(layoutDir); err != nil {
		return err
	}
	index, err := layout.Write(layoutDir, empty.Index)
	if err != nil {
		return err
	}
	if err := index.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag.TagStr(),
	})); err != nil {
		return err
	}
	archive := filepath.Join(o.output, "stencil-apiserver.tar")
	if err := tarball.WriteToFile(archive, tag, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	size, err := imageSize(img)
	if err != nil {
		return err
	}
	fmt.Printf("%s %s (%d bytes compressed)\n  OCI layout: %s\n  docker archive: %s\n", tag, digest, size, layoutDir, archive)
	return nil
}

// build assembles the image: its one layer and a config that runs the binary as the non-root
// user, with nothing else in the filesystem that could be executed.
func build(o options) (v1.Image, error) {
	binary, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, err
	}
	cli, err := os.ReadFile(o.cli)
	if err != nil {
		return nil, err
	}
	layerBytes, err := layerTar(binary, cli, o.created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(opener(layerBytes), tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: o.created}, CreatedBy: "hack/image: " + binaryPath + ", " + cliPath + ", /etc/passwd, /etc/group, /tmp",
	}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", o.arch
	cfg.Created = v1.Time{Time: o.created}
	cfg.Config = v1.Config{
		User:       strconv.Itoa(uid) + ":" + strconv.Itoa(gid),
		Entrypoint: []string{binaryPath},
		WorkingDir: "/",
		Labels: map[string]string{
			"org.opencontainers.image.title":    "stencil-apiserver",
			"org.opencontainers.image.version":  o.version,
			"org.opencontainers.image.revision": o.revision,
			"org.opencontainers.image.licenses": "Apache-2.0",
		},
	}
	return mutate.ConfigFile(img, cfg)
}

// tagOf makes a version usable as a tag, which takes no '+': the build metadata of a semantic
// version (v0.0.0-master+<commit>, hack/version.sh) is joined with '-'.
func tagOf(version string) string {
	return regexp.MustCompile(`[^A-Za-z0-9_.-]`).ReplaceAllString(version, "-")
}

func imageSize(img v1.Image) (int64, error) {
	layers, err := img.Layers()
	if err != nil {
		return 0, err
	}
	var total int64
	for _, l := range layers {
		n, err := l.Size()
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
