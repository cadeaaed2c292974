package mutation

import (
	"go/ast"
	"go/token"
)

// bodyKind: Find is the whole body of the target function or method, and
// Replace the body that takes its place. It is the kind for a rewrite that
// touches every statement; a change of a few is better a stmt mutant,
// which survives edits of the rest.
type bodyKind struct{}

func (bodyKind) parse(src string) error {
	_, err := parseStmts(src)
	return err
}

func (bodyKind) sites(fset *token.FileSet, scope ast.Node, m *Mutant) []*site {
	body, ok := scope.(*ast.BlockStmt)
	if !ok || !stmtsEqual(body.List, stmts(m.Find)) {
		return nil
	}
	line := fset.Position(body.Lbrace).Line
	if len(body.List) > 0 {
		line = fset.Position(body.List[0].Pos()).Line
	}
	return []*site{{
		node: body, with: &ast.BlockStmt{List: stmts(m.Replace)},
		from: body.Lbrace, to: body.End(), text: "{\n" + m.Replace + "\n}",
		line: line,
	}}
}

// switched puts `if on { mutant } else { reference }` as the whole body.
func (bodyKind) switched(_ *ast.File, _ ast.Node, s *site, m *Mutant, on func() ast.Expr) (ast.Node, ast.Node, string) {
	body := s.node.(*ast.BlockStmt)
	mut := &ast.BlockStmt{List: replacementStmts(m.Replace, body.Lbrace)}
	return &ast.BlockStmt{Lbrace: body.Lbrace, Rbrace: body.Rbrace, List: []ast.Stmt{
		&ast.IfStmt{If: body.Lbrace, Cond: on(), Body: mut, Else: &ast.BlockStmt{List: body.List}},
	}}, mut, ""
}
