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

package v1alpha1

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
)

// TestRevisionName: every Template name, up to the 253 characters an object's name may have,
// gives each revision a valid name, its own: two long names that start alike do not share one.
func TestRevisionName(t *testing.T) {
	for _, tc := range []struct {
		template string
		number   int64
		want     string
	}{
		{"web", 3, "web-3"},
		{strings.Repeat("a", 200), 12, strings.Repeat("a", 200) + "-12"},
		{strings.Repeat("a", 251), 1, strings.Repeat("a", 251) + "-1"},
	} {
		if got := RevisionName(tc.template, tc.number); got != tc.want {
			t.Errorf("RevisionName(%d characters, %d) = %q, want %q", len(tc.template), tc.number, got, tc.want)
		}
	}
	seen := map[string]string{}
	for _, name := range []string{
		strings.Repeat("a", 252), strings.Repeat("a", 253), strings.Repeat("a", 240) + ".b." + strings.Repeat("c", 11),
		strings.Repeat("a", 240) + "-" + strings.Repeat("d", 12), strings.Repeat("x.", 126) + "y",
	} {
		for _, number := range []int64{1, 99, 1 << 40} {
			got := RevisionName(name, number)
			if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
				t.Errorf("RevisionName(%d characters, %d) = %q: %v", len(name), number, got, errs)
			}
			if other, ok := seen[got]; ok {
				t.Errorf("%q and %q share the revision name %q", other, name, got)
			}
			seen[got] = name
		}
	}
}

// TestRevisionOwnedBy: a revision is its Template's by its controller reference; one written
// before owners (only the uid label) is its Template's too; an orphaned one is nobody's.
func TestRevisionOwnedBy(t *testing.T) {
	owned := &metav1.ObjectMeta{Labels: map[string]string{LabelTemplateUID: "a", LabelRevisionHash: "0123"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "Template", Name: "web", UID: "a", Controller: ptr.To(true)}}}
	orphaned := &metav1.ObjectMeta{Labels: map[string]string{LabelTemplateUID: "a", LabelRevisionHash: "0123"}}
	legacy := &metav1.ObjectMeta{Labels: map[string]string{LabelTemplateUID: "a"}}
	for _, tc := range []struct {
		name string
		rev  *metav1.ObjectMeta
		uid  string
		want bool
	}{
		{"owned", owned, "a", true}, {"owned by another", owned, "b", false},
		{"orphaned", orphaned, "a", false}, {"legacy", legacy, "a", true}, {"legacy of another", legacy, "b", false},
	} {
		if got := RevisionOwnedBy(tc.rev, types.UID(tc.uid)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
