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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTemplateTable checks the columns kubectl get templates prints (-o wide: the revision and
// the rollout, none here).
func TestTemplateTable(t *testing.T) {
	ctx := context.Background()
	cs := shared.client(t)
	if _, err := cs.TemplatesV1alpha1().Templates("table").Create(ctx, newTemplate("printed", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	body, err := cs.TemplatesV1alpha1().RESTClient().Get().
		AbsPath("/apis/templates.stencil.dev/v1alpha1/namespaces/table/templates").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
		DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, " "); got != "Name Parameters Objects Age Revision Rollout" {
		t.Fatalf("columns: %s", got)
	}
	if len(table.Rows) != 1 {
		t.Fatalf("rows: %+v", table.Rows)
	}
	cells := table.Rows[0].Cells
	if cells[0] != "printed" || cells[1] != "2 (1 required, 1 generated)" || cells[2] != float64(1) || cells[4] != float64(1) || cells[5] != "-" {
		t.Fatalf("cells: %#v", cells)
	}
}
