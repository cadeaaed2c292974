package mutation

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/go-toolsmith/astequal"
	"golang.org/x/tools/go/ast/astutil"
)

// exprKind: Find and Replace are Go expressions. Find matches every
// expression of the target that equals it as a tree (spacing and
// parentheses that do not change the tree do not matter).
type exprKind struct{}

func (exprKind) parse(src string) error {
	_, err := parseExpr(src)
	return err
}

func parseExpr(src string) (ast.Expr, error) {
	e, err := parser.ParseExprFrom(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fragmentError(err, 0)
	}
	return e, nil
}

// expr parses an expression that Check has already validated.
func expr(src string) ast.Expr {
	e, err := parseExpr(src)
	if err != nil {
		panic(err)
	}
	return e
}

func (exprKind) sites(fset *token.FileSet, scope ast.Node, m *Mutant) []*site {
	find := expr(m.Find)
	var sites []*site
	astutil.Apply(scope, func(c *astutil.Cursor) bool {
		e, ok := c.Node().(ast.Expr)
		if !ok || !astequal.Expr(e, find) {
			return true
		}
		with, text := expr(m.Replace), strings.TrimSpace(m.Replace)
		if needsParens(c.Parent(), with) {
			with, text = &ast.ParenExpr{X: with}, "("+text+")"
		}
		sites = append(sites, &site{node: e, with: with, from: e.Pos(), to: e.End(), text: text, line: fset.Position(e.Pos()).Line})
		return true
	}, nil)
	return sites
}

// switched chooses lazily for a condition, (on && (mutant) || !on &&
// (reference)), so that each side is evaluated only when it counts; with
// mutatePick(on, mutant, reference) for a value free of side effects; and
// for arithmetic that changes one operator, or drops a minus, with a
// helper that evaluates the operands once and applies the operator of the
// side that is on (mutateArith(on, x, y, '-', '+'), mutateNeg(on, x)).
// Anything else could run the mutant's effects when inactive.
//
// An expression of a constant's value makes the constant a variable,
// whose value mutatePick chooses between two constant expressions, each
// exact: one declared alone, since iota and the values a group repeats
// belong to the group. A use of it where Go needs a constant (an array's
// length, an untyped constant's other types) then fails to compile, and
// the mutant gets a build of its own, where the constant stays one.
func (exprKind) switched(f *ast.File, _ ast.Node, s *site, m *Mutant, on func() ast.Expr) (ast.Node, ast.Node, string) {
	orig := s.node.(ast.Expr)
	mut := expr(m.Replace)
	reposition(mut, orig.Pos())
	if gd := constDeclOf(f, orig.Pos()); gd != nil {
		if len(gd.Specs) > 1 {
			return nil, nil, "its constant is declared in a group, whose constants cannot become variables one by one"
		}
		gd.Tok = token.VAR
		return pick(s, on(), mut, orig), mut, ""
	}
	switch {
	case boolish(orig) && boolish(mut):
		return &ast.ParenExpr{X: &ast.BinaryExpr{
			X:  &ast.BinaryExpr{X: on(), Op: token.LAND, Y: &ast.ParenExpr{X: mut}},
			Op: token.LOR,
			Y:  &ast.BinaryExpr{X: &ast.UnaryExpr{Op: token.NOT, X: on()}, Op: token.LAND, Y: &ast.ParenExpr{X: orig}},
		}}, mut, ""
	case pure(orig) && pure(mut):
		return pick(s, on(), mut, orig), mut, ""
	}
	if call := arith(s, orig, mut, on); call != nil {
		return call, mut, ""
	}
	return nil, nil, "its expression is neither a condition nor free of side effects"
}

// arith returns the call that switches orig and mut when they are the same
// arithmetic on the same operands but for the operator, or when mut drops
// the minus of orig; nil otherwise.
func arith(s *site, orig, mut ast.Expr, on func() ast.Expr) ast.Expr {
	o, m := unparen(orig), unparen(mut)
	if u, ok := o.(*ast.UnaryExpr); ok && u.Op == token.SUB && astequal.Expr(u.X, m) {
		return &ast.CallExpr{Fun: &ast.Ident{NamePos: s.from, Name: negFunc}, Lparen: s.from, Rparen: s.to - 1,
			Args: []ast.Expr{on(), u.X}}
	}
	ob, ok1 := o.(*ast.BinaryExpr)
	mb, ok2 := m.(*ast.BinaryExpr)
	if !ok1 || !ok2 || !astequal.Expr(ob.X, mb.X) || !astequal.Expr(ob.Y, mb.Y) {
		return nil
	}
	mo, okm := arithOp(mb.Op)
	oo, oko := arithOp(ob.Op)
	if !okm || !oko {
		return nil
	}
	fn := arithFunc
	if mo == '%' || oo == '%' {
		fn = arithIntFunc
	}
	return &ast.CallExpr{Fun: &ast.Ident{NamePos: s.from, Name: fn}, Lparen: s.from, Rparen: s.to - 1,
		Args: []ast.Expr{on(), ob.X, ob.Y,
			&ast.BasicLit{ValuePos: s.from, Kind: token.CHAR, Value: strconv.QuoteRune(mo)},
			&ast.BasicLit{ValuePos: s.from, Kind: token.CHAR, Value: strconv.QuoteRune(oo)}}}
}

// constDeclOf returns the const declaration of f, at the top level or in
// a function, that holds pos; nil if none does.
func constDeclOf(f *ast.File, pos token.Pos) *ast.GenDecl {
	var found *ast.GenDecl
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || found != nil || pos < n.Pos() || pos >= n.End() {
			return false
		}
		if gd, ok := n.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			found = gd
			return false
		}
		return true
	})
	return found
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// pick returns mutatePick(on, mutant, reference), laid out where s is.
func pick(s *site, on, mutant, reference ast.Expr) ast.Expr {
	return &ast.CallExpr{
		Fun: &ast.Ident{NamePos: s.from, Name: pickFunc}, Lparen: s.from, Rparen: s.to - 1,
		Args: []ast.Expr{on, mutant, reference},
	}
}

// needsParens reports whether with, put in place of a child of parent,
// must be parenthesized to keep its meaning in the printed source.
func needsParens(parent ast.Node, with ast.Expr) bool {
	switch with.(type) {
	case *ast.BinaryExpr, *ast.UnaryExpr, *ast.StarExpr:
	default:
		return false
	}
	switch parent.(type) {
	case *ast.BinaryExpr, *ast.UnaryExpr, *ast.StarExpr, *ast.SelectorExpr,
		*ast.TypeAssertExpr, *ast.IndexExpr, *ast.SliceExpr:
		return true
	}
	return false
}

// boolish reports whether e is, by its shape, a boolean expression.
func boolish(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return boolish(e.X)
	case *ast.UnaryExpr:
		return e.Op == token.NOT
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return true
		}
	case *ast.Ident:
		return e.Name == "true" || e.Name == "false"
	}
	return false
}

// pure reports whether evaluating e can have no effect and cannot panic:
// names, literals, and arithmetic on them other than division.
func pure(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return pure(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && e.Op != token.AND && pure(e.X)
	case *ast.BinaryExpr:
		return e.Op != token.QUO && e.Op != token.REM && e.Op != token.SHL && e.Op != token.SHR && pure(e.X) && pure(e.Y)
	}
	return false
}
