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
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
)

// BenchmarkProcessedVsGet measures, over HTTPS against the real server and with one client,
// processing the stored mysql-persistent template through templates/{name}/processed beside a
// plain GET of the same template: the cost of processing above reading.
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
}
