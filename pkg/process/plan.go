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
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Plan is a Template compiled for processing: its objects split into bytes that never change
// and the few places a request changes. A Plan is immutable and safe for concurrent Execute.
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

	objects              []compiledObject
	transformers         []compiledObject
	transformerOverrides []compiledObject

	warnings []string
	// staticSize is the size of the objects' fixed bytes, to size the output once.
	staticSize int
}

// Dialect returns the dialect the plan was compiled for.
func (p *Plan) Dialect() Dialect { return p.dialect }

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
	// source is the key as written, for error paths.
	source string
}

// compiledObject is one object (or transformer config) of the plan.
type compiledObject struct {
	root node
	// slow objects get their labels and groupification after being written, because their
	// shape depends on parameter values (see reshape.go).
	slow bool
	// path is objects[i], for errors found while executing.
	path *field.Path
}

// nodeKind says how Execute writes a node.
type nodeKind uint8

const (
	// nodeStatic is bytes written as they are.
	nodeStatic nodeKind = iota
	// nodeText is a JSON string with references in it.
	nodeText
	// nodeJSON is a string that is one typed reference: the value goes in as JSON.
	nodeJSON
	nodeObject
	nodeArray
)

// node is a JSON value of the plan.
type node struct {
	kind   nodeKind
	raw    []byte     // nodeStatic
	parts  []part     // nodeText
	param  int        // nodeJSON
	object objectNode // nodeObject
	items  []chunk    // nodeArray
}

// part is a piece of a JSON string: literal text already escaped for JSON, or a parameter.
type part struct {
	literal []byte
	param   int // -1 for literal text
}

// objectNode is an object with at least one member that a request can change.
type objectNode struct {
	chunks []chunk
	// labels marks a label map that the object labels merge into.
	labels bool
	// inserts are label targets missing from the object, created when there are labels.
	inserts []*labelTarget
	// substitutedKeysAt is set when keys hold references: the path for a duplicate key error.
	substitutedKeysAt string
}

// chunk is a run of members (or array items) that never change, written with the commas
// between them, or one member (item) that may change.
type chunk struct {
	raw []byte
	// key and value of a member; value alone for an array item; both nil for a run.
	key   *node
	value *node
	// keyName is the decoded key of a member of a label map, when it is a literal.
	keyName string
	// createInstead is the label target a null member stands for: it is written in place of
	// the null when there are labels to add.
	createInstead *labelTarget
}

// isRun reports whether c is a run of fixed members or items.
func (c *chunk) isRun() bool { return c.value == nil }

// staticNode returns a node that writes raw.
func staticNode(raw []byte) *node { return &node{kind: nodeStatic, raw: raw} }
