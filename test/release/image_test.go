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

package release

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The parts of the OCI image layout the test reads, by the image-spec, not by the library that
// wrote them.
type (
	descriptor struct {
		MediaType   string            `json:"mediaType"`
		Digest      string            `json:"digest"`
		Size        int64             `json:"size"`
		Annotations map[string]string `json:"annotations"`
	}
	ociIndex struct {
		Manifests []descriptor `json:"manifests"`
	}
	ociManifest struct {
		Config descriptor   `json:"config"`
		Layers []descriptor `json:"layers"`
	}
	ociConfig struct {
		Architecture string `json:"architecture"`
		OS           string `json:"os"`
		Config       struct {
			User       string            `json:"User"`
			Entrypoint []string          `json:"Entrypoint"`
			Cmd        []string          `json:"Cmd"`
			Labels     map[string]string `json:"Labels"`
		} `json:"config"`
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
)

const (
	entrypoint = "/usr/local/bin/stencil-apiserver"
	// cliPath is the stencil CLI the Argo CD plugin's sidecar runs (artifacts/argocd).
	cliPath = "/usr/local/bin/stencil"
)

// TestImage builds the image with make image, checks its configuration and layer, and runs the
// server binary taken out of the layer.
func TestImage(t *testing.T) {
	dir := t.TempDir()
	makeTarget(t, "image", "IMAGE_DIR="+dir, "VERSION="+testVersion)
	layoutDir := filepath.Join(dir, "oci")

	var index ociIndex
	readJSON(t, filepath.Join(layoutDir, "index.json"), &index)
	if len(index.Manifests) != 1 {
		t.Fatalf("index.json lists %d manifests, want 1", len(index.Manifests))
	}
	if ref := index.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; ref != testVersion {
		t.Errorf("ref.name annotation %q, want %q", ref, testVersion)
	}
	var manifest ociManifest
	readJSON(t, blob(t, layoutDir, index.Manifests[0]), &manifest)
	var config ociConfig
	readJSON(t, blob(t, layoutDir, manifest.Config), &config)

	if config.Config.User != "65532:65532" {
		t.Errorf("User %q, want 65532:65532 (non-root)", config.Config.User)
	}
	if !slices.Equal(config.Config.Entrypoint, []string{entrypoint}) || len(config.Config.Cmd) != 0 {
		t.Errorf("Entrypoint %q Cmd %q, want [%s] and none", config.Config.Entrypoint, config.Config.Cmd, entrypoint)
	}
	if config.OS != "linux" || config.Config.Labels["org.opencontainers.image.version"] != testVersion {
		t.Errorf("os %q, labels %v", config.OS, config.Config.Labels)
	}
	if len(manifest.Layers) != 1 || len(config.RootFS.DiffIDs) != 1 {
		t.Fatalf("%d layers, %d diff_ids; want one layer", len(manifest.Layers), len(config.RootFS.DiffIDs))
	}

	files, diffID := readLayer(t, blob(t, layoutDir, manifest.Layers[0]))
	if diffID != config.RootFS.DiffIDs[0] {
		t.Errorf("layer content %s, config says %s", diffID, config.RootFS.DiffIDs[0])
	}
	for name := range files {
		switch path.Base(name) {
		case "sh", "bash", "ash", "dash", "busybox":
			t.Errorf("the image holds a shell: /%s", name)
		}
	}
	binary, ok := files[strings.TrimPrefix(entrypoint, "/")]
	if !ok {
		t.Fatalf("no %s in the layer; it holds %v", entrypoint, keys(files))
	}
	if binary.mode&0o111 == 0 {
		t.Errorf("%s is not executable: %o", entrypoint, binary.mode)
	}
	if passwd := string(files["etc/passwd"].content); !strings.Contains(passwd, ":65532:65532:") {
		t.Errorf("/etc/passwd does not name user 65532: %q", passwd)
	}

	exe := filepath.Join(t.TempDir(), "stencil-apiserver")
	if err := os.WriteFile(exe, binary.content, 0o755); err != nil {
		t.Fatal(err)
	}
	assertStatic(t, exe)
	out, err := exec.Command(exe, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", entrypoint, err, out)
	}
	if !strings.HasPrefix(string(out), "stencil-apiserver "+testVersion) {
		t.Errorf("--version printed %q", out)
	}

	// The sidecar of artifacts/argocd runs the CLI of this image as Argo CD's user 999.
	cli, ok := files[strings.TrimPrefix(cliPath, "/")]
	if !ok || cli.mode&0o111 == 0 {
		t.Fatalf("no executable %s in the layer (the Argo CD plugin runs it); it holds %v", cliPath, keys(files))
	}
	cliExe := filepath.Join(t.TempDir(), "stencil")
	if err := os.WriteFile(cliExe, cli.content, 0o755); err != nil {
		t.Fatal(err)
	}
	assertStatic(t, cliExe)
	if out, err := exec.Command(cliExe, "argocd", "--help").CombinedOutput(); err != nil || !strings.Contains(string(out), "generate") {
		t.Errorf("%s argocd --help: %v\n%s", cliPath, err, out)
	}

	var archive []struct {
		RepoTags []string `json:"RepoTags"`
	}
	readTarJSON(t, filepath.Join(dir, "stencil-apiserver.tar"), "manifest.json", &archive)
	if len(archive) != 1 || !slices.Equal(archive[0].RepoTags, []string{"stencil-apiserver:" + testVersion}) {
		t.Errorf("docker archive manifest %+v", archive)
	}
	t.Logf("image %s: layer %d bytes compressed, binary %d bytes", index.Manifests[0].Digest, manifest.Layers[0].Size, len(binary.content))
}

// assertStatic fails unless the ELF file asks for no dynamic loader: it must run in an image
// without libc.
func assertStatic(t *testing.T, file string) {
	t.Helper()
	f, err := elf.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Fatalf("%s is dynamically linked", file)
		}
	}
}

// blob returns the path of a descriptor's blob after checking its digest.
func blob(t *testing.T, layoutDir string, d descriptor) string {
	t.Helper()
	algo, hexDigest, _ := strings.Cut(d.Digest, ":")
	p := filepath.Join(layoutDir, "blobs", algo, hexDigest)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); algo != "sha256" || hex.EncodeToString(sum[:]) != hexDigest || int64(len(b)) != d.Size {
		t.Fatalf("blob %s does not match its descriptor", d.Digest)
	}
	return p
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

type layerFile struct {
	mode    int64
	content []byte
}

// readLayer returns the files of a gzipped layer and the digest of its uncompressed tar.
func readLayer(t *testing.T, file string) (map[string]layerFile, string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	tr := tar.NewReader(io.TeeReader(gz, h))
	files := map[string]layerFile{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(hdr.Name, "./")] = layerFile{mode: hdr.Mode, content: content}
	}
	// The tar's end-of-archive blocks count toward the digest too.
	if _, err := io.Copy(h, gz); err != nil {
		t.Fatal(err)
	}
	return files, "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func readTarJSON(t *testing.T, file, name string, v any) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err != nil {
			t.Fatalf("%s has no %s: %v", file, name, err)
		}
		if hdr.Name == name {
			if err := json.NewDecoder(tr).Decode(v); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
}

func keys(m map[string]layerFile) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
