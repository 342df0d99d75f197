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

package corpusbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/render"
)

// Engine processes a template file as `stencil process --local -f FILE -p ...` does: the file
// read by process.ReadTemplateFile, rendered by a pkg/render Renderer with the values, and
// the List's bytes.
func Engine(r *render.Renderer, file []byte, values map[string]string) ([]byte, error) {
	f, err := process.ReadTemplateFile("template", file, false)
	if err != nil {
		return nil, err
	}
	out, errs, err := r.Render(context.Background(), render.Input{Template: f.Template, Request: process.Request{Parameters: values}})
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return out.List(), nil
}

// Stored reads a template file once as a stored Template (a UID and a resourceVersion), for
// Cached.
func Stored(file []byte, uid string) (*templates.Template, error) {
	t, _, _, err := process.DecodeTemplateFile(file)
	if err != nil {
		return nil, err
	}
	t.UID, t.ResourceVersion = types.UID(uid), "1"
	return t, nil
}

// Cached processes a stored template through a cached plan as templates/{name}/processed does
// once it has read the template and the request: the server's adapter of processing
// (renderrest, with its memory budget) renders it, the plan compiled on the first call and
// reused after, and the answer's List is built; the List's bytes are returned.
func Cached(a *renderrest.Adapter, t *templates.Template, values map[string]string) ([]byte, error) {
	ctx := request.WithNamespace(context.Background(), "bench")
	list, err := a.Render(ctx, render.Input{Template: t, Stored: true, Request: process.Request{Parameters: values}})
	if err != nil {
		return nil, err
	}
	items := make([]json.RawMessage, len(list.Items))
	for i, item := range list.Items {
		items[i] = item.Raw
	}
	return process.ListBytes(items), nil
}

// RoundTrip is encoding/json decoding the template's JSON into maps (numbers kept as
// written) and encoding it again: the least a generic decode -> walk -> encode design pays.
func RoundTrip(data []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// SameItems reports whether got and want hold the same objects as JSON values (member
// order and number spelling aside).
func SameItems(got, want []json.RawMessage) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d items, OpenShift gave %d", len(got), len(want))
	}
	for i := range got {
		var g, w any
		if err := json.Unmarshal(got[i], &g); err != nil {
			return err
		}
		if err := json.Unmarshal(want[i], &w); err != nil {
			return err
		}
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if !bytes.Equal(gb, wb) {
			return fmt.Errorf("item %d differs:\n got %s\nwant %s", i, gb, wb)
		}
	}
	return nil
}

// ListItems are the items of a v1 List's bytes.
func ListItems(list []byte) ([]json.RawMessage, error) {
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(list, &l); err != nil {
		return nil, err
	}
	return l.Items, nil
}
