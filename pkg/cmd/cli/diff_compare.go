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

package cli

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// print renders the instance and prints, per object, whether the apply would change it (with
// a diff), add it or leave it, and which objects of the live inventory would be pruned.
func (d *differ) print(ctx context.Context, ti, live *templatesv1.TemplateInstance, changedTemplate []byte) error {
	objects, err := d.render(ctx, ti, live, changedTemplate)
	if err != nil {
		return err
	}
	mapper, err := d.config.ToRESTMapper()
	if err != nil {
		return err
	}
	out := d.streams.Out
	fmt.Fprintf(out, "templateinstance %s/%s:\n", ti.Namespace, ti.Name)
	rendered := map[string]bool{}
	unchanged := 0
	for _, obj := range objects {
		gvk := obj.GroupVersionKind()
		mapping, err := inventory.Mapping(mapper, gvk)
		if err != nil {
			fmt.Fprintf(out, "  refused: %s %s: %v\n", gvk.Kind, obj.GetName(), err)
			continue
		}
		inventory.Place(obj, mapping, ti.Namespace)
		inventory.Label(obj, applySetID(ti))
		client := d.dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace())
		ref := templatesv1.TemplateInstanceObject{APIVersion: obj.GetAPIVersion(), Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
		rendered[inventory.ObjectKey(ref)] = true
		name := inventory.DescribeObject(ref)
		current, err := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		after, applyErr := client.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: inventory.FieldManager, DryRun: []string{metav1.DryRunAll}})
		switch {
		case applyErr != nil:
			fmt.Fprintf(out, "  refused: %s: %v\n", name, applyErr)
		case current == nil:
			fmt.Fprintf(out, "  added: %s\n", name)
		default:
			diff, err := objectDiff(current, after)
			if err != nil {
				return err
			}
			if diff == "" {
				unchanged++
				continue
			}
			fmt.Fprintf(out, "  changed: %s\n%s", name, diff)
		}
	}
	if live != nil {
		for _, o := range live.Status.Objects {
			if !rendered[inventory.ObjectKey(o)] {
				fmt.Fprintf(out, "  pruned: %s\n", inventory.DescribeObject(o))
			}
		}
	}
	fmt.Fprintf(out, "  unchanged: %d objects\n", unchanged)
	return nil
}

// objectDiff is a line diff of two versions of an object as YAML, without the fields that
// change on every write; "" when they are equal.
func objectDiff(before, after *unstructured.Unstructured) (string, error) {
	a, err := comparable(before)
	if err != nil {
		return "", err
	}
	b, err := comparable(after)
	if err != nil {
		return "", err
	}
	if a == b {
		return "", nil
	}
	return lineDiff(strings.Split(a, "\n"), strings.Split(b, "\n")), nil
}

func comparable(u *unstructured.Unstructured) (string, error) {
	obj := u.DeepCopy()
	for _, f := range [][]string{{"metadata", "managedFields"}, {"metadata", "resourceVersion"}, {"metadata", "generation"}} {
		unstructured.RemoveNestedField(obj.Object, f...)
	}
	data, err := yaml.Marshal(obj.Object)
	return strings.TrimRight(string(data), "\n"), err
}

// diffContext is how many equal lines are shown around each change.
const diffContext = 2

// lineDiff prints the lines removed (-) and added (+) between a and b, by a longest common
// subsequence, with a few equal lines around each change; objects are small enough for its
// quadratic table.
func lineDiff(a, b []string) string {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			lines = append(lines, line{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', a[i]})
			i++
		default:
			lines = append(lines, line{'+', b[j]})
			j++
		}
	}
	var out strings.Builder
	last := -1
	for k, l := range lines {
		near := false
		for m := max(0, k-diffContext); m <= min(len(lines)-1, k+diffContext); m++ {
			if lines[m].op != ' ' {
				near = true
				break
			}
		}
		if !near {
			continue
		}
		if last >= 0 && k > last+1 {
			out.WriteString("    ...\n")
		}
		fmt.Fprintf(&out, "    %c %s\n", l.op, l.text)
		last = k
	}
	return out.String()
}
