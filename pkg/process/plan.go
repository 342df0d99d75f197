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
	"unsafe"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Plan is a Template compiled for processing. Each object is a short program of ops over one
// byte arena: most ops copy fixed bytes, a few write parameter values or decide on the shape
// (a member a null removes, labels merged into a label map). Programs and bytes lie in order
// in memory and hold no pointers, so Execute streams through them and a plan of thousands of
// objects costs the garbage collector nothing. A Plan is immutable and safe for concurrent
// Execute calls.
type Plan struct {
	dialect Dialect
	params  []compiledParameter
	index   map[string]int
	// usage says, per parameter, in which forms the objects use it.
	usage []paramUsage

	message []textPart
	labels  []labelTemplate
	// labelsPath is where the template's labels live: objectLabels, or labels for OpenShift.
	labelsPath *field.Path
	// fixedLabels are the labels of a request that adds none, when none of the template's
	// takes a value (fixLabels); nil otherwise.
	fixedLabels *labelSet

	ops   []op
	arena []byte
	// targets are the label targets ops create; keyPaths the paths of objects whose keys are
	// substituted, for duplicate-key errors.
	targets  []*labelTarget
	keyPaths []string

	objects              []compiledObject
	generators           []compiledObject
	transformers         []compiledObject
	transformerOverrides []compiledObject

	// cel holds the CEL programs over the parameters; nil for a template without any.
	cel *expressions
	// item is where the values of ITEM and INDEX go, past the parameters' values, when the
	// template has repeated objects; -1 when it has none.
	item int

	warnings []string
	// redeclared says an OpenShift template declares a name more than once (see lenient.go).
	redeclared bool
	// outputSize estimates the size of the objects' output, to size the buffer once.
	outputSize int
	// memory, set on a plan from CompileDisposable, is where Dispose gives its memory back.
	memory *planMemory
}

// paramUsage records how the objects use a parameter, so Execute prepares only what is used.
type paramUsage uint8

const (
	usedAsText paramUsage = 1 << iota
	usedAsJSON
)

// textPart is a piece of a plain-text template (message, label keys and values).
type textPart struct {
	literal string
	param   int // -1 for literal text
}

// labelTemplate is one of the template's own object labels before substitution.
type labelTemplate struct {
	key, value []textPart
	// substituted labels hold references, so they are checked once substituted; the others
	// were checked by Compile.
	substituted bool
}

// compiledObject is one object (or transformer config) of the plan: the ops from..to.
type compiledObject struct {
	from, to int
	// slow objects get their labels and groupification after being written, because their
	// shape depends on parameter values (see reshape.go).
	slow bool
	// at is objects[i], for errors found while executing.
	at objectPath
	// expr makes the object conditional or repeated; nil for most.
	expr *objectExpressions
}

// objectPath names an object, objects[i] or transformers[i]; the field.Path is built only for
// messages, so that compiling a thousand objects does not build a thousand paths.
type objectPath struct {
	list  string
	index int
}

func (o objectPath) path() *field.Path { return field.NewPath(o.list).Index(o.index) }

// opCode says what an op does.
type opCode uint8

const (
	// opLit writes arena[a:a+b].
	opLit opCode = iota
	// opText writes the value of param escaped for the inside of a JSON string.
	opText
	// opJSON writes the value of param as JSON (a JSON string when it is not JSON).
	opJSON
	// opOpen starts an object that needs bookkeeping (flags); b is the arena offset of its "{".
	// a indexes keyPaths when the keys are checked for duplicates.
	opOpen
	// opClose ends it, after the labels a label map still lacks.
	opClose
	// opSep writes a comma when the open object already has a member.
	opSep
	// opSkipIfNull jumps over a member whose ${{param}} value is null, which removes it.
	opSkipIfNull
	// opLabelMember writes the object label named arena[a:a+b] instead of the member that
	// follows (and jumps over it) when there is such a label.
	opLabelMember
	// opCreateInstead writes the label target targets[a] instead of the null member that
	// follows (and jumps over it) when there are labels.
	opCreateInstead
	// opInsert writes the missing label target targets[a] when there are labels.
	opInsert
)

// Flags of opOpen.
const (
	frameLabels uint8 = 1 << iota
	frameCheckKeys
)

// op is one instruction of an object's program.
type op struct {
	code  opCode
	flags uint8
	param int32
	a, b  uint32
	jump  uint32
}

// Size estimates the memory a Plan holds, for caches bounded in bytes: its arena and program
// dominate, plus its parameters and the bookkeeping of its objects.
func (p *Plan) Size() int64 {
	size := int64(cap(p.arena)) + int64(cap(p.ops))*int64(unsafe.Sizeof(op{}))
	size += int64(len(p.objects)+len(p.generators)+len(p.transformers)+len(p.transformerOverrides)) * int64(unsafe.Sizeof(compiledObject{}))
	for i := range p.params {
		// The declaration is the template's, which the plan keeps: counted as before.
		param := p.params[i].Parameter
		size += int64(unsafe.Sizeof(compiledParameter{}) + unsafe.Sizeof(templates.Parameter{}) + uintptr(len(param.Name)+len(param.DisplayName)+len(param.Description)+len(param.Value)+len(param.From)))
	}
	for _, k := range p.keyPaths {
		size += int64(len(k))
	}
	if p.cel != nil {
		size += p.cel.size
	}
	return size + 512 // the Plan itself, its maps and small slices
}

// Warnings are what compiling the template tolerated: in the OpenShift dialect, references to
// undeclared parameters and OpenShift's leniencies. Execute returns them too.
func (p *Plan) Warnings() []string { return p.warnings }
