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

package adopt

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The labels and annotations of KEP-3659 ApplySets, which kubectl apply --applyset writes.
const (
	ApplySetIDLabel              = "applyset.kubernetes.io/id"
	ApplySetPartOfLabel          = "applyset.kubernetes.io/part-of"
	ApplySetToolingAnnotation    = "applyset.kubernetes.io/tooling"
	ApplySetGroupKindsAnnotation = "applyset.kubernetes.io/contains-group-kinds"
	// applySetGroupResourcesAnnotation is the older spelling of the member kinds, as
	// resources; kubectl still reads it.
	applySetGroupResourcesAnnotation = "applyset.kubernetes.io/contains-group-resources"
	ApplySetNamespacesAnnotation     = "applyset.kubernetes.io/additional-namespaces"
)

// ApplySetID is the id of the ApplySet whose parent is parent: "applyset-" and the unpadded
// URL-safe base64 of the SHA-256 of name.namespace.Kind.group, and "-v1", as the KEP defines
// it. A parent's id label must be this value, so that no object can claim another's members.
func ApplySetID(parent Ref) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{parent.Name, parent.Namespace, parent.Kind, parent.Group}, ".")))
	return "applyset-" + base64.RawURLEncoding.EncodeToString(sum[:]) + "-v1"
}

// ApplySet is what a parent object says of its set.
type ApplySet struct {
	Parent Ref
	// ID is the value of the members' part-of label.
	ID string
	// Tooling is the tool that manages the set: "kubectl/v1.37.1".
	Tooling string
	// GroupKinds are the kinds of the members, as the parent lists them.
	GroupKinds []schema.GroupKind
	// GroupResources are the members' resources, when the parent lists those instead
	// (the annotation's older spelling).
	GroupResources []schema.GroupResource
	// Namespaces are where members may be: the parent's and the additional ones.
	Namespaces []string
}

// ReadApplySet reads a parent's labels and annotations. A parent whose id label is not its
// own id, that names no tool, or that lists no member kinds, is refused: the KEP requires all
// three, and without the kinds nothing tells which objects are members.
func ReadApplySet(parent Ref, labels, annotations map[string]string) (*ApplySet, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("ApplySet parent %s: %s", parent, fmt.Sprintf(format, args...))
	}
	id, want := labels[ApplySetIDLabel], ApplySetID(parent)
	switch {
	case id == "":
		return nil, bad("it has no %s label: it is no ApplySet parent", ApplySetIDLabel)
	case id != want:
		return nil, bad("its %s label is %q, not its own id %q", ApplySetIDLabel, id, want)
	case annotations[ApplySetToolingAnnotation] == "":
		return nil, bad("it has no %s annotation", ApplySetToolingAnnotation)
	}
	set := &ApplySet{Parent: parent, ID: id, Tooling: annotations[ApplySetToolingAnnotation]}
	if kinds, ok := annotations[ApplySetGroupKindsAnnotation]; ok {
		for _, s := range splitList(kinds) {
			set.GroupKinds = append(set.GroupKinds, schema.ParseGroupKind(s))
		}
	} else if resources, ok := annotations[applySetGroupResourcesAnnotation]; ok {
		for _, s := range splitList(resources) {
			set.GroupResources = append(set.GroupResources, schema.ParseGroupResource(s))
		}
	} else {
		return nil, bad("it has no %s annotation listing its members' kinds", ApplySetGroupKindsAnnotation)
	}
	namespaces := map[string]bool{}
	if parent.Namespace != "" {
		namespaces[parent.Namespace] = true
	}
	for _, ns := range splitList(annotations[ApplySetNamespacesAnnotation]) {
		namespaces[ns] = true
	}
	for ns := range namespaces {
		set.Namespaces = append(set.Namespaces, ns)
	}
	sort.Strings(set.Namespaces)
	return set, nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// MemberSelector selects the members of the set.
func (s *ApplySet) MemberSelector() string { return ApplySetPartOfLabel + "=" + s.ID }
