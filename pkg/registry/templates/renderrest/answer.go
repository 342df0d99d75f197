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
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/render"
)

// answers keeps the Lists of answers written and released (ReleaseAnswer), with the room of
// their items and parameters, for the next answers. An answer's parameters are the API's
// type, 224 bytes each: a template of twenty parameters made a 4.5 KB slice for every answer
// only to be written once, which the collector then had to find dead (about 6% of the bytes
// a POST /processedtemplates allocates on the corpus).
var answers sync.Pool

// Bounds of what a released List may keep for the next answer: a List that held more goes to
// the collector, so that one large answer does not keep its room for as long as the pool
// keeps it.
const (
	maxPooledItems      = 1024
	maxPooledParameters = 256
)

// answer wraps the processed objects, as they are, into the v1 List the endpoints return.
func answer(out *render.Output) (*v1alpha1.List, error) {
	list, _ := answers.Get().(*v1alpha1.List)
	if list == nil {
		list = &v1alpha1.List{}
	}
	list.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "List"}
	list.Message = out.Message
	// The items are the objects as they are: provenance is beside them, never in them.
	list.Provenance = out.Provenance
	list.Items = resized(list.Items, len(out.Objects))
	for i, obj := range out.Objects {
		list.Items[i].Raw = obj
	}
	if len(out.Parameters) > 0 {
		list.Parameters = resized(list.Parameters, len(out.Parameters))
	} else {
		// What the answer always was without parameters: none, not an empty list.
		list.Parameters = nil
	}
	for i := range out.Parameters {
		if err := v1alpha1.Convert_templates_Parameter_To_v1alpha1_Parameter(&out.Parameters[i], &list.Parameters[i], nil); err != nil {
			return nil, fmt.Errorf("converting parameter %s: %w", out.Parameters[i].Name, err)
		}
	}
	return list, nil
}

// resized returns s with length n, in its own room when it has enough; its elements are
// zero (a released List's are: ReleaseAnswer clears them).
func resized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// ReleaseAnswer gives list, an answer of Render, back for the next answers. The caller must
// be done with it: its answer is written, and nothing it handed list (or any of its items,
// parameters or provenance) to keeps them, as the processing handler is once it has written
// its answer. Everything list held is cleared first, so that a released List keeps no
// request's values (a generated secret among them) and pins none of its memory.
func ReleaseAnswer(list *v1alpha1.List) {
	// A List released before has no kind (answer gives every List its kind): put in the pool
	// twice, it would be two answers at once.
	if list == nil || list.Kind == "" || cap(list.Items) > maxPooledItems || cap(list.Parameters) > maxPooledParameters {
		return
	}
	// Only what the answer used: the room past it is zero, as answer (resized) handed it out,
	// and nothing re-slices an answer's items or parameters. Clearing the whole room cost every
	// answer the room of the largest one the List ever held (up to 1,024 items and 256
	// parameters of 224 bytes), more than a small template's whole answer.
	clear(list.Items)
	clear(list.Parameters)
	*list = v1alpha1.List{Items: list.Items[:0], Parameters: list.Parameters[:0]}
	answers.Put(list)
}
