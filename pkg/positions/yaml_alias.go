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

// The decoder's checks of aliases, which the fast reader makes before it writes a document
// that has any (emitDocument).

// checkAliases follows the document as go.yaml.in/yaml/v2's decoder does, to refuse what it
// refuses: an alias inside its own anchor, and more aliasing than its budget allows (the
// defence against "billion laughs" documents).
func (p *parser) checkAliases(root int32) {
	c := aliasCounter{p: p, decoded: 1, active: map[int32]bool{}}
	c.visit(root)
}

type aliasCounter struct {
	p                        *parser
	decoded, aliased, inside int
	active                   map[int32]bool
}

func (c *aliasCounter) visit(n int32) {
	c.decoded++
	if c.inside > 0 {
		c.aliased++
	}
	if c.aliased > 100 && c.decoded > 1000 && float64(c.aliased)/float64(c.decoded) > allowedAliasRatio(c.decoded) {
		bail() // document contains excessive aliasing
	}
	nd := c.p.nodes[n]
	switch nd.kind {
	case kindAlias:
		if c.active[n] {
			bail() // anchor value contains itself
		}
		c.active[n] = true
		c.inside++
		c.visit(nd.a)
		c.inside--
		delete(c.active, n)
	case kindSequence:
		for i := nd.a; i < nd.b; i++ {
			c.visit(c.p.kids[i])
		}
	case kindMapping:
		for i := nd.a; i < nd.b; i += 2 {
			k, v := c.p.kids[i], c.p.kids[i+1]
			if c.p.isMerge(k) {
				c.merge(v)
				continue
			}
			c.visit(k)
			c.visit(v)
		}
	}
}

func (c *aliasCounter) merge(v int32) {
	switch nd := c.p.nodes[v]; nd.kind {
	case kindMapping:
		c.visit(v)
	case kindAlias:
		c.p.mergeTarget(v)
		c.visit(v)
	case kindSequence:
		for i := nd.b - 1; i >= nd.a; i-- {
			child := c.p.kids[i]
			switch c.p.nodes[child].kind {
			case kindAlias:
				c.p.mergeTarget(child)
			case kindMapping:
			default:
				bail()
			}
			c.visit(child)
		}
	default:
		bail()
	}
}

// allowedAliasRatio is go.yaml.in/yaml/v2's budget: 99% of the decoded nodes may come from
// aliases up to 400,000 nodes, falling to 10% at 4,000,000.
func allowedAliasRatio(decoded int) float64 {
	const low, high = 400000, 4000000
	switch {
	case decoded <= low:
		return 0.99
	case decoded >= high:
		return 0.10
	}
	return 0.99 - 0.89*(float64(decoded-low)/float64(high-low))
}
