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
	"context"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/render"
)

// The objects of an answer are slices of the List the engine wrote them in, which only the
// server knows to be dead: once the answer is written, in time. A request whose handler gives
// its answer back (the processing handler) carries an AnswerRelease in its context; Render
// then asks for a pooled List (render.Input.ReleasedOutput) and keeps it there, beside the
// List it answers, for Release. Every other caller of the Adapter (the processed endpoint,
// the TemplateInstance controller, OpenShift's processedtemplates, previews) carries none
// and keeps bytes of its own. The release is the request's own, not a table of Lists: an
// answer that is never given back (a late request, an error after processing) holds nothing
// but its request, which the collector takes with it.

// AnswerRelease is what one request gives back once its answer is written.
type AnswerRelease struct {
	// claimed says a Render took this release: one request's answer is one List.
	claimed bool
	list    *v1alpha1.List
	output  *render.Output
	// carrier is the context WithAnswerRelease returns, held here: a context.WithValue would
	// be an allocation a request of its own.
	carrier carrier[answerReleaseKey, *AnswerRelease]
}

type answerReleaseKey struct{}

// WithAnswerRelease returns ctx carrying r, for the Render of its request to keep its pooled
// output in. The caller must call r.Release with the answer once it is written and nothing
// reads it, or never.
//
// The context returned is held in r (no allocation): a second call for the same r, which no
// caller makes, gets a context.WithValue instead, so that the first context keeps its parent.
func WithAnswerRelease(ctx context.Context, r *AnswerRelease) context.Context {
	if r.carrier.Context != nil {
		return context.WithValue(ctx, answerReleaseKey{}, r)
	}
	r.carrier = carrier[answerReleaseKey, *AnswerRelease]{Context: ctx, value: r}
	return &r.carrier
}

// claimAnswerRelease returns the AnswerRelease of ctx for one Render, nil when ctx has none
// or another Render took it.
func claimAnswerRelease(ctx context.Context) *AnswerRelease {
	r, _ := ctx.Value(answerReleaseKey{}).(*AnswerRelease)
	if r == nil || r.claimed {
		return nil
	}
	r.claimed = true
	return r
}

// Release gives list, the answer written, back (ReleaseAnswer) and, when it is the List
// Render kept in r, the engine's List its objects are slices of: the items are cleared
// before their bytes are given back. A list Render did not answer into r has its own bytes:
// only its room is given back. Nothing is given back the second time.
func (r *AnswerRelease) Release(list *v1alpha1.List) {
	if r == nil || list == nil {
		return
	}
	output := r.output
	own := r.list == list
	r.list, r.output = nil, nil
	ReleaseAnswer(list)
	if own {
		output.ReleaseList()
	}
}
