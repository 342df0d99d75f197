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

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// valueTemplate is Template name: a ConfigMap holding parameter VALUE, whose default is dflt.
func valueTemplate(name, dflt string, enum ...string) *templatesv1.Template {
	return &templatesv1.Template{
		TypeMeta:   metav1.TypeMeta{APIVersion: "templates.stencil.dev/v1alpha1", Kind: "Template"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Parameters: []templatesv1.Parameter{{Name: "VALUE", Value: dflt, Enum: enum}},
		Objects:    []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"k":"${VALUE}"}}`)}},
	}
}

// instanceOf creates instance name of template with values.
func instanceOf(t *testing.T, cs clientset.Interface, template, name string, values map[string]string, revision int64) {
	t.Helper()
	ti := &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: template, Revision: revision}, Parameters: values}}
	if _, err := cs.TemplatesV1alpha1().TemplateInstances("default").Create(context.Background(), ti, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// candidate is a TemplatePreview of a body.
func candidate(t *testing.T, tpl *templatesv1.Template) *templatesv1.TemplatePreview {
	t.Helper()
	raw, err := json.Marshal(tpl)
	if err != nil {
		t.Fatal(err)
	}
	return &templatesv1.TemplatePreview{Spec: templatesv1.TemplatePreviewSpec{Template: &runtime.RawExtension{Raw: raw}}}
}

func classifications(p *templatesv1.TemplatePreview) string {
	var out []string
	for _, i := range p.Status.Instances {
		out = append(out, i.Name+"="+string(i.Classification))
	}
	for _, s := range p.Status.Skipped {
		out = append(out, s.Name+"="+s.Reason)
	}
	return strings.Join(out, " ")
}

// TestTemplatePreview previews a candidate body and a stored revision through the API:
// each instance is classified by its own values, a pinned one is left out, and what is
// wrong with the request is a 4xx naming it.
func TestTemplatePreview(t *testing.T) {
	s := startTestServer(t, t.TempDir())
	cs := s.client(t)
	ctx := context.Background()
	templatesClient := cs.TemplatesV1alpha1().Templates("default")
	if _, err := templatesClient.Create(ctx, valueTemplate("web", "one"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	instanceOf(t, cs, "web", "a-default", nil, 0)
	instanceOf(t, cs, "web", "b-explicit", map[string]string{"VALUE": "one"}, 0)
	instanceOf(t, cs, "web", "c-three", map[string]string{"VALUE": "three"}, 0)
	instanceOf(t, cs, "web", "d-pinned", nil, 1)

	next := valueTemplate("web", "two", "one", "two")
	got, err := templatesClient.Preview(ctx, "web", candidate(t, next), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "a-default=Changed b-explicit=Unchanged c-three=BreaksParameters d-pinned=Pinned"; classifications(got) != want {
		t.Errorf("classified %s\nwant %s", classifications(got), want)
	}
	if got.Status.Revision != 2 || !strings.HasPrefix(got.Status.PlanHash, "sha256:") || got.Spec.Template != nil {
		t.Errorf("revision %d, plan %q, template echoed %v", got.Status.Revision, got.Status.PlanHash, got.Spec.Template != nil)
	}
	if f := got.Status.Instances[0].Objects; len(f) != 1 || len(f[0].Fields) != 1 || f[0].Fields[0].After != `"two"` {
		t.Errorf("a-default's changes: %+v", f)
	}

	// The CLI shows the same, as a table and as YAML.
	file := filepath.Join(t.TempDir(), "web-v2.yaml")
	data, err := yaml.Marshal(next)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(cliBinary, append([]string{"--kubeconfig", filepath.Join(s.Dir, "kubeconfig"), "-n", "default"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("stencil %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	table := cli("diff", "--template", "web", "-f", file)
	t.Logf("stencil diff --template web -f web-v2.yaml:\n%s", table)
	for _, want := range []string{"a-default    Changed", "c-three      BreaksParameters", "d-pinned     skipped (Pinned)",
		`~ .data.k: "one" -> "two"`, "candidate: revision 2"} {
		if !strings.Contains(table, want) {
			t.Errorf("stencil diff --template web -f: no %q in\n%s", want, table)
		}
	}
	if out := cli("diff", "--template", "web", "-f", file, "-o", "yaml"); !strings.Contains(out, "kind: TemplatePreview") ||
		!strings.Contains(out, "classification: BreaksParameters") || !strings.Contains(out, "planHash: sha256:"+strings.TrimPrefix(got.Status.PlanHash, "sha256:")) {
		t.Errorf("stencil diff -o yaml:\n%s", out)
	}

	// Store the candidate: revision 2. Previewing revision 1 is what an undo would do.
	stored, err := templatesClient.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored.Parameters = next.Parameters
	if _, err := templatesClient.Update(ctx, stored, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	back, err := templatesClient.Preview(ctx, "web", &templatesv1.TemplatePreview{Spec: templatesv1.TemplatePreviewSpec{Revision: 1}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := classifications(back); !strings.HasPrefix(c, "a-default=Changed b-explicit=Unchanged") || back.Status.Revision != 1 {
		t.Errorf("revision 1 previewed: %s, revision %d", c, back.Status.Revision)
	}

	// What is wrong with the request.
	rc := cs.Discovery().RESTClient()
	const preview = "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates/%s/preview"
	for _, tc := range []struct {
		name, template, body string
		status               int
		says                 string
	}{
		{"neither template nor revision", "web", `{"spec":{}}`, http.StatusUnprocessableEntity, "spec.template"},
		{"both", "web", `{"spec":{"revision":1,"template":{"kind":"Template","apiVersion":"templates.stencil.dev/v1alpha1"}}}`, http.StatusUnprocessableEntity, "exactly one"},
		{"a candidate the store would refuse", "web", `{"spec":{"template":{"kind":"Template","apiVersion":"templates.stencil.dev/v1alpha1",` +
			`"parameters":[{"name":"X"},{"name":"X"}]}}}`, http.StatusUnprocessableEntity, "spec.template.parameters[1].name"},
		{"a revision not kept", "web", `{"spec":{"revision":99}}`, http.StatusNotFound, "web-99"},
		{"a Template that does not exist", "nope", `{"spec":{"revision":1}}`, http.StatusNotFound, "nope"},
		{"live on a server without a cluster", "web", `{"spec":{"revision":1,"live":true}}`, http.StatusBadRequest, "needs a cluster"},
	} {
		status, body := rawCall(t, rc, "POST", fmt.Sprintf(preview, tc.template), "application/json", "", []byte(tc.body))
		if status != tc.status || !strings.Contains(string(body), tc.says) {
			t.Errorf("%s: %d %s, want %d saying %q", tc.name, status, body, tc.status, tc.says)
		}
	}
}

// TestTemplatePreviewBudget (hostile): a preview over many instances whose answer would not fit
// the server's processing memory is refused with a 413 as it grows, not built whole; one that
// runs past its request's time is answered 504 and stops rendering at once.
func TestTemplatePreviewBudget(t *testing.T) {
	const memory = 64 << 20
	s := startTestServer(t, t.TempDir(), "--processing-memory-bytes="+strconv.Itoa(memory))
	cs := s.client(t)
	ctx := context.Background()
	// Each instance renders 100 fields of 400 bytes, and 800 KB in one field.
	big := func(fields, amplified string) *templatesv1.Template {
		var data []string
		for i := 0; i < 100; i++ {
			data = append(data, fmt.Sprintf(`"k%d":"%s%d"`, i, fields, i))
		}
		return &templatesv1.Template{TypeMeta: metav1.TypeMeta{APIVersion: "templates.stencil.dev/v1alpha1", Kind: "Template"},
			ObjectMeta: metav1.ObjectMeta{Name: "big"}, Parameters: []templatesv1.Parameter{{Name: "V", Value: strings.Repeat("v", 400)}},
			Objects: []runtime.RawExtension{
				{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fields"},"data":{` + strings.Join(data, ",") + `}}`)},
				{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"amplified"},"data":{"a":"` +
					strings.Repeat(amplified, 2000) + `"}}`)}}}
	}
	if _, err := cs.TemplatesV1alpha1().Templates("default").Create(ctx, big("${V}", "${V}"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const instances = 300
	for i := 0; i < instances; i++ {
		instanceOf(t, cs, "big", fmt.Sprintf("i%03d", i), map[string]string{"V": strings.Repeat(strconv.Itoa(i%10), 400)}, 0)
	}

	// Every field changes for every instance: about 100 KB of answer each.
	cpu := cpuSeconds(t, s.Pid())
	_, err := cs.TemplatesV1alpha1().Templates("default").Preview(ctx, "big", candidate(t, big("${V}-", "${V}")), metav1.CreateOptions{})
	if !apierrors.IsRequestEntityTooLargeError(err) || !strings.Contains(err.Error(), "--processing-memory-bytes") {
		t.Errorf("a preview larger than the processing memory: %v, want a 413", err)
	}
	t.Logf("refused with a 413 after %.2f CPU seconds; the server's peak resident memory %d MiB", cpuSeconds(t, s.Pid())-cpu, peakRSS(t, s.Pid())>>20)

	// One field changes, but each instance renders 1.6 MB: past 300 ms, 504, and the
	// renderings stop with the request.
	body, err := json.Marshal(candidate(t, big("${V}", "${V}-")))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.do(ctx, s.httpClient(t), "POST", "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates/big/preview?timeout=300ms",
		"application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.status != http.StatusGatewayTimeout {
		t.Errorf("a preview past its time: %d %.300s, want 504", resp.status, resp.body)
	}
	answered := cpuSeconds(t, s.Pid())
	idle := answered
	for i := 0; i < 30; i++ {
		time.Sleep(100 * time.Millisecond)
		now := cpuSeconds(t, s.Pid())
		if now-idle < 0.02 {
			break
		}
		idle = now
	}
	t.Logf("504 after the request's 300 ms; %.2f CPU seconds after the answer", idle-answered)
	if idle-answered > 1 {
		t.Errorf("the server kept working %.2f CPU seconds after the answer", idle-answered)
	}
	if r := s.mustDo(t, "GET", "/readyz", "", nil); r.status != http.StatusOK {
		t.Errorf("/readyz: %d", r.status)
	}
	if peak := peakRSS(t, s.Pid()); peak > 512<<20 {
		t.Errorf("the server's peak resident memory is %d MiB", peak>>20)
	}
}

// cpuSeconds is the CPU time process pid has used, from /proc/<pid>/stat.
func cpuSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which may hold spaces, in parentheses.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100
}
