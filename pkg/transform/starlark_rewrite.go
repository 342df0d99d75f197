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

import (
	"fmt"

	"go.starlark.net/syntax"
)

// guard rewrites f so that every size-changing operation goes through a guard.
func guard(f *syntax.File) {
	g := guardRewriter{}
	for _, s := range f.Stmts {
		g.stmt(s)
	}
}

type guardRewriter struct{}

func (g guardRewriter) stmts(list []syntax.Stmt) {
	for _, s := range list {
		g.stmt(s)
	}
}

func (g guardRewriter) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.AssignStmt:
		s.RHS = g.expr(s.RHS)
		var op syntax.Token
		switch s.Op {
		case syntax.PLUS_EQ:
			op = syntax.PLUS
		case syntax.STAR_EQ:
			op = syntax.STAR
		case syntax.PERCENT_EQ:
			op = syntax.PERCENT
		case syntax.LTLT_EQ:
			op = syntax.LTLT
		default:
			s.LHS = g.expr(s.LHS)
			return
		}
		// x += y becomes x = guard("+=", x, y): the guard keeps += extending a list in place.
		read := g.expr(cloneTarget(s.LHS))
		s.RHS = guardedCallExpr(guardBinary, s.OpPos, stringLit(op.String()+"=", s.OpPos), read, s.RHS)
		s.Op = syntax.EQ
	case *syntax.ExprStmt:
		s.X = g.expr(s.X)
	case *syntax.IfStmt:
		s.Cond = g.expr(s.Cond)
		g.stmts(s.True)
		g.stmts(s.False)
	case *syntax.ForStmt:
		s.X = g.expr(s.X)
		g.stmts(s.Body)
	case *syntax.WhileStmt:
		s.Cond = g.expr(s.Cond)
		g.stmts(s.Body)
	case *syntax.DefStmt:
		g.params(s.Params)
		g.stmts(s.Body)
	case *syntax.ReturnStmt:
		if s.Result != nil {
			s.Result = g.expr(s.Result)
		}
	}
}

// params rewrites the default values of parameters (name=default).
func (g guardRewriter) params(params []syntax.Expr) {
	for _, p := range params {
		if b, ok := p.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			b.Y = g.expr(b.Y)
		}
	}
}

// cloneTarget copies the top node of an assignment target, so that it can be read as well.
func cloneTarget(e syntax.Expr) syntax.Expr {
	switch e := e.(type) {
	case *syntax.Ident:
		return &syntax.Ident{NamePos: e.NamePos, Name: e.Name}
	case *syntax.IndexExpr:
		c := *e
		return &c
	case *syntax.DotExpr:
		c := *e
		return &c
	}
	return e
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
		case syntax.PLUS, syntax.STAR, syntax.PERCENT, syntax.LTLT:
			return guardedCallExpr(guardBinary, e.OpPos, stringLit(e.Op.String(), e.OpPos), e.X, e.Y)
		}
		return e
	case *syntax.CallExpr:
		fn := g.expr(e.Fn)
		args := make([]syntax.Expr, 0, len(e.Args)+1)
		args = append(args, fn)
		for _, a := range e.Args {
			args = append(args, g.expr(a))
		}
		return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: e.Lparen, Name: guardCall}, Lparen: e.Lparen, Args: args, Rparen: e.Rparen}
	case *syntax.SliceExpr:
		e.X = g.expr(e.X)
		for _, p := range []*syntax.Expr{&e.Lo, &e.Hi, &e.Step} {
			if *p != nil {
				*p = g.expr(*p)
			}
		}
		return guardedCallExpr(guardSlice, e.Lbrack, e)
	case *syntax.UnaryExpr:
		if e.X != nil {
			e.X = g.expr(e.X)
		}
	case *syntax.ParenExpr:
		e.X = g.expr(e.X)
	case *syntax.DotExpr:
		e.X = g.expr(e.X)
	case *syntax.IndexExpr:
		e.X, e.Y = g.expr(e.X), g.expr(e.Y)
	case *syntax.ListExpr:
		g.list(e.List)
	case *syntax.TupleExpr:
		g.list(e.List)
	case *syntax.DictExpr:
		for _, entry := range e.List {
			d := entry.(*syntax.DictEntry)
			d.Key, d.Value = g.expr(d.Key), g.expr(d.Value)
		}
	case *syntax.CondExpr:
		e.Cond, e.True, e.False = g.expr(e.Cond), g.expr(e.True), g.expr(e.False)
	case *syntax.LambdaExpr:
		g.params(e.Params)
		e.Body = g.expr(e.Body)
	case *syntax.Comprehension:
		e.Body = g.expr(e.Body)
		for _, c := range e.Clauses {
			switch c := c.(type) {
			case *syntax.ForClause:
				c.X = g.expr(c.X)
			case *syntax.IfClause:
				c.Cond = g.expr(c.Cond)
			}
		}
	}
	return e
}

func (g guardRewriter) list(list []syntax.Expr) {
	for i := range list {
		list[i] = g.expr(list[i])
	}
}

func guardedCallExpr(name string, pos syntax.Position, args ...syntax.Expr) syntax.Expr {
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: name}, Lparen: pos, Args: args, Rparen: pos}
}

func stringLit(s string, pos syntax.Position) syntax.Expr {
	return &syntax.Literal{Token: syntax.STRING, TokenPos: pos, Raw: fmt.Sprintf("%q", s), Value: s}
}
