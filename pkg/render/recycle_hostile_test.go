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

package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
)

// tenantTemplate is a template of one tenant given in a request: its literals, labels and
// values carry the tenant's mark and differ in size from the others', and every other tenant
// has a transformer, so that the objects are decoded and traced too.
func tenantTemplate(tenant int) (*templates.Template, process.Request) {
	var objects []string
	for i := range 1 + tenant%4 {
		objects = append(objects, fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t%d-${NAME}-%d"},"data":{"fixed":"%s","secret":"${SECRET}"}}`,
			tenant, i, strings.Repeat(fmt.Sprintf("t%d.", tenant), 1+(tenant*53)%300)))
	}
	t := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("t%d", tenant)},
		Parameters:   []templates.Parameter{{Name: "NAME", Value: "n"}, {Name: "SECRET"}},
		ObjectLabels: map[string]string{"tenant": fmt.Sprintf("t%d", tenant)},
		Objects:      raw(objects...)}
	if tenant%2 == 1 {
		t.Transformers = raw(fmt.Sprintf(`{"apiVersion":"builtin","kind":"AnnotationsTransformer","metadata":{"name":"a"},"annotations":{"tenant":"t%d"}}`, tenant))
	}
	return t, process.Request{Parameters: map[string]string{"SECRET": strings.Repeat(fmt.Sprintf("s%d", tenant), 1+tenant%9)}}
}

// rendered is what a test keeps of an Output: its List and provenance as bytes, and the
// Output itself, to compare again later.
type rendered struct {
	out              *Output
	list, provenance []byte
}

func keep(t *testing.T, out *Output) rendered {
	provenance, err := json.Marshal(out.Provenance)
	if err != nil {
		t.Fatal(err)
	}
	return rendered{out: out, list: bytes.Clone(out.List()), provenance: provenance}
}

// unchanged reports whether the Output still is what it was when kept.
func (r rendered) unchanged() bool {
	provenance, _ := json.Marshal(r.out.Provenance)
	return bytes.Equal(r.out.List(), r.list) && bytes.Equal(provenance, r.provenance)
}

// TestRendersOfRequestTemplatesShareNoMemory: tenants render the templates of their requests
// at once, with provenance for some and the server's memory charge for others, so that the
// plans compiled for them reuse each other's memory; each Output is the bytes (and provenance)
// of the same template rendered through a cached plan, which shares no memory, and every
// Output is still so once all are done. Run under -race, it also finds memory two renders
// share.
func TestRendersOfRequestTemplatesShareNoMemory(t *testing.T) {
	const tenants, rounds = 10, 25
	r := NewRenderer(Options{})
	var wg sync.WaitGroup
	kept := make([][]rendered, tenants)
	for tenant := range tenants {
		wg.Go(func() {
			tmpl, req := tenantTemplate(tenant)
			in := Input{Template: tmpl, Request: req}
			if tenant%3 == 0 {
				in.Provenance = &ProvenanceOptions{}
			}
			stored := *tmpl
			stored.UID, stored.ResourceVersion = types.UID(fmt.Sprint("uid-", tenant)), "1"
			reference := in
			reference.Template, reference.Stored = &stored, true
			want, errs, err := r.Render(context.Background(), reference)
			if err != nil || len(errs) > 0 {
				t.Errorf("tenant %d: %v %v", tenant, err, errs)
				return
			}
			wanted := keep(t, want)
			for round := range rounds {
				in.Memory = nil
				if round%2 == 1 {
					in.Memory = &recordingMemory{capacity: 1 << 30}
				}
				out, errs, err := r.Render(context.Background(), in)
				if err != nil || len(errs) > 0 {
					t.Errorf("tenant %d: %v %v", tenant, err, errs)
					return
				}
				got := keep(t, out)
				if !bytes.Equal(got.list, wanted.list) || !bytes.Equal(got.provenance, wanted.provenance) {
					t.Errorf("tenant %d got\n%s\n%s\nwant\n%s\n%s", tenant, got.list, got.provenance, wanted.list, wanted.provenance)
					return
				}
				kept[tenant] = append(kept[tenant], got)
			}
		})
	}
	wg.Wait()
	for tenant := range kept {
		for _, k := range kept[tenant] {
			if !k.unchanged() {
				t.Fatalf("tenant %d: an Output changed after its plan was disposed of: %s", tenant, k.out.List())
			}
		}
	}
}

// TestRendersCutShortDisposeSafely: a render stopped after the engine ran (its deadline
// passed, its memory refused to grow mid-execute) disposes of its plan; the Outputs rendered
// before, and the renders after, are whole.
func TestRendersCutShortDisposeSafely(t *testing.T) {
	r := NewRenderer(Options{})
	tmpl, req := tenantTemplate(5)
	before, errs, err := r.Render(context.Background(), Input{Template: tmpl, Request: req, Provenance: &ProvenanceOptions{}})
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	kept := keep(t, before)

	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := r.Render(ended, Input{Template: tmpl, Request: req, Provenance: &ProvenanceOptions{}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a render past its deadline answered %v", err)
	}
	refused := errors.New("no room")
	big := bigOutput(3000)
	in := Input{Template: big, Request: process.Request{Parameters: map[string]string{"V": strings.Repeat("v", 1<<10)}},
		Memory: &recordingMemory{capacity: 1 << 40, growErr: refused}}
	if _, _, err := r.Render(context.Background(), in); !errors.Is(err, refused) {
		t.Fatalf("a render whose memory refused to grow answered %v", err)
	}
	for range 3 {
		after, errs, err := r.Render(context.Background(), Input{Template: tmpl, Request: req, Provenance: &ProvenanceOptions{}})
		if err != nil || len(errs) > 0 {
			t.Fatal(err, errs)
		}
		if got := keep(t, after); !bytes.Equal(got.list, kept.list) || !bytes.Equal(got.provenance, kept.provenance) {
			t.Fatalf("a render after the cut ones answered\n%s\nwant\n%s", got.list, kept.list)
		}
	}
	if !kept.unchanged() {
		t.Fatalf("an Output changed after renders that were cut short: %s", before.List())
	}
}
