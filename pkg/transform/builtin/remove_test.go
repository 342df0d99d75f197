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

package builtin

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
)

func TestRemoveTransformer(t *testing.T) {
	const objects = `[
		{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"a","labels":{"tier":"front"}},"spec":{"ports":[{"port":80,"nodePort":30080}],"x":1}},
		{"apiVersion":"v1","kind":"Service","metadata":{"name":"db","namespace":"b","annotations":{"keep":"yes"}},"spec":{"ports":[{"port":5432,"nodePort":30432}],"x":1}},
		{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"a"},"spec":{"x":1}}]`
	tests := []struct {
		name    string
		config  string
		want    string
		warning string
	}{
		{
			name:   "no target removes from every object",
			config: `"paths":["$.spec.x"]`,
			want: `[{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"tier":"front"},"name":"web","namespace":"a"},"spec":{"ports":[{"nodePort":30080,"port":80}]}},
				{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{"keep":"yes"},"name":"db","namespace":"b"},"spec":{"ports":[{"nodePort":30432,"port":5432}]}},
				{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"a"},"spec":{}}]`,
		},
		{
			name:   "target kind and wildcard path",
			config: `"target":{"kind":"Service"},"paths":["$.spec.ports[*].nodePort","$.metadata.labels"]`,
			want: `[{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"a"},"spec":{"ports":[{"port":80}],"x":1}},
				{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{"keep":"yes"},"name":"db","namespace":"b"},"spec":{"ports":[{"port":5432}],"x":1}},
				{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"a"},"spec":{"x":1}}]`,
		},
		{
			name:   "target fields are anchored regular expressions",
			config: `"target":{"group":"app.","version":"v1","name":"w.*","namespace":"a"},"paths":["$.spec"]`,
			want: `[{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"tier":"front"},"name":"web","namespace":"a"},"spec":{"ports":[{"nodePort":30080,"port":80}],"x":1}},
				{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{"keep":"yes"},"name":"db","namespace":"b"},"spec":{"ports":[{"nodePort":30432,"port":5432}],"x":1}},
				{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"a"}}]`,
		},
		{
			name:   "label and annotation selectors",
			config: `"target":{"labelSelector":"tier=front"},"paths":["$.spec.x"]`,
			want: `[{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"tier":"front"},"name":"web","namespace":"a"},"spec":{"ports":[{"nodePort":30080,"port":80}]}},
				{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{"keep":"yes"},"name":"db","namespace":"b"},"spec":{"ports":[{"nodePort":30432,"port":5432}],"x":1}},
				{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"a"},"spec":{"x":1}}]`,
		},
		{
			name:   "annotation selector",
			config: `"target":{"annotationSelector":"keep"},"paths":["$.spec.ports[0]"]`,
			want: `[{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"tier":"front"},"name":"web","namespace":"a"},"spec":{"ports":[{"nodePort":30080,"port":80}],"x":1}},
				{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{"keep":"yes"},"name":"db","namespace":"b"},"spec":{"ports":[],"x":1}},
				{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"a"},"spec":{"x":1}}]`,
		},
		{
			name:    "a target that matches nothing warns",
			config:  `"target":{"kind":"Serv"},"paths":["$.spec"]`,
			want:    objects,
			warning: "target matches none of the 3 objects",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, errs := newRemoveTransformer([]byte(`{"apiVersion":"builtin","kind":"RemoveTransformer","metadata":{"name":"r"},`+tt.config+`}`), field.NewPath("transformers").Index(0))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var objs []transform.Object
			for _, o := range ksList(t, objects) {
				objs = append(objs, o)
			}
			ctx := &transform.Context{}
			out, err := tr.Transform(ctx, objs)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := ksJSON(t, out), ksJSON(t, ksList(t, tt.want)); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if w := strings.Join(ctx.Warnings(), "\n"); tt.warning == "" && w != "" || !strings.Contains(w, tt.warning) {
				t.Errorf("warnings %q, want %q", w, tt.warning)
			}
		})
	}
}

func TestRemoveTransformerConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		config string
		want   []string // "field: substring"
	}{
		{"paths required", ``, []string{"transformers[3].paths: Required value"}},
		{"empty paths", `,"paths":[]`, []string{"transformers[3].paths: Required value"}},
		{
			"each bad path named with its byte offset",
			`,"paths":["$.ok","$ .a","$","$[\"\\x41\"]"]`,
			[]string{
				"transformers[3].paths[1]: Invalid value: \"$ .a\": invalid JSONPath at byte 1: whitespace",
				"transformers[3].paths[2]: Invalid value: \"$\": invalid JSONPath at byte 1",
				"transformers[3].paths[3]: Invalid value: \"$[\\\"\\\\x41\\\"]\": invalid JSONPath at byte 3: invalid escape",
			},
		},
		{
			"bad target",
			`,"target":{"name":"(","labelSelector":"a in (","kindd":"x"},"paths":["$.a"]`,
			[]string{"transformers[3].target.kindd: Forbidden"},
		},
		{
			"bad regex and selector",
			`,"target":{"name":"(","labelSelector":"a in ("},"paths":["$.a"]`,
			[]string{"transformers[3].target.name: Invalid value", "transformers[3].target.labelSelector: Invalid value"},
		},
		{"paths of the wrong type", `,"paths":"$.a"`, []string{"transformers[3].paths: Invalid value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := newRemoveTransformer([]byte(`{"apiVersion":"builtin","kind":"RemoveTransformer","metadata":{"name":"r"}`+tt.config+`}`), field.NewPath("transformers").Index(3))
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors %v, want %d", len(errs), errs, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %d = %q, want %q", i, errs[i].Error(), w)
				}
			}
		})
	}
}

// ksList decodes a JSON array of test objects.
func ksList(t testing.TB, s string) []transform.Object {
	t.Helper()
	var list []transform.Object
	for _, item := range ksObject(t, `{"items":`+s+`}`)["items"].([]any) {
		list = append(list, item.(map[string]any))
	}
	return list
}
