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

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// corpusDir is the corpus of real OpenShift templates with OpenShift's own output, shared/
// beside the repository (../shared/testdata/openshift-corpus from its root), as CI lays it out.
const corpusDir = "../../../../shared/testdata/openshift-corpus"

// corpusCase is one template of the corpus and what OpenShift processed it into.
type corpusCase struct {
	name     string // the path under templates/
	template []byte
	params   []string // the values of -p, KEY=VALUE
	items    []json.RawMessage
}

// readCorpus reads every template of the corpus and its expected output. A missing corpus
// fails the test in CI (CI is set), where shared/ is always laid beside the repository, and
// skips it elsewhere.
func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	root, err := filepath.Abs(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "templates")); err != nil {
		t.Fatalf("the OpenShift corpus is not at %s (../shared/testdata/openshift-corpus from the repository root, where the "+
			"repository's checkout keeps it): %v", root, err)
	}
	var cases []corpusCase
	err = filepath.WalkDir(filepath.Join(root, "templates"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(root, "templates"), path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(filepath.Join(root, "expected", rel+".json"))
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
		c := corpusCase{name: rel, template: data, items: expected.List.Items}
		for i := 0; i+1 < len(expected.Args); i += 2 {
			if expected.Args[i] != "-p" {
				return fmt.Errorf("%s: only -p arguments are expected, got %q", rel, expected.Args[i])
			}
			c.params = append(c.params, expected.Args[i+1])
		}
		cases = append(cases, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("no templates under %s", filepath.Join(root, "templates"))
	}
	return cases
}

// TestOpenShiftCorpus processes every template of the corpus as a user would, with the
// values OpenShift was given, and requires OpenShift's items exactly (as JSON values) from
// stencil process --local and from both groups' processedtemplates, with the file as the
// request's body (JSON, or YAML by its extension) decoded as the server decodes a body, and
// with the template as JSON laid out with other whitespace. make corpus runs it, without the
// race detector (make unit skips it).
func TestOpenShiftCorpus(t *testing.T) {
	cases := readCorpus(t)
	renderer := renderrest.NewAdapter(renderrest.Sources{})
	paths := []struct {
		name    string
		process func(corpusCase) ([]json.RawMessage, error)
	}{
		{"stencil process --local", processCorpusLocal},
		{"templates.stencil.dev processedtemplates", func(c corpusCase) ([]json.RawMessage, error) {
			return processCorpusAsServer(c, processedtemplate.NewREST(renderer))
		}},
		{"template.openshift.io processedtemplates", func(c corpusCase) ([]json.RawMessage, error) {
			return processCorpusAsServer(c, processedtemplate.NewOpenShiftREST(renderer))
		}},
		// The same template as JSON with other whitespace between every two tokens: the
		// layout must not change the result (issue 24).
		{"processedtemplates, JSON laid out again", func(c corpusCase) ([]json.RawMessage, error) {
			data, err := yaml.YAMLToJSON(firstYAMLDocument(c.template))
			if err != nil {
				return nil, err
			}
			c.name, c.template = c.name+".json", layouttest.Mixed(data, layouttest.Seed(c.template))
			return processCorpusAsServer(c, processedtemplate.NewREST(renderer))
		}},
	}
	failed := map[string]int{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range paths {
				items, err := path.process(c)
				if err == nil {
					err = compareItems(items, c.items)
				}
				if err != nil {
					failed[path.name]++
					t.Errorf("%s: %v", path.name, err)
				}
			}
		})
	}
	for _, path := range paths {
		if n := failed[path.name]; n > 0 {
			t.Errorf("%s: %d of %d templates do not give OpenShift's items", path.name, n, len(cases))
		}
	}
	t.Logf("%d templates of %s processed", len(cases), corpusDir)
}

// processCorpusLocal runs stencil process --local -o json on the template file.
func processCorpusLocal(c corpusCase) ([]json.RawMessage, error) {
	dir, err := os.MkdirTemp("", "corpus")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, filepath.Base(c.name))
	if err := os.WriteFile(file, c.template, 0o600); err != nil {
		return nil, err
	}
	args := []string{"process", "--local", "-o", "json", "-f", file}
	for _, p := range c.params {
		args = append(args, "-p", p)
	}
	var stdout, stderr bytes.Buffer
	if code := Run(IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}, args); code != 0 {
		return nil, fmt.Errorf("exit %d: %s", code, stderr.String())
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &list); err != nil {
		return nil, fmt.Errorf("the output is not JSON: %v", err)
	}
	return list.Items, nil
}

// processCorpusAsServer posts the template file to the endpoint as the server would take
// it: the body decoded by the server's codec for its media type (as the generic
// handler does, with unknown fields warned about, not refused), the values set in the
// parameters as oc sets them, then the endpoint's own Create.
func processCorpusAsServer(c corpusCase, endpoint *processedtemplate.REST) ([]json.RawMessage, error) {
	mediaType, body := runtime.ContentTypeJSON, c.template
	if ext := filepath.Ext(c.name); ext == ".yaml" || ext == ".yml" {
		// The whole file, as a client posts it: the server reads the one template of a
		// stream whose other documents are empty.
		mediaType = runtime.ContentTypeYAML
	}
	info, ok := runtime.SerializerInfoForMediaType(apiserver.Served.SupportedMediaTypes(), mediaType)
	if !ok {
		return nil, fmt.Errorf("the server does not read %s", mediaType)
	}
	// As the generic handler decodes a create: to the group's internal version, into what the
	// endpoint's New returns, with the endpoint's kind as the default.
	decoder := apiserver.Codecs.DecoderToVersion(info.StrictSerializer, templates.SchemeGroupVersion)
	defaultGVK := v1alpha1.SchemeGroupVersion.WithKind("Template")
	obj, _, err := decoder.Decode(body, &defaultGVK, &templates.Template{})
	if err != nil && !(runtime.IsStrictDecodingError(err) && obj != nil) {
		return nil, fmt.Errorf("decoding the body: %v", err)
	}
	tpl, ok := obj.(*templates.Template)
	if !ok {
		return nil, fmt.Errorf("decoding the body: got %T", obj)
	}
	for _, p := range c.params {
		name, value, _ := strings.Cut(p, "=")
		for i := range tpl.Parameters {
			if tpl.Parameters[i].Name == name {
				tpl.Parameters[i].Value = value
				break
			}
		}
	}
	ctx := genericapirequest.WithNamespace(context.Background(), "corpus")
	out, err := endpoint.Create(ctx, tpl, nil, &metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	// Our group answers a List; OpenShift's the processed Template, whose objects oc lists.
	var raws []runtime.RawExtension
	switch out := out.(type) {
	case *v1alpha1.List:
		raws = out.Items
	case *templates.Template:
		raws = out.Objects
	default:
		return nil, fmt.Errorf("the answer is a %T", out)
	}
	items := make([]json.RawMessage, len(raws))
	for i, raw := range raws {
		items[i] = raw.Raw
	}
	return items, nil
}

// firstYAMLDocument is the body a client sends for a YAML file: a request body is one
// object, so of a stream whose first documents are empty (the Helm-converted header that
// the README lists among what OpenShift tolerates in a file), the first document that is not,
// as oc and stencil process -f read the file. Any other file is sent as it is.
func firstYAMLDocument(data []byte) []byte {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for skipped := 0; ; skipped++ {
		doc, err := reader.Read()
		if err != nil {
			return data
		}
		if converted, err := yaml.YAMLToJSON(doc); err != nil || string(bytes.TrimSpace(converted)) != "null" {
			if skipped == 0 {
				return data
			}
			return doc
		}
	}
}
