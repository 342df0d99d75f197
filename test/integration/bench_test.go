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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	stencilclient "stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/process"
)

// BenchmarkProcessedVsGet measures, over HTTPS against the real server and with one client,
// processing the mysql-persistent template beside a plain GET of the same template stored:
// the stored template through templates/{name}/processed, and the template given in the
// request through processedtemplates (targets: >= 0.8x the GET's requests/s).
func BenchmarkProcessedVsGet(b *testing.B) {
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join("..", "..", "pkg", "process", "testdata", "mysql-persistent.json"))
	if err != nil {
		b.Fatal(err)
	}
	tpl, _, err := process.DecodeTemplate(data)
	if err != nil {
		b.Fatal(err)
	}
	tpl.OpenShift = false
	tpl.ObjectMeta = metav1.ObjectMeta{Name: "bench-mysql"}
	var versioned templatesv1.Template
	if err := templatesv1.Convert_templates_Template_To_v1alpha1_Template(tpl, &versioned, nil); err != nil {
		b.Fatal(err)
	}
	client := clientFor(b).TemplatesV1alpha1().Templates("bench")
	if _, err := client.Create(ctx, &versioned, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	params := &templatesv1.TemplateParameters{Parameters: map[string]string{"MYSQL_USER": "bench"}}
	inRequest := withValue(b, data, "MYSQL_USER", "bench")
	rest := clientFor(b).TemplatesV1alpha1().RESTClient()

	b.Run("GET", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := client.Get(ctx, "bench-mysql", metav1.GetOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("POST-processed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := client.Process(ctx, "bench-mysql", params, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("POST-processedtemplates", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := stencilclient.ProcessTemplate(ctx, rest, "bench", inRequest, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// withValue returns the JSON template data with the value of one parameter set, as a
// console posts it.
func withValue(tb testing.TB, data []byte, name, value string) []byte {
	var t map[string]any
	if err := json.Unmarshal(data, &t); err != nil {
		tb.Fatal(err)
	}
	for _, p := range t["parameters"].([]any) {
		if p := p.(map[string]any); p["name"] == name {
			p["value"] = value
		}
	}
	out, err := json.Marshal(t)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
