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

package process

import (
	"slices"
	"strings"
	"unsafe"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/provenance"
)

// The paths a trace walks: the template path with its places in the file, the output path
// of a flat trace, and the output object's members in the order a Node lists them.

// pushOut adds a step to the output path of a flat trace (a member name as the map writes
// it, masked); popOut removes it.
func (tr *tracer) pushOut(s positions.Step) {
	if !tr.flat {
		return
	}
	if !s.IsIndex && tr.mask != nil {
		s.Key = tr.mask(s.Key)
	}
	tr.outEnds = append(tr.outEnds, len(tr.outPath))
	tr.outPath = positions.AppendStep(tr.outPath, s)
}

func (tr *tracer) popOut() {
	if !tr.flat {
		return
	}
	tr.outPath = tr.outPath[:tr.outEnds[len(tr.outEnds)-1]]
	tr.outEnds = tr.outEnds[:len(tr.outEnds)-1]
}

func (tr *tracer) source() provenance.Source {
	s := provenance.Source{Kind: provenance.Template, Path: tr.alloc.String(tr.pathText)}
	if n := len(tr.places); n > 0 && tr.places[n-1].Exact() {
		// Placed here, one step from its parent's place; others are placed by the map
		// (provenance.Locate), by their whole path.
		pos := tr.index.Start(tr.places[n-1], &tr.line)
		s.File, s.Line, s.Column = tr.index.File(), int32(pos.Line), int32(pos.Column)
	}
	return s
}

// push adds a step to the template path (and its place in the file, when there is one),
// whose value is at (NoValue for unknown); pop removes the last. A template walked in the
// file's own tree (tr.document) is at its place already; else the place is a step from the
// parent's.
func (tr *tracer) push(s positions.Step, at positions.JSONValue) {
	tr.path = append(tr.path, s)
	tr.ends = append(tr.ends, len(tr.pathText))
	tr.pathText = positions.AppendStep(tr.pathText, s)
	if n := len(tr.places); n > 0 {
		if tr.tmpl == tr.document && at != positions.NoValue && tr.places[n-1].Exact() {
			tr.places = append(tr.places, tr.index.PlaceAt(at, len(tr.path)))
		} else {
			tr.places = append(tr.places, tr.index.Step(tr.places[n-1], s))
		}
	}
}

func (tr *tracer) pop() {
	tr.path = tr.path[:len(tr.path)-1]
	tr.pathText = tr.pathText[:tr.ends[len(tr.ends)-1]]
	tr.ends = tr.ends[:len(tr.ends)-1]
	if n := len(tr.places); n > 1 {
		tr.places = tr.places[:n-1]
	}
}

// outMember is a member of an output object: its name and value.
type outMember struct {
	name  string
	value positions.JSONValue
}

// sortedMembers pushes the members of the output object ov, ordered by name (a Node lists
// its members in order), onto the scratch stack tr.members; popMembers pops them. Their names
// are kept in the trace's blocks: the Nodes hold them.
func (tr *tracer) sortedMembers(ov positions.JSONValue) []outMember {
	start := len(tr.members)
	for i := range tr.out.Len(ov) {
		name, v := tr.out.MemberAt(ov, i)
		var s string
		if tr.flat {
			// A flat trace keeps no name (its paths are copied out of outPath): a view of
			// the output's bytes, valid while the walk is in this object, does.
			s = unsafe.String(unsafe.SliceData(name), len(name))
		} else {
			s = tr.alloc.String(name)
		}
		tr.members = append(tr.members, outMember{name: s, value: v})
	}
	members := tr.members[start:]
	if len(members) > 12 {
		slices.SortFunc(members, func(a, b outMember) int { return strings.Compare(a.name, b.name) })
	} else {
		for i := 1; i < len(members); i++ {
			for j := i; j > 0 && members[j].name < members[j-1].name; j-- {
				members[j], members[j-1] = members[j-1], members[j]
			}
		}
	}
	return members
}

func (tr *tracer) popMembers(members []outMember) {
	tr.members = tr.members[:len(tr.members)-len(members)]
}
