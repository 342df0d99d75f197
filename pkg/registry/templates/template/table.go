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
}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return registry.ConvertToTable(obj, tableOptions, columns, func(obj runtime.Object) ([]interface{}, error) {
		t, ok := obj.(*templates.Template)
		if !ok {
			return nil, fmt.Errorf("not a Template: %T", obj)
		}
		return []interface{}{ParametersSummary(t.Parameters), int64(len(t.Objects))}, nil
	})
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
