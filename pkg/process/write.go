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
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// frame is an object being written whose ops decide on its members at run time.
type frame struct {
	start int
	flags uint8
	// keyPath indexes the plan's keyPaths when the keys are checked.
	keyPath uint32
}

// run executes the ops from..to, appending to the buffer.
func (x *executor) run(from, to int) {
	p := x.plan
	ops, arena := p.ops, p.arena
	for pc := from; pc < to; pc++ {
		// One comparison per op keeps a request from growing the output without bound; the
		// buffer passes the limit by one value at most.
		if len(x.buf) > x.limit && !x.raise(len(x.buf)) {
			x.overflow = true
			return
		}
		o := &ops[pc]
		switch o.code {
		case opLit:
			x.buf = append(x.buf, arena[o.a:o.a+o.b]...)
		case opText:
			x.buf = append(x.buf, x.values[o.param].text...)
		case opJSON:
			x.buf = append(x.buf, x.values[o.param].json...)
		case opOpen:
			x.frames = append(x.frames, frame{start: len(x.buf), flags: o.flags, keyPath: o.a})
			x.buf = append(x.buf, '{')
			if o.flags&frameLabels != 0 {
				clear(x.used)
			}
		case opClose:
			x.close()
		case opSep:
			x.separate()
		case opSkipIfNull:
			if x.values[o.param].null {
				pc = int(o.jump) - 1
			}
		case opLabelMember:
			if at, ok := x.labelIndex[string(arena[o.a:o.a+o.b])]; ok {
				if !x.used[at] {
					x.separate()
					x.buf = append(x.buf, x.labels[at].member...)
					x.used[at] = true
				}
				pc = int(o.jump) - 1
			}
		case opCreateInstead:
			if len(x.labels) > 0 {
				x.separate()
				x.writeCreated(p.targets[o.a])
				pc = int(o.jump) - 1
			}
		case opInsert:
			if len(x.labels) > 0 {
				x.separate()
				x.writeCreated(p.targets[o.a])
			}
		}
	}
}

// separate writes a comma when the innermost open object already has a member.
func (x *executor) separate() {
	if len(x.buf) > x.frames[len(x.frames)-1].start+1 {
		x.buf = append(x.buf, ',')
	}
}

// close ends the innermost open object: a label map gets the labels it still lacks, and
// substituted keys are checked for duplicates.
func (x *executor) close() {
	f := x.frames[len(x.frames)-1]
	if f.flags&frameLabels != 0 {
		for at := range x.labels {
			if !x.used[at] {
				x.separate()
				x.buf = append(x.buf, x.labels[at].member...)
			}
		}
	}
	x.buf = append(x.buf, '}')
	x.frames = x.frames[:len(x.frames)-1]
	if f.flags&frameCheckKeys != 0 {
		x.checkDuplicateKeys(x.buf[f.start:], x.plan.keyPaths[f.keyPath])
	}
}

// writeCreated writes a missing label target as a member: "metadata":{"labels":{...}}.
func (x *executor) writeCreated(t *labelTarget) {
	x.buf = jsonbytes.AppendQuoted(x.buf, t.key)
	x.buf = append(x.buf, ':')
	if t.labels {
		x.buf = append(x.buf, x.labelObject...)
		return
	}
	x.buf = append(x.buf, '{')
	first := true
	for _, c := range t.children {
		if c.create {
			if !first {
				x.buf = append(x.buf, ',')
			}
			first = false
			x.writeCreated(c)
		}
	}
	x.buf = append(x.buf, '}')
}

// checkDuplicateKeys rejects an object whose substituted keys collide, which JSON consumers
// would resolve differently.
func (x *executor) checkDuplicateKeys(object []byte, path string) {
	seen := map[string]bool{}
	forEachMember(object, 0, func(key []byte, _, _ int) {
		name := string(jsonbytes.StringContent(key))
		if seen[name] {
			x.errs = append(x.errs, field.Duplicate(field.NewPath(path), name))
		}
		seen[name] = true
	})
}

// objectError reports a problem found in an object after substitution.
func (x *executor) objectError(path *field.Path, value any, format string, args ...any) {
	x.errs = append(x.errs, field.Invalid(path, value, fmt.Sprintf(format, args...)))
}
