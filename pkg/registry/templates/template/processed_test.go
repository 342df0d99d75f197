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

package template

import (
	"context"
	"errors"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
)

// missingTemplates answers NotFound and remembers what was asked: a request that reaches it
// got through validation.
type missingTemplates struct{ asked []string }

func (m *missingTemplates) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	m.asked = append(m.asked, name)
	return nil, apierrors.NewNotFound(templates.Resource("templates"), name)
}

func TestPropertyErrors(t *testing.T) {
	cases := []struct {
		name   string
		params templates.TemplateParameters
		want   []string
	}{
		{name: "none"},
		{name: "identifiers", params: templates.TemplateParameters{
			Properties:   map[string]string{"clusterName": "a", "_region": "b", "zone2": "c", "Ωmega": "d"},
			Destinations: []templates.Destination{{Name: "a", Properties: map[string]string{"clusterName": "x"}}},
		}},
		{
			name:   "not identifiers",
			params: templates.TemplateParameters{Properties: map[string]string{"2fast": "", "with-dash": "", "": "", "func": "", "ok": ""}},
			want:   []string{"properties[2fast]: FieldValueInvalid", "properties[]: FieldValueInvalid", "properties[func]: FieldValueInvalid", "properties[with-dash]: FieldValueInvalid"},
		},
		{
			name: "per destination",
			params: templates.TemplateParameters{Destinations: []templates.Destination{
				{Name: "a", Properties: map[string]string{"ok": ""}},
				{Name: "b", Properties: map[string]string{"range": "", "a.b": ""}},
			}},
			want: []string{"destinations[1].properties[a.b]: FieldValueInvalid", "destinations[1].properties[range]: FieldValueInvalid"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range propertyErrors(&tc.params) {
				got = append(got, e.Field+": "+string(e.Type))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestProcessedCreateValidates(t *testing.T) {
	cases := []struct {
		name       string
		body       runtime.Object
		admission  error
		wantCauses []string // of the 422, in its order; nil when the request is not a 422
		wantErr    func(error) bool
		wantRead   bool
	}{
		{
			name:     "valid",
			body:     &templates.TemplateParameters{Parameters: map[string]string{"NAME": "x"}, Properties: map[string]string{"clusterName": "a"}},
			wantErr:  apierrors.IsNotFound,
			wantRead: true,
		},
		{
			name: "API and engine problems in one ordered 422",
			body: &templates.TemplateParameters{
				ObjectMeta: metav1.ObjectMeta{Name: "other"},
				Labels:     map[string]string{"a b": "c"},
				Properties: map[string]string{"not-an-identifier": "x"},
				Destinations: []templates.Destination{
					{Name: "a"}, {Name: "b", Properties: map[string]string{"func": ""}}, {Name: "a"},
				},
			},
			wantCauses: []string{
				"destinations[1].properties[func]",
				"destinations[2].name",
				"labels",
				"metadata.name",
				"properties[not-an-identifier]",
			},
			wantErr: apierrors.IsInvalid,
		},
		{
			name:      "admission refuses",
			body:      &templates.TemplateParameters{},
			admission: apierrors.NewForbidden(templates.Resource("templates"), "web", errors.New("no")),
			wantErr:   apierrors.IsForbidden,
		},
		{
			name:    "not TemplateParameters",
			body:    &templates.Template{},
			wantErr: apierrors.IsBadRequest,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := &missingTemplates{}
			r := NewProcessedREST(store, nil)
			admit := func(context.Context, runtime.Object) error { return tc.admission }
			_, err := r.Create(context.Background(), "web", tc.body, admit, &metav1.CreateOptions{})
			if !tc.wantErr(err) {
				t.Fatalf("unexpected error %v", err)
			}
			if read := len(store.asked) > 0; read != tc.wantRead {
				t.Errorf("template read: %v, want %v", read, tc.wantRead)
			}
			if tc.wantCauses == nil {
				return
			}
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Details.Kind != "TemplateParameters" {
				t.Fatalf("want a 422 of TemplateParameters, got %v", err)
			}
			var got []string
			for _, c := range status.Status().Details.Causes {
				got = append(got, c.Field)
			}
			if !slices.Equal(got, tc.wantCauses) {
				t.Errorf("causes %q, want %q", got, tc.wantCauses)
			}
		})
	}
}
