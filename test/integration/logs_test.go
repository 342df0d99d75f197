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
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	stencilclient "stencil.dev/stencil/pkg/client"
)

// TestLogsKeepValuesOut processes templates with a caller's value and a generated value on a
// server logging at -v=6 in JSON, including a request refused for its value, and finds neither
// value anywhere in the log.
func TestLogsKeepValuesOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "server")
	s := startTestServer(t, dir, "-v=6", "--logging-format=json")
	ctx := context.Background()
	const ns = "logs"
	const callerValue = "caller-value-5c0e7d1a9b"
	const badCount = "count-value-8e21f4b7d3"

	stored := &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "credentials"},
		Parameters: []templatesv1.Parameter{
			{Name: "PASSWORD", Required: true},
			{Name: "TOKEN", Generate: "expression", From: "[a-zA-Z0-9]{32}"},
			{Name: "COUNT", Type: "int", Value: "1"},
		},
		Objects: []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"app"},` +
			`"stringData":{"password":"${PASSWORD}","token":"${TOKEN}","count":"${COUNT}"}}`)}},
		Transformers: []runtime.RawExtension{{Raw: []byte(`{"kind":"AnnotationsTransformer","annotations":{"token":"${TOKEN}"}}`)}},
	}
	templates := s.client(t).TemplatesV1alpha1().Templates(ns)
	if _, err := templates.Create(ctx, stored, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for range 2 {
		list, err := templates.Process(ctx, stored.Name, &templatesv1.TemplateParameters{
			Parameters: map[string]string{"PASSWORD": callerValue}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, generated(t, list, "TOKEN"))
	}
	if _, err := templates.Process(ctx, stored.Name, &templatesv1.TemplateParameters{
		Parameters: map[string]string{"PASSWORD": callerValue, "COUNT": badCount}}, metav1.CreateOptions{}); err == nil {
		t.Fatal("a COUNT that is not an integer was accepted")
	}
	inline, err := json.Marshal(map[string]any{
		"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template", "metadata": map[string]any{"name": "inline"},
		"parameters": []map[string]any{{"name": "PASSWORD", "value": callerValue}, {"name": "TOKEN", "generate": "expression", "from": "[a-z]{40}"}, {"name": "COUNT", "value": "2"}},
		"objects":    stored.Objects,
	})
	if err != nil {
		t.Fatal(err)
	}
	list, err := stencilclient.ProcessTemplate(ctx, s.client(t).TemplatesV1alpha1().RESTClient(), ns, inline, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, generated(t, list, "TOKEN"), callerValue, badCount)

	log, err := os.ReadFile(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	if verbose := bytes.Count(log, []byte(`"v":6`)); verbose == 0 {
		t.Fatalf("no line at -v=6 in the log: the test would prove nothing")
	}
	for i, line := range bytes.Split(bytes.TrimSpace(log), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("log line %d is not JSON: %s", i+1, line)
		}
	}
	for _, secret := range secrets {
		if bytes.Contains(log, []byte(secret)) {
			t.Errorf("the log holds the value %q", secret)
		}
	}
}

// generated is the value processing chose for the parameter name.
func generated(t *testing.T, list *templatesv1.List, name string) string {
	t.Helper()
	for _, p := range list.Parameters {
		if p.Name == name {
			if strings.TrimSpace(p.Value) == "" {
				t.Fatalf("no value generated for %s", name)
			}
			return p.Value
		}
	}
	t.Fatalf("the answer has no parameter %s", name)
	return ""
}
