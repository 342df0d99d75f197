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

package template

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/registry"
)

// tableConvertor prints the columns of kubectl get templates.
type tableConvertor struct{}

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the Template."},
	{Name: "Parameters", Type: "string", Description: "Parameters: how many, how many required and how many generated."},
	{Name: "Objects", Type: "integer", Description: "Number of objects."},
	{Name: "Age", Type: "string", Description: "Time since creation."},
	{Name: "Revision", Type: "integer", Priority: 1, Description: "The revision the content is."},
	{Name: "Rollout", Type: "string", Priority: 1, Description: "The rollout of the revision: its phase, reason and instances updated / total, or - without one."},
}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table, err := registry.ConvertToTable(obj, tableOptions, columns, func(obj runtime.Object) ([]interface{}, error) {
		t, ok := obj.(*templates.Template)
		if !ok {
			return nil, fmt.Errorf("not a Template: %T", obj)
		}
		return []interface{}{ParametersSummary(t.Parameters), int64(len(t.Objects))}, nil
	})
	if err != nil {
		return nil, err
	}
	// The columns of -o wide come after the age, which registry.ConvertToTable puts last.
	for i := range table.Rows {
		t, ok := table.Rows[i].Object.Object.(*templates.Template)
		if !ok {
			continue
		}
		revision := int64(0)
		if t.Revision != nil {
			revision = t.Revision.Number
		}
		table.Rows[i].Cells = append(table.Rows[i].Cells, revision, rolloutSummary(t))
	}
	return table, nil
}

// rolloutSummary is "Phase (Reason) updated/total" of the Template's rollout of its current
// revision, "Pending" before it started, "-" without a rollout.
func rolloutSummary(t *templates.Template) string {
	if t.Rollout == nil {
		return "-"
	}
	if t.Status == nil || t.Status.Rollout == nil || t.Revision == nil || t.Status.Rollout.Revision != t.Revision.Number {
		return "Pending"
	}
	st := t.Status.Rollout
	return fmt.Sprintf("%s (%s) %d/%d", st.Phase, st.Reason, st.Updated, st.Total)
}

// ParametersSummary describes parameters as "N (k required, g generated)".
func ParametersSummary(params []templates.Parameter) string {
	required, generated := 0, 0
	for _, p := range params {
		if p.Required {
			required++
		}
		if p.Generate != "" {
			generated++
		}
	}
	return fmt.Sprintf("%d (%d required, %d generated)", len(params), required, generated)
}
