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

package transform

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestConsolidateBoundsImportReads builds a diamond at every level, each template importing
// both templates of the next level: without a bound, the reads double with every level.
func TestConsolidateBoundsImportReads(t *testing.T) {
	const depth = 14
	stored := map[string]*templates.Template{}
	for level := 0; level < depth; level++ {
		for _, side := range []string{"a", "b"} {
			tpl := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("l%d%s", level, side)}}
			if level+1 < depth {
				tpl.TransformersFrom = []templates.TransformerImport{
					{Name: fmt.Sprintf("l%da", level+1), ImportMode: templates.ImportModePrepend},
					{Name: fmt.Sprintf("l%db", level+1), ImportMode: templates.ImportModePrepend},
				}
			}
			stored[tpl.Name] = tpl
		}
	}
	reads := 0
	get := func(name string) (*templates.Template, error) {
		reads++
		return stored[name], nil
	}
	_, errs := Consolidate(stored["l0a"], get)
	if reads > defaultTransformerImports {
		t.Fatalf("%d reads, more than the bound %d", reads, defaultTransformerImports)
	}
	if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), "Too many") {
		t.Fatalf("want a Too many error, got %v", errs)
	}

	// The same template twice in one list is named, not read twice.
	dup := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: "dup"}, TransformersFrom: []templates.TransformerImport{{Name: "l13a"}, {Name: "l13a"}}}
	_, errs = Consolidate(dup, get)
	if len(errs) != 1 || errs[0].Field != "transformersFrom[1].name" {
		t.Fatalf("want a duplicate at transformersFrom[1].name, got %v", errs)
	}
}
