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

package openshifttemplate

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/registry"
)

// tableConvertor prints the columns oc get templates prints: NAME, DESCRIPTION, PARAMETERS,
// OBJECTS.
type tableConvertor struct{}

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the Template."},
	{Name: "Description", Type: "string", Description: "Template description."},
	{Name: "Parameters", Type: "string", Description: "Parameters: how many, and how many are blank or generated."},
	{Name: "Objects", Type: "string", Description: "Number of resources in this template."},
}

// descriptionLength is where OpenShift cuts a description.
const descriptionLength = 80

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return registry.ConvertToTable(obj, tableOptions, columns, func(obj runtime.Object) ([]interface{}, error) {
		t, ok := obj.(*templates.Template)
		if !ok {
			return nil, fmt.Errorf("not a Template: %T", obj)
		}
		return []interface{}{description(t), parametersSummary(t.Parameters), int64(len(t.Objects))}, nil
	})
}

// description is the first line of the description annotation, cut as OpenShift cuts it.
func description(t *templates.Template) string {
	d := t.Annotations["description"]
	if lines := strings.SplitN(d, "\n", 2); len(lines) > 1 {
		d = lines[0] + "..."
	}
	if len(d) > descriptionLength {
		d = strings.TrimSpace(d[:descriptionLength-3]) + "..."
	}
	return d
}

// parametersSummary is OpenShift's "N (k blank)", "N (k generated)" or "N (all set)".
func parametersSummary(params []templates.Parameter) string {
	blank, generated := 0, 0
	for _, p := range params {
		switch {
		case p.Value != "":
		case p.Generate != "":
			generated++
		default:
			blank++
		}
	}
	switch {
	case blank > 0:
		return fmt.Sprintf("%d (%d blank)", len(params), blank)
	case generated > 0:
		return fmt.Sprintf("%d (%d generated)", len(params), generated)
	}
	return fmt.Sprintf("%d (all set)", len(params))
}
