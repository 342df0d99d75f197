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

package templateinstance

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestObjectsColumn checks the Objects column of kubectl get templateinstances: what the
// controller applied, and for a published instance what its artifact holds (it showed 0/0).
func TestObjectsColumn(t *testing.T) {
	applied := []templates.TemplateInstanceObject{{Ready: true}, {Ready: false}}
	for _, c := range []struct {
		name   string
		status templates.TemplateInstanceStatus
		want   string
	}{
		{"nothing yet", templates.TemplateInstanceStatus{}, "0/0"},
		{"applied", templates.TemplateInstanceStatus{Objects: applied}, "1/2"},
		{"published", templates.TemplateInstanceStatus{Artifact: &templates.PublishedArtifact{Objects: 12}}, "12 published"},
		{"published, Secrets applied", templates.TemplateInstanceStatus{Objects: applied, Artifact: &templates.PublishedArtifact{Objects: 12}}, "1/2 + 12 published"},
	} {
		ti := &templates.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: "shop", CreationTimestamp: metav1.Now()}, Status: c.status}
		table, err := tableConvertor{}.ConvertToTable(context.Background(), ti, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := table.Rows[0].Cells[3]; got != c.want {
			t.Errorf("%s: Objects %q, want %q", c.name, got, c.want)
		}
	}
}
