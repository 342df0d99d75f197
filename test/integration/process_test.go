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
	"os"
	"path/filepath"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	stencilclient "stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/process"
)

// testdataTemplates are real OpenShift templates from the wild.
var testdataTemplates = []string{"mysql-persistent.json", "django-psql-persistent.json", "cincinnati-deployment.yaml"}

// fixedValues gives every parameter that would be generated or is required but empty a fixed
// value, so that the server's answer can be compared with the engine's.
func fixedValues(params []templates.Parameter) map[string]string {
	values := map[string]string{}
	for _, p := range params {
		if p.Value == "" && (p.Generate != "" || p.Required) {
			values[p.Name] = "fixed" + p.Name
		}
	}
	return values
}

func decodeItems(t *testing.T, items []runtime.RawExtension) []any {
	t.Helper()
	out := make([]any, len(items))
	for i, item := range items {
		if err := json.Unmarshal(item.Raw, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func decodeObjects(t *testing.T, objects []json.RawMessage) []any {
	t.Helper()
	out := make([]any, len(objects))
	for i, obj := range objects {
		if err := json.Unmarshal(obj, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestProcessedTemplatesMatchEngine posts each OpenShift template, as it is, to
// processedtemplates and expects exactly the engine's objects, message and parameters.
func TestProcessedTemplatesMatchEngine(t *testing.T) {
	cs := shared.client(t)
	for _, name := range testdataTemplates {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "pkg", "process", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			tpl, dialect, err := process.DecodeTemplate(data)
			if err != nil {
				t.Fatal(err)
			}
			// The endpoint takes the values in parameters[].value, as OpenShift's does.
			values := fixedValues(tpl.Parameters)
			for i := range tpl.Parameters {
				if v, ok := values[tpl.Parameters[i].Name]; ok {
					tpl.Parameters[i].Value = v
				}
			}
			want, errs := processHere(tpl, dialect, process.Request{})
			if len(errs) > 0 {
				t.Fatalf("engine: %v", errs)
			}
			body := setParameterValues(t, data, values)
			got, err := stencilclient.ProcessTemplate(context.Background(), cs.TemplatesV1alpha1().RESTClient(), "process", body, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("processedtemplates: %v", err)
			}
			if !reflect.DeepEqual(decodeItems(t, got.Items), decodeObjects(t, want.Objects)) {
				t.Fatalf("objects differ from the engine's:\n got  %s\n want %s", got.Items, process.ListBytes(want.Objects))
			}
			if got.Message != want.Message || len(got.Parameters) != len(want.Parameters) {
				t.Fatalf("message or parameters differ: %q %d vs %q %d", got.Message, len(got.Parameters), want.Message, len(want.Parameters))
			}
		})
	}
}

// setParameterValues fills parameters[].value of a raw template, YAML or JSON, and returns JSON.
func setParameterValues(t *testing.T, data []byte, values map[string]string) []byte {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	params, _ := doc["parameters"].([]any)
	for _, p := range params {
		param := p.(map[string]any)
		if v, ok := values[param["name"].(string)]; ok {
			param["value"] = v
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProcessedSubresourceMatchesEngine stores each template as one of ours and processes it
// through templates/{name}/processed with the typed client. The cincinnati template is left
// out: as one of ours it is refused (see TestStencilDialectRefusesAmbiguousEnvVar).
func TestProcessedSubresourceMatchesEngine(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("process-stored")
	for i, name := range testdataTemplates[:2] {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "pkg", "process", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			tpl, _, err := process.DecodeTemplate(data)
			if err != nil {
				t.Fatal(err)
			}
			versioned := asStencilTemplate(t, tpl, "stored-"+string(rune('a'+i)))
			if _, err := client.Create(ctx, versioned, metav1.CreateOptions{}); err != nil {
				t.Fatalf("storing the template: %v", err)
			}
			values := fixedValues(tpl.Parameters)
			want, errs := processHere(tpl, process.Stencil, process.Request{Parameters: values})
			if len(errs) > 0 {
				t.Fatalf("engine: %v", errs)
			}
			for round := 0; round < 2; round++ { // the second round runs the cached plan
				got, err := client.Process(ctx, versioned.Name, &templatesv1.TemplateParameters{Parameters: values}, metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("processed: %v", err)
				}
				if !reflect.DeepEqual(decodeItems(t, got.Items), decodeObjects(t, want.Objects)) {
					t.Fatalf("round %d: objects differ from the engine's:\n got  %s\n want %s", round, got.Items, process.ListBytes(want.Objects))
				}
				if got.Message != want.Message {
					t.Fatalf("message: %q, want %q", got.Message, want.Message)
				}
			}
		})
	}
}

func asStencilTemplate(t *testing.T, tpl *templates.Template, name string) *templatesv1.Template {
	t.Helper()
	tpl.OpenShift = false
	tpl.ObjectMeta = metav1.ObjectMeta{Name: name}
	var versioned templatesv1.Template
	if err := templatesv1.Convert_templates_Template_To_v1alpha1_Template(tpl, &versioned, nil); err != nil {
		t.Fatal(err)
	}
	return &versioned
}

// TestStencilDialectRefusesAmbiguousEnvVar stores the cincinnati template as one of ours: it
// writes $(PE_LOG_VERBOSITY) in a container whose env var has the name of a parameter, which
// OpenShift leaves alone but the Templates proposal calls ambiguous.
func TestStencilDialectRefusesAmbiguousEnvVar(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "pkg", "process", "testdata", "cincinnati-deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, _, err := process.DecodeTemplate(data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = shared.client(t).TemplatesV1alpha1().Templates("process-stored").
		Create(context.Background(), asStencilTemplate(t, tpl, "cincinnati"), metav1.CreateOptions{})
	causes := causesOf(err)
	if len(causes) == 0 || causes[0] != "objects[0].spec.template.spec.containers[1].args[0]: FieldValueInvalid" {
		t.Fatalf("want the ambiguity named at its field, got %v", err)
	}
}

// processHere processes a template in this process, as the server would, for comparison.
func processHere(t *templates.Template, d process.Dialect, req process.Request) (*process.Result, field.ErrorList) {
	plan, errs := process.Compile(t, d)
	if len(errs) > 0 {
		return nil, errs
	}
	return plan.Execute(req)
}
