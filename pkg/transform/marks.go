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

package transform

import "unsafe"

// Generated ConfigMaps and Secrets get a suffix that hashes their content once every
// transformer ran (pkg/transform/generator). A generator marks the objects that get it here,
// and the marks follow an object through the steps, even one that rebuilds it.

// MarkForHash records that obj gets the content-hash name suffix at the end of the pipeline,
// or not: a generator marks what it generates, and the Registry's name hasher renames it.
func (c *Context) MarkForHash(obj Object, hash bool) {
	if !hash {
		return
	}
	if c.needsHash == nil {
		c.needsHash = map[unsafe.Pointer]bool{}
	}
	c.needsHash[ObjectKey(obj)] = true
}

// UnmarkForHash forgets that obj was to get the hash suffix (it was replaced).
func (c *Context) UnmarkForHash(obj Object) { delete(c.needsHash, ObjectKey(obj)) }

// MarkedForHash reports whether obj is to get the hash suffix.
func (c *Context) MarkedForHash(obj Object) bool { return c.needsHash[ObjectKey(obj)] }

// HasHashMarks reports whether any object is to get the hash suffix.
func (c *Context) HasHashMarks() bool { return len(c.needsHash) > 0 }

// hashMarks are the identities of the marked objects before a step, so that the marks follow
// objects a step rebuilt (a Kustomization, a plugin) instead of editing them in place.
type hashMarks []ObjectID

// ObjectID is an object's identity in the list.
type ObjectID struct {
	apiVersion, kind, namespace, name string
}

// IDOf returns obj's identity.
func IDOf(obj Object) ObjectID {
	return ObjectID{NestedString(obj, "apiVersion"), NestedString(obj, "kind"), NamespaceOf(obj), NameOf(obj)}
}

// hashMarksOf returns the identities of the marked objects among objects; nil when none is
// marked, which is the common case and costs nothing.
func (c *Context) hashMarksOf(objects []Object) hashMarks {
	if len(c.needsHash) == 0 {
		return nil
	}
	var marks hashMarks
	for _, obj := range objects {
		if c.needsHash[ObjectKey(obj)] {
			marks = append(marks, IDOf(obj))
		}
	}
	return marks
}

// carryHashMarks marks the objects of out that have the identity of a marked object of the
// step's input but are not that object.
func (c *Context) carryHashMarks(marks hashMarks, out []Object) {
	if len(marks) == 0 {
		return
	}
	want := make(map[ObjectID]bool, len(marks))
	for _, id := range marks {
		want[id] = true
	}
	for _, obj := range out {
		if !c.needsHash[ObjectKey(obj)] && want[IDOf(obj)] {
			c.needsHash[ObjectKey(obj)] = true
		}
	}
}
