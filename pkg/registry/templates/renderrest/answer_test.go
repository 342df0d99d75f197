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

package renderrest

import (
	"fmt"
	"reflect"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/render"
)

// TestReleaseAnswer checks that a released List keeps nothing of its request (a generated
// secret in its parameters, its objects, message and provenance), that the next answer made
// from it equals one made anew, and that a List past the bounds is not kept.
func TestReleaseAnswer(t *testing.T) {
	out := func(objects, parameters int) *render.Output {
		o := &render.Output{Message: fmt.Sprintf("m%d", objects)}
		for i := range objects {
			o.Objects = append(o.Objects, []byte(fmt.Sprintf(`{"kind":"ConfigMap","n":%d}`, i)))
		}
		for i := range parameters {
			o.Parameters = append(o.Parameters, templates.Parameter{Name: fmt.Sprintf("P%d", i), Value: "secret", Generate: "expression"})
		}
		return o
	}
	for _, c := range []struct{ objects, parameters int }{{3, 5}, {1, 0}, {0, 2}, {7, 9}, {2, 1}} {
		list, err := answer(out(c.objects, c.parameters))
		if err != nil {
			t.Fatal(err)
		}
		fresh := &v1alpha1.List{}
		*fresh = *list
		fresh.Items = append(fresh.Items[:0:0], list.Items...)
		fresh.Parameters = append(fresh.Parameters[:0:0], list.Parameters...)
		if len(list.Parameters) == 0 {
			fresh.Parameters = nil
		}
		items, parameters := list.Items[:cap(list.Items)], list.Parameters[:cap(list.Parameters)]
		ReleaseAnswer(list)
		for i := range items {
			if items[i].Raw != nil || items[i].Object != nil {
				t.Errorf("%v: item %d kept after release", c, i)
			}
		}
		for i := range parameters {
			if !reflect.DeepEqual(parameters[i], v1alpha1.Parameter{}) {
				t.Errorf("%v: parameter %d kept after release: %+v", c, i, parameters[i])
			}
		}
		if list.Message != "" || list.Provenance != nil || list.Kind != "" {
			t.Errorf("%v: the list kept its request: %+v", c, list)
		}
		again, err := answer(out(c.objects, c.parameters))
		if err != nil {
			t.Fatal(err)
		}
		// No objects: the items are empty, nil or not as the pool had a List to give (it
		// drops Lists at random under the race detector); the handler writes either as [].
		if len(again.Items) == 0 && len(fresh.Items) == 0 {
			fresh.Items = again.Items
		}
		if !reflect.DeepEqual(again, fresh) {
			t.Errorf("%v: an answer made from a released List:\n%+v\nwant\n%+v", c, again, fresh)
		}
		ReleaseAnswer(again)
	}
	// Past the bounds: not kept, so not cleared either (the collector takes it).
	big, err := answer(out(maxPooledItems+1, 1))
	if err != nil {
		t.Fatal(err)
	}
	ReleaseAnswer(big)
	if big.Items[0].Raw == nil {
		t.Error("a List past the pool's bounds was taken")
	}
	ReleaseAnswer(nil)
}
