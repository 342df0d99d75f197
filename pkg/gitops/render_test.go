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

package gitops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
)

// configMapTemplate renders one ConfigMap holding the values of A, B, C and NUM.
const configMapTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: t}
parameters:
- {name: A, value: a-default}
- {name: B, value: b-default}
- {name: C, value: c-default}
- {name: NUM, type: int, value: "1"}
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: values}
  data: {a: "${A}", b: "${B}", c: "${C}", num: "${NUM}"}
`

// writeDir writes files (path: content) into a new directory and returns it.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func renderHeader(spec string) string {
	return "apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nmetadata: {name: shop}\nspec:\n" + spec
}

// renderDir prepares and renders the render file of dir.
func renderDir(t *testing.T, dir string, env Environment, opts Options) (*Output, error) {
	t.Helper()
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p, err := Prepare(context.Background(), d, FileName, env, false, nil)
	if err != nil {
		return nil, err
	}
	opts.Environment = env
	return p.Render(context.Background(), opts)
}

func configMapData(t *testing.T, out *Output) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(out.Objects[0], &obj); err != nil {
		t.Fatal(err)
	}
	return obj["data"].(map[string]any)
}

// TestValuesOrder checks the order of precedence: the template's default, then the values
// files in order, then spec.parameters, then the tool's parameters.
func TestValuesOrder(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"template.yaml": configMapTemplate,
		"v1.yaml":       "A: from-v1\nB: from-v1\n",
		"v2.yaml":       "B: from-v2\nC: from-v2\n",
		FileName: renderHeader("  templateFile: template.yaml\n  valuesFiles: [v1.yaml, v2.yaml]\n" +
			"  parameters: {C: from-file, NUM: \"$(KUBE_VERSION)\"}\n"),
	})
	out, err := renderDir(t, dir, Environment{"KUBE_VERSION": "37"}, Options{Parameters: map[string]string{"A": "from-argocd"}})
	if err != nil {
		t.Fatal(err)
	}
	data := configMapData(t, out)
	want := map[string]any{"a": "from-argocd", "b": "from-v2", "c": "from-file", "num": "37"}
	for k, v := range want {
		if data[k] != v {
			t.Errorf("data.%s = %v, want %v", k, data[k], v)
		}
	}
}

// TestDigestAnnotation checks that each object is what the engine renders for the same
// template and values, with the digest of that output as its one added annotation.
func TestDigestAnnotation(t *testing.T) {
	dir := writeDir(t, map[string]string{"template.yaml": configMapTemplate, FileName: renderHeader("  templateFile: template.yaml\n  parameters: {B: x}\n")})
	out, err := renderDir(t, dir, Environment{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := process.ReadTemplateFile("template.yaml", []byte(configMapTemplate), false)
	if err != nil {
		t.Fatal(err)
	}
	plain, errs, err := render.NewRenderer(render.Options{}).Render(context.Background(), render.Input{Template: f.Template,
		Request: process.Request{Parameters: map[string]string{"B": "x"}}})
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if out.Digest != Digest(plain.Objects) {
		t.Errorf("digest %s, want %s", out.Digest, Digest(plain.Objects))
	}
	for i, o := range plain.Objects {
		want, _ := annotate(o, v1alpha1.AnnotationRenderDigest, out.Digest)
		if string(out.Objects[i]) != string(want) {
			t.Errorf("object %d:\n%s\nwant\n%s", i, out.Objects[i], want)
		}
	}
	again, err := renderDir(t, dir, Environment{}, Options{})
	if err != nil || again.Digest != out.Digest {
		t.Errorf("a second render: %v, digest %s then %s", err, out.Digest, again.Digest)
	}
}

func TestEmptyRender(t *testing.T) {
	empty := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: e}\nobjects: []\n"
	dir := writeDir(t, map[string]string{"template.yaml": empty, FileName: renderHeader("  templateFile: template.yaml\n")})
	_, err := renderDir(t, dir, Environment{}, Options{})
	if text := placed(firstProblems(err)); !strings.Contains(text, "stencil-render.yaml:4:1") || !strings.Contains(text, "rendered no objects") {
		t.Errorf("an empty render: %v", text)
	}
	dir = writeDir(t, map[string]string{"template.yaml": empty, FileName: renderHeader("  templateFile: template.yaml\n  allowEmpty: true\n")})
	if out, err := renderDir(t, dir, Environment{}, Options{}); err != nil || len(out.Objects) != 0 {
		t.Errorf("an empty render allowed: %v", err)
	}
}

func TestMaxObjects(t *testing.T) {
	dir := writeDir(t, map[string]string{"template.yaml": configMapTemplate, FileName: renderHeader("  templateFile: template.yaml\n")})
	if _, err := renderDir(t, dir, Environment{}, Options{MaxObjects: 1}); err != nil {
		t.Errorf("one object under a bound of one: %v", err)
	}
	tooMany := strings.Replace(configMapTemplate, "objects:\n", "objects:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: second}}\n", 1)
	dir = writeDir(t, map[string]string{"template.yaml": tooMany, FileName: renderHeader("  templateFile: template.yaml\n")})
	if _, err := renderDir(t, dir, Environment{}, Options{MaxObjects: 1}); err == nil || !strings.Contains(err.Error(), "rendered 2 objects, more than the 1") {
		t.Errorf("two objects over a bound of one: %v", err)
	}
}

const generatedTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: g}
parameters:
- {name: PASSWORD, generate: expression, from: "[a-z0-9]{32}"}
- {name: GIVEN, generate: expression, from: "[a-z]{8}"}
objects:
- apiVersion: v1
  kind: Secret
  metadata: {name: db}
  stringData: {password: "${PASSWORD}", given: "${GIVEN}"}
`

// TestGeneratedValues checks that a generated value is refused without a seed, at the
// parameter, and derived from the seed with one: the same on every render of the same
// application, another for another application.
func TestGeneratedValues(t *testing.T) {
	dir := writeDir(t, map[string]string{"template.yaml": generatedTemplate, FileName: renderHeader("  templateFile: template.yaml\n  parameters: {GIVEN: mine}\n")})
	_, err := renderDir(t, dir, Environment{}, Options{})
	text := placed(firstProblems(err))
	if !strings.Contains(text, "template.yaml:5:20: parameters[0].generate") || !strings.Contains(text, "parameter PASSWORD is generated") || strings.Contains(text, "GIVEN is generated") {
		t.Errorf("without a seed: %s", text)
	}
	seed := Seed("0123456789abcdef0123456789abcdef")
	opts := Options{Seed: func() (Seed, error) { return seed, nil }}
	app := Environment{"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_NAMESPACE": "prod"}
	first, err := renderDir(t, dir, app, opts)
	if err != nil {
		t.Fatal(err)
	}
	data := secretData(t, first)
	if len(data["password"].(string)) != 32 || data["given"] != "mine" {
		t.Errorf("stringData %v", data)
	}
	second, _ := renderDir(t, dir, app, opts)
	if string(second.Objects[0]) != string(first.Objects[0]) {
		t.Errorf("two renders of the same inputs differ:\n%s\n%s", first.Objects[0], second.Objects[0])
	}
	other, _ := renderDir(t, dir, Environment{"ARGOCD_APP_NAME": "shop-eu", "ARGOCD_APP_NAMESPACE": "prod"}, opts)
	if secretData(t, other)["password"] == data["password"] {
		t.Error("another application derived the same password")
	}
	if _, err := renderDir(t, dir, app, Options{Seed: func() (Seed, error) { return nil, errors.New("no seed mounted") }}); err == nil || !strings.Contains(err.Error(), "no seed mounted") {
		t.Errorf("a seed that cannot be read: %v", err)
	}
}

func secretData(t *testing.T, out *Output) map[string]any {
	var obj map[string]any
	if err := json.Unmarshal(out.Objects[0], &obj); err != nil {
		t.Fatal(err)
	}
	return obj["stringData"].(map[string]any)
}

// TestValueProblemsArePlacedWhereWritten checks that a bad value is reported where it was
// written: a values file, the render file, or the tool's parameters.
func TestValueProblemsArePlacedWhereWritten(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"template.yaml": configMapTemplate,
		"values.yaml":   "A: ok\nNUM: three\n",
		FileName:        renderHeader("  templateFile: template.yaml\n  valuesFiles: [values.yaml]\n  parameters: {UNKNOWN: x}\n"),
	})
	_, err := renderDir(t, dir, Environment{}, Options{})
	var list ProblemList
	if !errors.As(err, &list) {
		t.Fatalf("%v", err)
	}
	var all string
	for _, p := range list {
		all += placed(p)
	}
	for _, want := range []string{"values.yaml:2:1: NUM: Invalid value: \"three\"", "stencil-render.yaml:7:16: spec.parameters[UNKNOWN]"} {
		if !strings.Contains(all, want) {
			t.Errorf("%q lacks %q", all, want)
		}
	}
	_, err = renderDir(t, dir, Environment{}, Options{Parameters: map[string]string{"NUM": "x", "UNKNOWN": ""}, ParametersFrom: "ARGOCD_APP_PARAMETERS"})
	if !strings.Contains(err.Error(), "ARGOCD_APP_PARAMETERS: NUM: Invalid value: \"x\"") {
		t.Errorf("a bad value of the tool: %v", err)
	}
}

// TestConfinement checks that nothing outside the render file's directory is read: .., an
// absolute path, a symbolic link leading out, a FIFO.
func TestConfinement(t *testing.T) {
	outside := writeDir(t, map[string]string{"secret.yaml": configMapTemplate})
	dir := writeDir(t, map[string]string{"template.yaml": configMapTemplate, "sub/inner.yaml": configMapTemplate})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "absolute-link.yaml")))
	must(os.Symlink("../"+filepath.Base(outside)+"/secret.yaml", filepath.Join(dir, "relative-link.yaml")))
	must(os.Symlink("sub/inner.yaml", filepath.Join(dir, "inner-link.yaml")))
	must(os.Symlink("..", filepath.Join(dir, "sub", "up")))
	must(os.Symlink("../..", filepath.Join(dir, "sub", "out")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644))
	for file, want := range map[string]string{
		"absolute-link.yaml":     "leads out of the render file's directory",
		"relative-link.yaml":     "leads out of the render file's directory",
		"sub/up/../x.yaml":       ".. is refused",
		"sub/up/inner-link.yaml": "",
		"sub/out/" + filepath.Base(outside) + "/secret.yaml": "leads out of the render file's directory",
		"fifo.yaml":       "not a regular file",
		"missing.yaml":    "does not exist",
		"inner-link.yaml": "",
	} {
		must(os.WriteFile(filepath.Join(dir, FileName), []byte(renderHeader("  templateFile: "+file+"\n")), 0o644))
		_, err := renderDir(t, dir, Environment{}, Options{})
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", file, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
	must(os.WriteFile(filepath.Join(dir, FileName), []byte(renderHeader("  templateFile: template.yaml\n  valuesFiles: [absolute-link.yaml]\n")), 0o644))
	if _, err := renderDir(t, dir, Environment{}, Options{}); err == nil || !strings.Contains(err.Error(), "leads out") {
		t.Errorf("a values file through a link out: %v", err)
	}
}

// TestProvenanceAnnotations checks that provenance, when asked, records the repository and
// the revision the template was rendered from.
func TestProvenanceAnnotations(t *testing.T) {
	dir := writeDir(t, map[string]string{"template.yaml": configMapTemplate, FileName: renderHeader("  templateFile: template.yaml\n  provenanceAnnotations: true\n")})
	out, err := renderDir(t, dir, Environment{"ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/shop.git", "ARGOCD_APP_REVISION": "0123abcd"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`path: template.yaml`, `repo: https://git.example.com/shop.git`, `ref: 0123abcd`} {
		if !strings.Contains(string(out.Objects[0]), want) {
			t.Errorf("%s lacks %q", out.Objects[0], want)
		}
	}
}

func firstProblems(err error) error {
	var list ProblemList
	if errors.As(err, &list) && len(list) > 0 {
		return list[0]
	}
	return err
}

// TestReadsOnlyWhatIsNamed renders in a directory of 10,000 other files, none of them YAML:
// the render reads the render file, its template and its values file, and nothing else.
func TestReadsOnlyWhatIsNamed(t *testing.T) {
	files := map[string]string{"template.yaml": configMapTemplate, "values.yaml": "A: x\n",
		FileName: renderHeader("  templateFile: template.yaml\n  valuesFiles: [values.yaml]\n")}
	for i := range 10000 {
		files[filepath.Join("junk", strconv.Itoa(i%10), strconv.Itoa(i)+".yaml")] = "{not: yaml: ["
	}
	dir := writeDir(t, files)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p, err := Prepare(context.Background(), d, FileName, Environment{}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Render(context.Background(), Options{}); err != nil {
		t.Fatal(err)
	}
	if want := []string{FileName, "template.yaml", "values.yaml"}; !slices.Equal(d.read, want) {
		t.Errorf("read %v, want %v", d.read, want)
	}
}

// BenchmarkRender reads and renders the render file of a 200-object template in-process
// (render-file: what stencil argocd generate does between its start-up and its output), beside
// what stencil process --local does for the same template (engine: read the file, render).
func BenchmarkRender(b *testing.B) {
	dir := filepath.Join("testdata", "bench-200")
	b.Run("render-file", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := OpenDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			p, err := Prepare(context.Background(), d, FileName, Environment{}, false, nil)
			if err != nil {
				b.Fatal(err)
			}
			out, err := p.Render(context.Background(), Options{})
			if err != nil || len(out.Objects) != 200 {
				b.Fatal(err)
			}
			d.Close()
		}
	})
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := os.ReadFile(filepath.Join(dir, "template.yaml"))
			if err != nil {
				b.Fatal(err)
			}
			f, err := process.ReadTemplateFile("template.yaml", data, false)
			if err != nil {
				b.Fatal(err)
			}
			out, errs, err := render.NewRenderer(render.Options{}).Render(context.Background(), render.Input{Template: f.Template})
			if err != nil || len(errs) > 0 || len(out.Objects) != 200 {
				b.Fatal(err, errs)
			}
			_ = process.ListBytes(out.Objects)
		}
	})
}
