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

package templaterevision

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func template(object string) *templates.Template {
	return &templates.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps", UID: "u1", ResourceVersion: "5", Labels: map[string]string{"a": "b"}},
		Message:    "hello ${NAME}",
		Parameters: []templates.Parameter{{Name: "NAME", Value: "web", Required: true, Secret: true}},
		Objects:    []runtime.RawExtension{{Raw: []byte(object)}},
		Author:     &templates.TemplateAuthor{Username: "alice"},
		Revision:   &templates.RevisionStamp{Number: 3, Hash: "sha256:x"},
	}
}

// TestCanonical: one content has one text and one hash, whatever the order of members and the
// spacing its writer used and whatever its metadata, author and revision say; another content
// has another.
func TestCanonical(t *testing.T) {
	a := template(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"x":"1","y":2}}`)
	b := template(`{ "kind": "ConfigMap", "data": {"y": 2, "x": "1"}, "metadata": {"name": "${NAME}"}, "apiVersion": "v1" }`)
	b.Labels, b.Author, b.Revision, b.UID = nil, &templates.TemplateAuthor{Username: "bob"}, nil, "u2"
	ca, ha, err := Canonical(a)
	if err != nil {
		t.Fatal(err)
	}
	cb, hb, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(ca) != string(cb) || ha != hb {
		t.Errorf("one content, two texts:\n%s\n%s", ca, cb)
	}
	want := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","message":"hello ${NAME}",` +
		`"objects":[{"apiVersion":"v1","data":{"x":"1","y":2},"kind":"ConfigMap","metadata":{"name":"${NAME}"}}],` +
		`"parameters":[{"name":"NAME","required":true,"secret":true,"value":"web"}]}`
	if string(ca) != want {
		t.Errorf("canonical content\n%s\nwant\n%s", ca, want)
	}
	if ha != Hash(ca) {
		t.Errorf("hash %s is not the content's", ha)
	}
	c := template(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"x":"1","y":3}}`)
	if _, hc, _ := Canonical(c); hc == ha {
		t.Errorf("two contents, one hash %s", hc)
	}
}

// TestTemplateOf: a revision's content reads back as the Template it was, with the revision's
// author and number, named as its Template and versioned as the revision (for the plan cache).
func TestTemplateOf(t *testing.T) {
	orig := template(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"}}`)
	content, hash, err := Canonical(orig)
	if err != nil {
		t.Fatal(err)
	}
	rev := &templates.TemplateRevision{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.RevisionName("web", 3), Namespace: "apps", UID: "rev-uid", ResourceVersion: "42"},
		Template:   "web", Revision: 3, Hash: hash, Author: &templates.TemplateAuthor{Username: "carol"},
		Content: runtime.RawExtension{Raw: content},
	}
	got, err := TemplateOf(rev)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "web" || got.Namespace != "apps" || got.UID != "rev-uid" || got.ResourceVersion != "42" ||
		got.Author.Username != "carol" || *got.Revision != (templates.RevisionStamp{Number: 3, Hash: hash}) {
		t.Errorf("read back as %s/%s uid %s rv %s author %+v revision %+v", got.Namespace, got.Name, got.UID, got.ResourceVersion, got.Author, got.Revision)
	}
	_, again, err := Canonical(got)
	if err != nil || again != hash {
		t.Errorf("read back with another content: %s, want %s (%v)", again, hash, err)
	}
	want := orig.DeepCopy()
	want.ObjectMeta, got.ObjectMeta = metav1.ObjectMeta{}, metav1.ObjectMeta{}
	want.Author, got.Author, want.Revision, got.Revision = nil, nil, nil, nil
	if !apiequality.Semantic.DeepEqual(got.Parameters, want.Parameters) || got.Message != want.Message {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
}
