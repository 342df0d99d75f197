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
	"bytes"
	"context"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
)

// releaseTemplate is a Template whose one object holds value, padded so that every List of
// these tests is of one of the engine's pooled size classes (4 KiB).
func releaseTemplate(t *testing.T, value string) render.Input {
	t.Helper()
	tmpl, _, err := process.DecodeTemplate([]byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},` +
		`"parameters":[{"name":"P","value":"` + value + `"}],"objects":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c-${P}"},` +
		`"data":{"pad":"` + strings.Repeat("x", 2500) + `"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return render.Input{Template: tmpl}
}

// renderReleasable renders value's template as the processing handler does: with an
// AnswerRelease in the request's context.
func renderReleasable(t *testing.T, a *Adapter, value string) (*v1alpha1.List, *AnswerRelease) {
	t.Helper()
	release := &AnswerRelease{}
	list, err := a.Render(WithAnswerRelease(context.Background(), release), releaseTemplate(t, value))
	if err != nil {
		t.Fatal(err)
	}
	return list, release
}

// TestAnswerReleaseGivesTheListBack checks that an answer released gives the engine's List
// back (its objects' bytes serve a later answer), so that the tests attacking the reuse
// attack something, and that a List is cleared before its bytes are given back.
func TestAnswerReleaseGivesTheListBack(t *testing.T) {
	a := NewAdapter(Sources{})
	reused := false
	// The pool may drop what it is given (it does at random under the race detector).
	for range 50 {
		list, release := renderReleasable(t, a, "first")
		raw := list.Items[0].Raw
		release.Release(list)
		if list.Items != nil && len(list.Items) > 0 {
			t.Fatal("a List released kept its items")
		}
		next, nextRelease := renderReleasable(t, a, "second")
		if &next.Items[0].Raw[0] == &raw[0] {
			reused = true
			nextRelease.Release(next)
			break
		}
		nextRelease.Release(next)
	}
	if !reused {
		t.Error("the bytes of an answer released never served another")
	}
}

// TestAnswerReleaseIsHarmless releases Lists twice, Lists Render did not answer into the
// release, and answers of every caller that gives nothing back (no AnswerRelease, a second
// Render of one request, provenance): none of their bytes may ever serve another answer,
// which the answers released around them would show by overwriting them.
func TestAnswerReleaseIsHarmless(t *testing.T) {
	a := NewAdapter(Sources{})
	type kept struct {
		what string
		raw  []byte
		was  []byte
	}
	var keep []kept
	hold := func(what string, list *v1alpha1.List) {
		raw := list.Items[0].Raw
		keep = append(keep, kept{what, raw, bytes.Clone(raw)})
	}

	// Released twice: the List and its bytes go back once.
	twice, release := renderReleasable(t, a, "twice")
	release.Release(twice)
	release.Release(twice)
	ReleaseAnswer(twice)
	if first, second := answerFromPool(), answerFromPool(); first != nil && first == second {
		t.Error("a List released twice was given to two answers")
	}

	// A List Render did not answer into the release: its bytes are its own, and the
	// release's own answer, never given back, keeps its bytes.
	owned, release := renderReleasable(t, a, "owned")
	hold("the answer of a release given another List", owned)
	foreignRaw := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"foreign"},"data":{"pad":"` + strings.Repeat("f", 2500) + `"}}`)
	foreignList := &v1alpha1.List{}
	foreignList.Kind = "List"
	foreignList.Items = append(foreignList.Items, owned.Items[0])
	foreignList.Items[0].Raw = foreignRaw
	keep = append(keep, kept{"a List not from Render", foreignRaw, bytes.Clone(foreignRaw)})
	release.Release(foreignList)

	// No AnswerRelease: the processed endpoint, OpenShift's processedtemplates, previews.
	plain, err := a.Render(context.Background(), releaseTemplate(t, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	hold("an answer without AnswerRelease", plain)
	ReleaseAnswer(plain)
	objects, err := a.RenderObjects(WithAnswerRelease(context.Background(), &AnswerRelease{}), releaseTemplate(t, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	keep = append(keep, kept{"RenderObjects' output", objects.Objects[0], bytes.Clone(objects.Objects[0])})

	// A second Render of one request's context: the release is the first's.
	shared := &AnswerRelease{}
	ctx := WithAnswerRelease(context.Background(), shared)
	first, err := a.Render(ctx, releaseTemplate(t, "first-of-two"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.Render(ctx, releaseTemplate(t, "second-of-two"))
	if err != nil {
		t.Fatal(err)
	}
	hold("a second Render of one request", second)
	shared.Release(second)
	hold("the first Render of a request whose release was given the second's answer", first)

	// Provenance: its trace read the engine's bytes.
	withTrace := &AnswerRelease{}
	ctx = context.WithValue(WithAnswerRelease(context.Background(), withTrace), provenanceKey{}, provenanceAsked{asked: true})
	traced, err := a.Render(ctx, releaseTemplate(t, "traced"))
	if err != nil {
		t.Fatal(err)
	}
	hold("an answer with provenance", traced)
	withTrace.Release(traced)

	// Answers released in time around them, of the same size class.
	for range 100 {
		list, release := renderReleasable(t, a, "other")
		release.Release(list)
	}
	for _, k := range keep {
		if !bytes.Equal(k.raw, k.was) {
			t.Errorf("%s changed: %.80q, was %.80q", k.what, k.raw, k.was)
		}
	}
}

// answerFromPool is the List the next answer is made in.
func answerFromPool() *v1alpha1.List {
	list, _ := answers.Get().(*v1alpha1.List)
	return list
}
