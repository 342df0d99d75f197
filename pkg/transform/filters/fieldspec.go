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

package filters

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
)

// FieldSpec names a field that a transformer edits in objects of a group, version and kind,
// exactly as Kustomize's fieldSpecs: an empty group, version or kind matches any, the path is
// slash-separated ("\/" escapes a slash inside a key), "[]" after a segment marks a list, and
// any list met on the way is walked element by element.
type FieldSpec struct {
	// Group, Version and Kind select the objects; empty matches any.
	Group   string `json:"group,omitempty"`
	Version string `json:"version,omitempty"`
	Kind    string `json:"kind,omitempty"`
	// Path is the field, such as "spec/template/metadata/labels".
	Path string `json:"path"`
	// Create adds the field (and the maps leading to it) when it is missing.
	Create bool `json:"create,omitempty"`
}

// segment is one step of a field path.
type segment struct {
	key string
	seq bool // written "key[]": never created
}

// CompiledFieldSpec is a compiled FieldSpec.
type CompiledFieldSpec struct {
	FieldSpec
	segments []segment
}

// splitFieldPath splits a Kustomize field path at unescaped slashes.
func splitFieldPath(path string) ([]segment, error) {
	if path == "" {
		return nil, fmt.Errorf("must not be empty")
	}
	var segs []segment
	var cur strings.Builder
	flush := func() error {
		key := cur.String()
		cur.Reset()
		seq := strings.HasSuffix(key, "[]")
		key = strings.TrimSuffix(key, "[]")
		if key == "" {
			return fmt.Errorf("empty segment in %q", path)
		}
		segs = append(segs, segment{key: key, seq: seq})
		return nil
	}
	for i := 0; i < len(path); i++ {
		switch {
		case path[i] == '\\' && i+1 < len(path) && path[i+1] == '/':
			cur.WriteByte('/')
			i++
		case path[i] == '/':
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			cur.WriteByte(path[i])
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return segs, nil
}

// CompileFieldSpecs compiles user fieldSpecs, reporting bad paths under fldPath.
func CompileFieldSpecs(specs []FieldSpec, fldPath *field.Path) ([]CompiledFieldSpec, field.ErrorList) {
	var errs field.ErrorList
	out := make([]CompiledFieldSpec, 0, len(specs))
	for i, s := range specs {
		segs, err := splitFieldPath(s.Path)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Index(i).Child("path"), s.Path, err.Error()))
			continue
		}
		out = append(out, CompiledFieldSpec{FieldSpec: s, segments: segs})
	}
	return out, errs
}

// MustFieldSpecs compiles a default table; its paths are constants, so a bad one is a bug.
func MustFieldSpecs(specs ...FieldSpec) []CompiledFieldSpec {
	out, errs := CompileFieldSpecs(specs, field.NewPath("defaults"))
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	return out
}

// WithDefaults returns the user's specs when the config gives fieldSpecs (even an empty list),
// and the defaults otherwise. A config copied from a Kustomize `transformers:` entry thus
// behaves exactly as in Kustomize, while a config without fieldSpecs gets Stencil's default
// table instead of Kustomize's nothing (kustomize#4404).
func WithDefaults(defaults, user []CompiledFieldSpec, given bool) SpecSet {
	if given {
		return NewSpecSet(user)
	}
	return NewSpecSet(defaults)
}

// SpecSet indexes field specs by kind, so that an object is only checked against the specs
// that can apply to it (the label defaults alone have thirty).
type SpecSet struct {
	byKind map[string][]*CompiledFieldSpec // specs of a kind plus the kind-less ones, in order
	any    []*CompiledFieldSpec            // the kind-less specs
}

// NewSpecSet indexes specs.
func NewSpecSet(specs []CompiledFieldSpec) SpecSet {
	set := SpecSet{byKind: map[string][]*CompiledFieldSpec{}}
	for i := range specs {
		if specs[i].Kind == "" {
			set.any = append(set.any, &specs[i])
		} else {
			set.byKind[specs[i].Kind] = nil
		}
	}
	for kind := range set.byKind {
		for i := range specs {
			if specs[i].Kind == "" || specs[i].Kind == kind {
				set.byKind[kind] = append(set.byKind[kind], &specs[i])
			}
		}
	}
	return set
}

// ForKind returns the specs that may apply to objects of kind; matches still checks group
// and version.
func (s SpecSet) ForKind(kind string) []*CompiledFieldSpec {
	if l, ok := s.byKind[kind]; ok {
		return l
	}
	return s.any
}

// Matches reports whether the spec applies to objects of id.
func (fs *CompiledFieldSpec) Matches(id transform.GVK) bool {
	return (fs.Kind == "" || fs.Kind == id.Kind) &&
		(fs.Group == "" || fs.Group == id.Group) &&
		(fs.Version == "" || fs.Version == id.Version)
}

// leafFunc is called with the map holding the field and the field's key. The field may be
// missing when the spec creates it; the function decides what to create.
type leafFunc func(parent map[string]any, key string) error

// Apply calls fn on every field of obj the spec names. The caller checks matches first.
func (fs *CompiledFieldSpec) Apply(obj transform.Object, fn leafFunc) error {
	if err := fs.walk(obj, fs.segments, fn); err != nil {
		return fmt.Errorf("field %q of %s: %w", fs.Path, transform.Describe(obj), err)
	}
	return nil
}

func (fs *CompiledFieldSpec) walk(node any, segs []segment, fn leafFunc) error {
	switch n := node.(type) {
	case nil:
		return nil
	case []any:
		// Lists are walked element by element with the same remaining path, as Kustomize does,
		// so "containers/image" and "containers[]/image" mean the same.
		for _, e := range n {
			if err := fs.walk(e, segs, fn); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		seg := segs[0]
		v, ok := n[seg.key]
		if len(segs) == 1 {
			// A missing or null field is only created when the spec says so, and never a list.
			if v == nil && (!fs.Create || seg.seq) {
				return nil
			}
			return fn(n, seg.key)
		}
		if (!ok || v == nil) && fs.Create && !seg.seq {
			m := map[string]any{}
			n[seg.key] = m
			v = m
		}
		return fs.walk(v, segs[1:], fn)
	default:
		return fmt.Errorf("expected an object or a list at %q, found %T", segs[0].key, node)
	}
}

// gvkMatcher is a group/version/kind filter where empty fields match anything.
type gvkMatcher struct {
	group, version, kind string
}

func (m gvkMatcher) matches(id transform.GVK) bool {
	return (m.kind == "" || m.kind == id.Kind) &&
		(m.group == "" || m.group == id.Group) &&
		(m.version == "" || m.version == id.Version)
}
