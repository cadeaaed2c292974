package mutation

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"slices"
	"strings"

	"github.com/go-toolsmith/astequal"
)

// stmtKind: Find is one or more statements, matched as a contiguous run of
// statements in one block of the target (or a case of a switch or select);
// Replace is the statements that take their place, none to delete them.
type stmtKind struct{}

func (stmtKind) parse(src string) error {
	_, err := parseStmts(src)
	return err
}

func (stmtKind) sites(fset *token.FileSet, scope ast.Node, m *Mutant) []*site {
	find := stmts(m.Find)
	var sites []*site
	ast.Inspect(scope, func(n ast.Node) bool {
		list := stmtList(n)
		if list == nil {
			return true
		}
		for i := 0; i+len(find) <= len(*list); i++ {
			if !stmtsEqual((*list)[i:i+len(find)], find) {
				continue
			}
			first, last := (*list)[i], (*list)[i+len(find)-1]
			spliced := slices.Concat((*list)[:i], stmts(m.Replace), (*list)[i+len(find):])
			sites = append(sites, &site{
				node: n, with: withStmts(n, spliced), index: i,
				from: first.Pos(), to: last.End(), text: m.Replace,
				line: fset.Position(first.Pos()).Line,
			})
		}
		return true
	})
	return sites
}

// switched puts `if on { mutant } else { reference }` in place of the run
// of statements.
func (stmtKind) switched(_ *ast.File, _ ast.Node, s *site, m *Mutant, on func() ast.Expr) (ast.Node, ast.Node, string) {
	list := stmtList(s.node)
	mut := replacementStmts(m.Replace, s.from)
	i, n := s.index, len(stmts(m.Find))
	orig := slices.Clone((*list)[i : i+n])
	ifs := &ast.IfStmt{If: s.from, Cond: on(), Body: &ast.BlockStmt{List: mut}, Else: &ast.BlockStmt{List: orig}}
	return withStmts(s.node, slices.Concat((*list)[:i], []ast.Stmt{ifs}, (*list)[i+n:])), ifs.Body, ""
}

// parseStmts parses a list of statements.
func parseStmts(src string) ([]ast.Stmt, error) {
	const header = "package p\nfunc _() {\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", header+src+"\n}\n", parser.SkipObjectResolution)
	if err != nil {
		return nil, fragmentError(err, strings.Count(header, "\n"))
	}
	return f.Decls[0].(*ast.FuncDecl).Body.List, nil
}

// stmts parses statements that Check has already validated.
func stmts(src string) []ast.Stmt {
	list, err := parseStmts(src)
	if err != nil {
		panic(err)
	}
	return list
}

// replacementStmts parses statements placed at pos.
func replacementStmts(src string, pos token.Pos) []ast.Stmt {
	list := stmts(src)
	for _, s := range list {
		reposition(s, pos)
	}
	return list
}

// fragmentError reports the first parse error with its position in the
// fragment, skipping the lines of the wrapper it was parsed in.
func fragmentError(err error, skipLines int) error {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		p := list[0].Pos
		return fmt.Errorf("line %d:%d: %s", p.Line-skipLines, p.Column, list[0].Msg)
	}
	return err
}

// stmtList returns the statement list that n holds, if any.
func stmtList(n ast.Node) *[]ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return &n.List
	case *ast.CaseClause:
		return &n.Body
	case *ast.CommClause:
		return &n.Body
	}
	return nil
}

// withStmts returns a shallow copy of the statement container n holding list.
func withStmts(n ast.Node, list []ast.Stmt) ast.Node {
	switch n := n.(type) {
	case *ast.BlockStmt:
		c := *n
		c.List = list
		return &c
	case *ast.CaseClause:
		c := *n
		c.Body = list
		return &c
	case *ast.CommClause:
		c := *n
		c.Body = list
		return &c
	}
	panic(fmt.Sprintf("withStmts: %T holds no statements", n))
}

func stmtsEqual(a, b []ast.Stmt) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !astequal.Stmt(a[i], b[i]) {
			return false
		}
	}
	return true
}

var posType = reflect.TypeFor[token.Pos]()

// reposition moves every valid position in the tree under n to pos, the
// start of the code it stands in for, so that the printer lays the new code
// out there. Positions that are not valid stay so: they mean "absent" (a
// call without "...", say).
func reposition(n ast.Node, pos token.Pos) {
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		v := reflect.ValueOf(n)
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return true
		}
		v = v.Elem()
		for i := range v.NumField() {
			if f := v.Field(i); f.Type() == posType && f.CanSet() && token.Pos(f.Int()).IsValid() {
				f.SetInt(int64(pos))
			}
		}
		return true
	})
}
