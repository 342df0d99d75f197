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

package expand

// The expander keeps text/template safe on input from any caller: it offers text/template's
// default functions only, wrapped so that their cost is charged to Limits, and it
// instruments every parsed template so that loops and template calls pay per iteration.
// Without that, `{{range 1000000000}}{{end}}` or a chain of templates calling each other
// twice would run for hours while producing no output for a size limit to catch.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"stencil.dev/stencil/pkg/transform"
)

var (
	errExpandOutput = errors.New("expansion output limit exceeded")
	errExpandWork   = errors.New("expansion work limit exceeded")
)

// expandNodeCost is the work charged for evaluating one template node, relative to handling
// one byte: a node evaluation costs about as much as copying a hundred bytes.
const expandNodeCost = 100

// expandStepFunc is the function the instrumentation calls; templates could call it too, but
// that only spends their own budget.
const expandStepFunc = "_step"

// expander is the state of one Templates call: the properties, the budgets and what they have
// spent, and the edits to make once every template has run.
type expander struct {
	data      map[string]string
	funcs     template.FuncMap
	root      *template.Template // empty, with the options and functions every template gets
	maxOutput int
	maxWork   int
	output    int // bytes of expanded strings so far
	work      int // work so far
	out       *strings.Builder
	exhausted bool
	obj       transform.Object
	edits     []expandEdit
}

func newExpander(properties map[string]string, limits Limits) *expander {
	d := DefaultLimits()
	e := &expander{
		data:      make(map[string]string, len(properties)+1),
		maxOutput: transform.OrDefault(limits.MaxOutputBytes, d.MaxOutputBytes),
		maxWork:   transform.OrDefault(limits.MaxWork, d.MaxWork),
	}
	e.data["clusterName"] = ""
	for k, v := range properties {
		e.data[k] = v
	}
	e.funcs = e.expandFuncs()
	// Cloning a template that has its functions is much cheaper than adding them to each.
	e.root = template.New("").Option("missingkey=error").Funcs(e.funcs)
	return e
}

// charge spends work, failing once the budget is gone.
func (e *expander) charge(n int) error {
	if n < 0 || n > e.maxWork-e.work {
		e.work = e.maxWork
		return errExpandWork
	}
	e.work += n
	return nil
}

// expandWriter is where templates write: it charges the output and work budgets before
// accepting bytes.
type expandWriter struct{ e *expander }

func (w expandWriter) Write(p []byte) (int, error) {
	e := w.e
	if len(p) > e.maxOutput-e.output {
		e.output = e.maxOutput
		return 0, errExpandOutput
	}
	if err := e.charge(len(p)); err != nil {
		return 0, err
	}
	e.output += len(p)
	return e.out.Write(p)
}

// step is called at the start of every template body and loop iteration with the weight of
// the nodes that body may evaluate.
func (e *expander) step(weight int) (string, error) {
	return "", e.charge(min(max(weight, 1), 1<<40) * expandNodeCost)
}

// expandMaxControls bounds the control structures of one string. text/template parses and
// runs nested structures recursively, without a limit: 100,000 nested {{if}}s take a
// quarter of a gigabyte of stack.
const expandMaxControls = 1000

// expandCountControls counts the actions of s that open or continue a control structure. It
// reads the text as the lexer does, except that it also counts keywords inside string
// literals, so it may overcount but never undercount.
func expandCountControls(s string) int {
	n := 0
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return n
		}
		s = s[i+2:]
		rest := strings.TrimPrefix(s, "-")
		rest = strings.TrimLeft(rest, " \t\r\n")
		for _, kw := range [...]string{"if", "with", "range", "block", "define", "else"} {
			if strings.HasPrefix(rest, kw) && (len(rest) == len(kw) || !expandIdentByte(rest[len(kw)])) {
				n++
				break
			}
		}
	}
}

func expandIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// instrument rejects recursive templates, whose depth only text/template's limit of 100,000
// calls would stop (at a hundred megabytes of stack), and puts a step call in front of every
// template body and every range body.
func (e *expander) instrument(t *template.Template) error {
	if err := expandCheckRecursion(t); err != nil {
		return err
	}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		root := tt.Tree.Root
		if err := e.instrumentList(root); err != nil {
			return err
		}
		step, err := e.stepNode(expandWeight(root) + 1)
		if err != nil {
			return err
		}
		root.Nodes = append([]parse.Node{step}, root.Nodes...)
	}
	return nil
}

// expandCheckRecursion fails when a template calls itself, directly or through others.
func expandCheckRecursion(t *template.Template) error {
	calls := map[string][]string{}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			calls[tt.Name()] = expandCalls(tt.Tree.Root, nil)
		}
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var visit func(name string) error
	visit = func(name string) error {
		switch state[name] {
		case visiting:
			return fmt.Errorf("template %q calls itself, directly or through other templates; recursion is not allowed", name)
		case done:
			return nil
		}
		state[name] = visiting
		for _, callee := range calls[name] {
			if err := visit(callee); err != nil {
				return err
			}
		}
		state[name] = done
		return nil
	}
	for _, tt := range t.Templates() {
		if err := visit(tt.Name()); err != nil {
			return err
		}
	}
	return nil
}

// expandCalls appends the names of the templates that list calls.
func expandCalls(list *parse.ListNode, names []string) []string {
	if list == nil {
		return names
	}
	for _, n := range list.Nodes {
		switch n := n.(type) {
		case *parse.TemplateNode:
			names = append(names, n.Name)
		case *parse.IfNode:
			names = expandCalls(n.ElseList, expandCalls(n.List, names))
		case *parse.WithNode:
			names = expandCalls(n.ElseList, expandCalls(n.List, names))
		case *parse.RangeNode:
			names = expandCalls(n.ElseList, expandCalls(n.List, names))
		}
	}
	return names
}

func (e *expander) instrumentList(list *parse.ListNode) error {
	if list == nil {
		return nil
	}
	for _, n := range list.Nodes {
		var branch *parse.BranchNode
		switch n := n.(type) {
		case *parse.IfNode:
			branch = &n.BranchNode
		case *parse.WithNode:
			branch = &n.BranchNode
		case *parse.RangeNode:
			branch = &n.BranchNode
		default:
			continue
		}
		if err := e.instrumentList(branch.List); err != nil {
			return err
		}
		if err := e.instrumentList(branch.ElseList); err != nil {
			return err
		}
		if n.Type() != parse.NodeRange {
			continue
		}
		step, err := e.stepNode(expandWeight(branch.List) + 1)
		if err != nil {
			return err
		}
		if branch.List == nil {
			branch.List = &parse.ListNode{NodeType: parse.NodeList}
		}
		branch.List.Nodes = append([]parse.Node{step}, branch.List.Nodes...)
	}
	return nil
}

// stepNode builds the action {{_step weight}}. It is built directly rather than parsed: the
// parse costs as much as the template it instruments.
func (e *expander) stepNode(weight int) (parse.Node, error) {
	number := &parse.NumberNode{NodeType: parse.NodeNumber, IsInt: true, Int64: int64(weight), Text: strconv.Itoa(weight)}
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Args: []parse.Node{parse.NewIdentifier(expandStepFunc), number}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Cmds: []*parse.CommandNode{cmd}}}, nil
}

// expandWeight counts the nodes evaluating n may visit once. A range body is not counted: it
// is charged per iteration by its own step.
func expandWeight(n parse.Node) int {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return 0
		}
		w := 0
		for _, c := range n.Nodes {
			w += expandWeight(c)
		}
		return w
	case *parse.ActionNode:
		return 1 + expandWeight(n.Pipe)
	case *parse.PipeNode:
		if n == nil {
			return 0
		}
		w := 1 + len(n.Decl)
		for _, c := range n.Cmds {
			w += expandWeight(c)
		}
		return w
	case *parse.CommandNode:
		w := 1
		for _, a := range n.Args {
			w += expandWeight(a)
		}
		return w
	case *parse.IfNode:
		return 1 + expandWeight(n.Pipe) + expandWeight(n.List) + expandWeight(n.ElseList)
	case *parse.WithNode:
		return 1 + expandWeight(n.Pipe) + expandWeight(n.List) + expandWeight(n.ElseList)
	case *parse.RangeNode:
		return 1 + expandWeight(n.Pipe) + expandWeight(n.ElseList)
	case *parse.TemplateNode:
		return 1 + expandWeight(n.Pipe)
	case *parse.ChainNode:
		return 1 + expandWeight(n.Node) + len(n.Field)
	case *parse.FieldNode:
		return len(n.Ident)
	case *parse.VariableNode:
		return len(n.Ident)
	}
	return 1
}
