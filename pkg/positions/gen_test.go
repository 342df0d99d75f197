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

package positions

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// A generator of block YAML of the shapes templates are written in, driven by bytes (a fuzz
// input) so that the differential fuzz test explores the fast reader's own path, not only the
// inputs it leaves to YAMLToJSON. It writes slips too (a space too many, a missing one) so
// that errors are compared as well.

type yamlGen struct {
	choices []byte
	next    int
	out     strings.Builder
	anchors []string // anchors of mappings defined so far
	depth   int
}

func (g *yamlGen) pick(n int) int {
	if g.next >= len(g.choices) {
		return 0
	}
	c := int(g.choices[g.next])
	g.next++
	return c % n
}

var genScalars = []string{
	"a", "web", "yes", "No", "on", "OFF", "y", "~", "null", "", "1e3", "0777", "0x1F", "-0b11",
	"+.inf", "1_000", "2001-12-14", "18446744073709551616", "1.5", "-0.0", ".5", "a:b", "a #b",
	"a#b", "-a", "http://x:80/y", "<<", "two words", "café", "<&>", "12345678901234567890123",
	"'it''s'", `"q\n\t\u2028\x41\\"`, `"<<"`, "'1'", `"yes"`, "'~'", "$(VAR)", "${IMAGE}", "a, b",
	"[a, b]", "{k: v, w}", "[]", "{}", "[x, {y: z}, [1, 2]]", "{\"k\":1}", "a [b] {c}",
	":8080", "?x", "::1", "' '", "'\t'", "\"a\tb\t\"", "x\ty", "x\t# c", "[x\t, y]",
}

var genKeys = []string{"a", "b", "name", "yes", "on", "1", "0x1", "01", "'1'", "\"a\"", "true",
	"1.5", "key with spaces", "app.kubernetes.io/name", "-k", "é", "n", "'yes'"}

// doc writes one document.
func (g *yamlGen) doc() string {
	if g.pick(4) == 0 {
		g.out.WriteString("---\n")
	}
	if g.pick(4) == 0 {
		g.out.WriteString("# comment\n\n")
	}
	switch g.pick(5) {
	case 0:
		g.sequence(0)
	case 1:
		g.scalar(0)
		g.out.WriteString("\n")
	default:
		g.mapping(0)
	}
	if g.pick(4) == 0 {
		g.out.WriteString("---\nnext: doc\n")
	}
	s := g.out.String()
	if g.pick(8) == 0 {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

func (g *yamlGen) indent(n int) {
	switch g.pick(40) {
	case 0:
		n++ // a slip
	case 1:
		g.out.WriteString("\t") // a tab where libyaml wants spaces
	}
	g.out.WriteString(strings.Repeat(" ", n))
}

func (g *yamlGen) mapping(indent int) {
	g.depth++
	defer func() { g.depth-- }()
	n := 1 + g.pick(4)
	for i := range n {
		if i > 0 {
			g.indent(indent)
		}
		if len(g.anchors) > 0 && g.pick(6) == 0 {
			fmt.Fprintf(&g.out, "<<: *%s\n", g.anchors[g.pick(len(g.anchors))])
			if i == n-1 {
				return
			}
			continue
		}
		g.out.WriteString(genKeys[g.pick(len(genKeys))])
		g.out.WriteString(":")
		g.value(indent)
	}
}

// value writes what follows "key:".
func (g *yamlGen) value(indent int) {
	if g.depth > 5 {
		g.out.WriteString(" leaf\n")
		return
	}
	switch g.pick(9) {
	case 0:
		g.out.WriteString("\n")
		g.indent(indent + 2)
		g.mapping(indent + 2)
	case 1:
		anchor := fmt.Sprintf("m%d", len(g.anchors))
		fmt.Fprintf(&g.out, " &%s\n", anchor)
		g.indent(indent + 2)
		g.mapping(indent + 2)
		g.anchors = append(g.anchors, anchor)
	case 2:
		g.out.WriteString("\n")
		g.indent(indent)
		g.sequence(indent)
	case 3:
		g.out.WriteString("\n")
		g.indent(indent + 2)
		g.sequence(indent + 2)
	case 4:
		g.blockScalar(indent)
	case 5:
		if len(g.anchors) > 0 {
			fmt.Fprintf(&g.out, " *%s\n", g.anchors[g.pick(len(g.anchors))])
			return
		}
		fallthrough
	default:
		g.out.WriteString(" ")
		g.scalar(indent)
		if g.pick(5) == 0 {
			g.out.WriteString(" # c")
		}
		g.out.WriteString("\n")
	}
}

func (g *yamlGen) sequence(indent int) {
	g.depth++
	defer func() { g.depth-- }()
	n := 1 + g.pick(3)
	for i := range n {
		if i > 0 {
			g.indent(indent)
		}
		g.out.WriteString("-")
		switch g.pick(5) {
		case 0:
			g.out.WriteString(" ")
			g.mapping(indent + 2)
		case 1:
			g.out.WriteString("\n")
			g.indent(indent + 2)
			g.mapping(indent + 2)
		case 2:
			g.out.WriteString(" ")
			g.sequence(indent + 2)
		default:
			g.value(indent)
		}
	}
}

func (g *yamlGen) scalar(indent int) {
	s := genScalars[g.pick(len(genScalars))]
	if g.pick(6) == 0 && !strings.ContainsAny(s, "'\"[{") {
		// a plain scalar going on over lines, with a blank line between
		s += "\n" + strings.Repeat(" ", indent+1+g.pick(3)) + "more"
		if g.pick(2) == 0 {
			s += "\n\n" + strings.Repeat(" ", indent+2) + "after"
		}
	}
	g.out.WriteString(s)
}

func (g *yamlGen) blockScalar(indent int) {
	header := []string{"|", ">", "|-", ">+", "|2", ">-", "|+"}[g.pick(7)]
	g.out.WriteString(" " + header + "\n")
	lines := 1 + g.pick(4)
	for range lines {
		switch g.pick(12) {
		case 0:
			g.out.WriteString("\n")
		case 1:
			g.out.WriteString(strings.Repeat(" ", indent+4) + "more indented\n")
		case 2:
			g.out.WriteString(strings.Repeat(" ", indent+2) + "\ttab\tseparated\n")
		case 3:
			g.out.WriteString(strings.Repeat(" ", indent+1) + "\ttab in the indentation\n")
		default:
			g.out.WriteString(strings.Repeat(" ", indent+2) + "text line\n")
		}
	}
}

// TestGeneratedYAML compares the reader with sigs.k8s.io/yaml on generated documents and
// checks that nearly all of those sigs.k8s.io/yaml reads take the fast path (the generator's
// slips make about half of them errors, which are left to it for its words).
func TestGeneratedYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fastPath, valid := 0, 0
	const n = 3000
	for range n {
		choices := make([]byte, 200)
		for i := range choices {
			choices[i] = byte(r.IntN(256))
		}
		g := yamlGen{choices: choices}
		doc := []byte(g.doc())
		if sameAsSigs(t, doc) {
			fastPath++
		}
		if _, err := yaml.YAMLToJSON(doc); err == nil {
			valid++
		}
	}
	t.Logf("%d of the %d generated documents sigs.k8s.io/yaml reads (of %d) read by the fast reader", fastPath, valid, n)
	if valid < n/3 || fastPath < valid*9/10 {
		t.Errorf("only %d of %d valid generated documents (of %d) took the fast path", fastPath, valid, n)
	}
}
