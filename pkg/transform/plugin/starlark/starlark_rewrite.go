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

package starlark

import (
	"fmt"

	"go.starlark.net/syntax"
)

// guard rewrites f so that every operation that can make more than its operands, or work
// longer than a step, goes through a guard (starlark_guard.go). Each syntax node is
// rewritten once: an expression evaluated twice would run its side effects twice.
func guard(f *syntax.File) {
	f.Stmts = guardRewriter{}.stmts(f.Stmts)
}

type guardRewriter struct{}

func (g guardRewriter) stmts(list []syntax.Stmt) []syntax.Stmt {
	out := make([]syntax.Stmt, 0, len(list))
	for _, s := range list {
		out = append(out, g.stmt(s)...)
	}
	return out
}

// augmented maps x op= y to op.
var augmented = map[syntax.Token]syntax.Token{
	syntax.PLUS_EQ: syntax.PLUS, syntax.MINUS_EQ: syntax.MINUS, syntax.STAR_EQ: syntax.STAR,
	syntax.PERCENT_EQ: syntax.PERCENT, syntax.LTLT_EQ: syntax.LTLT, syntax.PIPE_EQ: syntax.PIPE,
	syntax.AMP_EQ: syntax.AMP, syntax.CIRCUMFLEX_EQ: syntax.CIRCUMFLEX,
}

func (g guardRewriter) stmt(s syntax.Stmt) []syntax.Stmt {
	switch s := s.(type) {
	case *syntax.AssignStmt:
		s.RHS = g.expr(s.RHS)
		op, isAugmented := augmented[s.Op]
		if ix, ok := s.LHS.(*syntax.IndexExpr); ok {
			x, k := g.expr(ix.X), g.expr(ix.Y)
			if isAugmented {
				// x[k] op= v reads and writes x[k] in one guard, x and k evaluated once.
				return []syntax.Stmt{exprStmt(callGuard(guardAugIndex, s.OpPos, intLit(int(op)+augmentedToken, s.OpPos), x, k, s.RHS))}
			}
			// x[k] = v: v, x, k, in the order the assignment evaluates them.
			return []syntax.Stmt{exprStmt(callGuard(guardSetIndex, s.OpPos, s.RHS, x, k))}
		}
		if isAugmented {
			// x += y becomes x = guard("+=", x, y): the guard keeps += extending a list in
			// place. x is a name or a field, read again without side effects.
			s.RHS = callGuard(guardBinary, s.OpPos, intLit(int(op)+augmentedToken, s.OpPos), cloneTarget(s.LHS), s.RHS)
			s.Op = syntax.EQ
		}
		s.LHS = g.target(s.LHS)
	case *syntax.ExprStmt:
		s.X = g.expr(s.X)
	case *syntax.IfStmt:
		s.Cond = g.expr(s.Cond)
		s.True = g.stmts(s.True)
		s.False = g.stmts(s.False)
	case *syntax.ForStmt:
		s.X = g.expr(s.X)
		s.Vars = g.target(s.Vars)
		s.Body = g.stmts(s.Body)
	case *syntax.WhileStmt:
		s.Cond = g.expr(s.Cond)
		s.Body = g.stmts(s.Body)
	case *syntax.DefStmt:
		g.params(s.Params)
		s.Body = g.stmts(s.Body)
		// A def in a loop or a function makes a new function each time it runs.
		name := &syntax.Ident{NamePos: s.Name.NamePos, Name: s.Name.Name}
		return []syntax.Stmt{s, exprStmt(callGuard(guardCharge, s.Def, name))}
	case *syntax.ReturnStmt:
		if s.Result != nil {
			s.Result = g.expr(s.Result)
		}
	}
	return []syntax.Stmt{s}
}

// target rewrites what an assignment or a for loop binds: an element x[k] among several
// targets is charged as a new entry, since its guard does not see the container.
func (g guardRewriter) target(e syntax.Expr) syntax.Expr {
	switch e := e.(type) {
	case *syntax.IndexExpr:
		e.X = g.expr(e.X)
		e.Y = callGuard(guardKey, e.Lbrack, g.expr(e.Y))
	case *syntax.TupleExpr:
		for i := range e.List {
			e.List[i] = g.target(e.List[i])
		}
	case *syntax.ListExpr:
		for i := range e.List {
			e.List[i] = g.target(e.List[i])
		}
	case *syntax.ParenExpr:
		e.X = g.target(e.X)
	case *syntax.DotExpr:
		e.X = g.expr(e.X)
	}
	return e
}

// params rewrites the default values of parameters (name=default).
func (g guardRewriter) params(params []syntax.Expr) {
	for _, p := range params {
		if b, ok := p.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			b.Y = g.expr(b.Y)
		}
	}
}

// cloneTarget copies a name or a field to be read as well as assigned.
func cloneTarget(e syntax.Expr) syntax.Expr {
	switch e := e.(type) {
	case *syntax.Ident:
		return &syntax.Ident{NamePos: e.NamePos, Name: e.Name}
	case *syntax.DotExpr:
		c := *e
		return &c
	}
	return e
}

// literal reports a constant: comparing with one takes one step, whatever the other side.
func literal(e syntax.Expr) bool {
	_, ok := e.(*syntax.Literal)
	return ok
}

// number reports an integer or float literal.
func number(e syntax.Expr) bool {
	l, ok := e.(*syntax.Literal)
	return ok && (l.Token == syntax.INT || l.Token == syntax.FLOAT)
}

func (g guardRewriter) expr(e syntax.Expr) syntax.Expr {
	switch e := e.(type) {
	case *syntax.BinaryExpr:
		if e.Op == syntax.EQ { // a keyword argument: name=value
			e.Y = g.expr(e.Y)
			return e
		}
		e.X, e.Y = g.expr(e.X), g.expr(e.Y)
		switch e.Op {
		case syntax.PLUS, syntax.MINUS, syntax.PIPE, syntax.AMP, syntax.CIRCUMFLEX:
			if number(e.X) || number(e.Y) {
				// The other side is a number too, or this is an error: the result is a number
				// at most a bit longer than its operands.
				return e
			}
			return callGuard(guardBinary, e.OpPos, intLit(int(e.Op), e.OpPos), e.X, e.Y)
		case syntax.STAR, syntax.PERCENT, syntax.LTLT:
			return callGuard(guardBinary, e.OpPos, intLit(int(e.Op), e.OpPos), e.X, e.Y)
		case syntax.EQL, syntax.NEQ, syntax.LT, syntax.LE, syntax.GT, syntax.GE, syntax.IN:
			if literal(e.X) || literal(e.Y) {
				return e
			}
			return callGuard(guardCompare, e.OpPos, intLit(int(e.Op), e.OpPos), e.X, e.Y)
		case syntax.NOT_IN:
			if literal(e.X) || literal(e.Y) {
				return e
			}
			in := callGuard(guardCompare, e.OpPos, intLit(int(syntax.IN), e.OpPos), e.X, e.Y)
			return &syntax.UnaryExpr{OpPos: e.OpPos, Op: syntax.NOT, X: in}
		}
		return e
	case *syntax.CallExpr:
		fn := e.Fn
		if d, ok := fn.(*syntax.DotExpr); ok {
			d.X = g.expr(d.X) // a method called at once: its binding is not kept
		} else {
			fn = g.expr(fn)
		}
		args := make([]syntax.Expr, 0, len(e.Args)+1)
		args = append(args, fn)
		for _, a := range e.Args {
			args = append(args, g.arg(a))
		}
		return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: e.Lparen, Name: guardCall}, Lparen: e.Lparen, Args: args, Rparen: e.Rparen}
	case *syntax.SliceExpr:
		e.X = g.expr(e.X)
		for _, p := range []*syntax.Expr{&e.Lo, &e.Hi, &e.Step} {
			if *p != nil {
				*p = g.expr(*p)
			}
		}
		if e.Step == nil {
			// A substring shares its string's bytes.
			return callGuard(guardCharge, e.Lbrack, e, stringLit("slice", e.Lbrack))
		}
		return callGuard(guardCharge, e.Lbrack, e)
	case *syntax.DotExpr:
		// A method kept as a value holds its receiver.
		e.X = g.expr(e.X)
		return callGuard(guardCharge, e.Dot, e, stringLit("attr", e.Dot))
	case *syntax.UnaryExpr:
		if e.X != nil {
			e.X = g.expr(e.X)
		}
	case *syntax.ParenExpr:
		e.X = g.expr(e.X)
	case *syntax.IndexExpr:
		e.X, e.Y = g.expr(e.X), g.expr(e.Y)
		if !literal(e.Y) {
			e.Y = callGuard(guardHash, e.Lbrack, e.Y)
		}
	case *syntax.ListExpr:
		g.list(e.List)
		return callGuard(guardCharge, e.Lbrack, e)
	case *syntax.TupleExpr:
		g.list(e.List)
		return callGuard(guardCharge, e.Lparen, e)
	case *syntax.DictExpr:
		for _, entry := range e.List {
			d := entry.(*syntax.DictEntry)
			d.Key, d.Value = g.expr(d.Key), g.expr(d.Value)
			if !literal(d.Key) {
				d.Key = callGuard(guardHash, d.Colon, d.Key)
			}
		}
		return callGuard(guardCharge, e.Lbrace, e)
	case *syntax.CondExpr:
		e.Cond, e.True, e.False = g.expr(e.Cond), g.expr(e.True), g.expr(e.False)
	case *syntax.LambdaExpr:
		g.params(e.Params)
		e.Body = g.expr(e.Body)
		return callGuard(guardCharge, e.Lambda, e)
	case *syntax.Comprehension:
		if d, ok := e.Body.(*syntax.DictEntry); ok {
			d.Key = callGuard(guardKey, d.Colon, g.expr(d.Key))
			d.Value = g.expr(d.Value)
		} else {
			e.Body = callGuard(guardElem, e.Lbrack, g.expr(e.Body))
		}
		for _, c := range e.Clauses {
			switch c := c.(type) {
			case *syntax.ForClause:
				c.X = g.expr(c.X)
				c.Vars = g.target(c.Vars)
			case *syntax.IfClause:
				c.Cond = g.expr(c.Cond)
			}
		}
	}
	return e
}

// arg rewrites a call's argument: *x and **x are checked before the call spreads them.
func (g guardRewriter) arg(a syntax.Expr) syntax.Expr {
	if u, ok := a.(*syntax.UnaryExpr); ok && u.X != nil {
		switch u.Op {
		case syntax.STAR:
			u.X = callGuard(guardSpread, u.OpPos, g.expr(u.X))
			return u
		case syntax.STARSTAR:
			u.X = callGuard(guardKwargs, u.OpPos, g.expr(u.X))
			return u
		}
	}
	return g.expr(a)
}

func (g guardRewriter) list(list []syntax.Expr) {
	for i := range list {
		list[i] = g.expr(list[i])
	}
}

func exprStmt(x syntax.Expr) syntax.Stmt { return &syntax.ExprStmt{X: x} }

func callGuard(name string, pos syntax.Position, args ...syntax.Expr) syntax.Expr {
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: name}, Lparen: pos, Args: args, Rparen: pos}
}

func stringLit(s string, pos syntax.Position) syntax.Expr {
	return &syntax.Literal{Token: syntax.STRING, TokenPos: pos, Raw: fmt.Sprintf("%q", s), Value: s}
}

func intLit(n int, pos syntax.Position) syntax.Expr {
	return &syntax.Literal{Token: syntax.INT, TokenPos: pos, Raw: fmt.Sprint(n), Value: int64(n)}
}
