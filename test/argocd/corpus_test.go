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

package argocd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"stencil.dev/stencil/pkg/cmd/cli"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// corpusRoot is the corpus of real OpenShift templates, shared/ beside the repository.
var corpusRoot = filepath.Join(repoRoot, "..", "shared", "testdata", "openshift-corpus")

// corpusCase is one template of the corpus and the values it is processed with.
type corpusCase struct {
	name   string // its path under templates/
	params []string
	empty  bool // OpenShift renders it to no objects
}

func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	templates := filepath.Join(corpusRoot, "templates")
	var cases []corpusCase
	err := filepath.WalkDir(templates, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(templates, p)
		raw, err := os.ReadFile(filepath.Join(corpusRoot, "expected", rel+".json"))
		if err != nil {
			return err
		}
		var expected struct {
			Args []string `json:"args"`
			List struct {
				Items []json.RawMessage `json:"items"`
			} `json:"list"`
		}
		if err := json.Unmarshal(raw, &expected); err != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
		c := corpusCase{name: rel, empty: len(expected.List.Items) == 0}
		for i := 1; i < len(expected.Args); i += 2 {
			c.params = append(c.params, expected.Args[i])
		}
		cases = append(cases, c)
		return nil
	})
	if err != nil {
		t.Fatalf("the OpenShift corpus (../shared/testdata/openshift-corpus from the repository root): %v", err)
	}
	return cases
}

// TestCorpusThroughArgoCD renders every template of the corpus through Argo CD's repository
// service and the stencil sidecar, each as an Application of its own (a directory with the
// template and a render file of its values), and checks that Argo CD gets the objects stencil
// process --local prints for the same template and values, each annotated with the digest of
// that very output. The templates are kept in one repository per corpus source, so that
// each request sends its sidecar a repository of a few templates, as an application's would be.
func TestCorpusThroughArgoCD(t *testing.T) {
	cases := readCorpus(t)
	type job struct {
		c   corpusCase
		app app
		dir string // the application's directory on disk
	}
	var jobs []job
	bySource := map[string][]corpusCase{}
	var sources []string
	for _, c := range cases {
		source, _, _ := strings.Cut(c.name, string(filepath.Separator))
		if bySource[source] == nil {
			sources = append(sources, source)
		}
		bySource[source] = append(bySource[source], c)
	}
	for _, source := range sources {
		files := map[string]string{}
		for i, c := range bySource[source] {
			data, err := os.ReadFile(filepath.Join(corpusRoot, "templates", c.name))
			if err != nil {
				t.Fatal(err)
			}
			dir := fmt.Sprintf("apps/%03d", i)
			template := "template" + path.Ext(c.name)
			files[dir+"/"+template] = string(data)
			files[dir+"/stencil-render.yaml"] = corpusRenderFile(template, c)
		}
		repo, sha := newRepo(t, files)
		for i, c := range bySource[source] {
			dir := fmt.Sprintf("apps/%03d", i)
			jobs = append(jobs, job{c: c, dir: filepath.Join(repo.dir, dir),
				app: app{name: fmt.Sprintf("corpus-%d", len(jobs)), repo: repo, revision: sha, path: dir}})
		}
	}
	// A few requests in flight at once, as the controller refreshes many applications.
	results := make([]response, len(jobs))
	inFlight := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i := range jobs {
		inFlight <- struct{}{}
		wg.Go(func() {
			defer func() { <-inFlight }()
			results[i] = env.driver.ask(jobs[i].app.request("generate"))
		})
	}
	wg.Wait()
	failures := 0
	for i, j := range jobs {
		if err := checkCorpusCase(j.dir, j.c, results[i]); err != nil {
			failures++
			if failures <= 10 {
				t.Errorf("%s: %v", j.c.name, err)
			}
		}
	}
	if failures > 0 {
		t.Fatalf("%d of %d templates differ through Argo CD", failures, len(jobs))
	}
	t.Logf("%d templates of %d sources rendered through Argo CD's repository service and the stencil sidecar", len(jobs), len(sources))
}

// corpusRenderFile is the render file of a corpus case: its template and its values.
func corpusRenderFile(template string, c corpusCase) string {
	var b strings.Builder
	b.WriteString("apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nspec:\n  templateFile: " + template + "\n")
	if c.empty {
		b.WriteString("  allowEmpty: true\n")
	}
	if len(c.params) > 0 {
		b.WriteString("  parameters:\n")
		for _, p := range c.params {
			k, v, _ := strings.Cut(p, "=")
			key, _ := json.Marshal(k)
			value, _ := json.Marshal(v)
			b.WriteString("    " + string(key) + ": " + string(value) + "\n")
		}
	}
	return b.String()
}

// checkCorpusCase compares what Argo CD got for one template with stencil process --local.
func checkCorpusCase(dir string, c corpusCase, res response) error {
	if res.Error != "" {
		return fmt.Errorf("GenerateManifest: %s: %s", res.Code, res.Error)
	}
	args := []string{"process", "--local", "-f", filepath.Join(dir, "template"+path.Ext(c.name)), "-o", "json"}
	for _, p := range c.params {
		args = append(args, "-p", p)
	}
	var out, errOut bytes.Buffer
	if code := cli.Run(cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args); code != 0 {
		return fmt.Errorf("stencil process --local: %s", errOut.String())
	}
	list, err := jsonbytes.Compact(out.Bytes())
	if err != nil {
		return err
	}
	var processed struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(list, &processed); err != nil {
		return err
	}
	sum := sha256.Sum256(list)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if len(res.Manifests) != len(processed.Items) {
		return fmt.Errorf("Argo CD got %d objects, stencil process --local prints %d", len(res.Manifests), len(processed.Items))
	}
	for i, m := range res.Manifests {
		var got, want any
		if err := json.Unmarshal([]byte(m), &got); err != nil {
			return err
		}
		if err := json.Unmarshal(processed.Items[i], &want); err != nil {
			return err
		}
		// A template's annotations: null (no annotations) comes out as the map of the digest.
		if metadata, ok := want.(map[string]any)["metadata"].(map[string]any); ok && metadata["annotations"] == nil {
			delete(metadata, "annotations")
		}
		if annotation := removeDigest(got); annotation != digest {
			return fmt.Errorf("object %d: render digest %q, want the digest of stencil process --local's List %q", i, annotation, digest)
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("object %d differs:\nArgo CD:                %s\nstencil process --local: %s", i, m, processed.Items[i])
		}
	}
	return nil
}

// removeDigest removes the render digest annotation from a decoded object (and the
// annotations it leaves empty) and returns its value.
func removeDigest(obj any) string {
	metadata, _ := obj.(map[string]any)["metadata"].(map[string]any)
	annotations, _ := metadata["annotations"].(map[string]any)
	digest, _ := annotations["templates.stencil.dev/render-digest"].(string)
	delete(annotations, "templates.stencil.dev/render-digest")
	if annotations != nil && len(annotations) == 0 {
		delete(metadata, "annotations")
	}
	return digest
}
