package mutants

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/go-toolsmith/astequal"
)

// scopeOf returns the part of decl that fragments are matched in: a
// function's body, or a const or var spec.
func scopeOf(decl ast.Node) ast.Node {
	if fd, ok := decl.(*ast.FuncDecl); ok {
		return fd.Body
	}
	return decl
}

// findDecl returns the declaration of name in f: the *ast.FuncDecl of a
// function or method ("Type.Method"), or the *ast.ValueSpec of a
// package-level const or var.
func findDecl(f *ast.File, name string) ast.Node {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if funcName(d) == name && d.Body != nil {
				return d
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for _, id := range vs.Names {
						if id.Name == name {
							return vs
						}
					}
				}
			}
		}
	}
	return nil
}

// targetDecl returns the top-level declaration of f that declares name:
// the *ast.FuncDecl, or the *ast.GenDecl that holds the const or var. The
// trees of two versions of a file are compared at this level, because
// astequal compares declarations but not specs.
func targetDecl(f *ast.File, name string) ast.Decl {
	for _, d := range f.Decls {
		if slices.Contains(declNames(d), name) {
			return d
		}
	}
	return nil
}

// declNames returns the names findDecl accepts for d.
func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return []string{funcName(d)}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			if vs, ok := s.(*ast.ValueSpec); ok {
				for _, id := range vs.Names {
					names = append(names, id.Name)
				}
			}
		}
		return names
	}
	return nil
}

// funcName returns "Name" for a function and "Type.Name" for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
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

// expr parses an expression fragment that check has already validated.
func expr(src string) ast.Expr {
	nodes, err := parseFragment(Expr, src)
	if err != nil {
		panic(err)
	}
	return nodes[0].(ast.Expr)
}

// stmts parses a statement fragment that check has already validated.
func stmts(src string) []ast.Stmt {
	nodes, err := parseFragment(Stmt, src)
	if err != nil {
		panic(err)
	}
	list := make([]ast.Stmt, len(nodes))
	for i, n := range nodes {
		list[i] = n.(ast.Stmt)
	}
	return list
}

// parseFragment parses src as kind: one expression, or a list of
// statements for Stmt and Body. Positions in the result refer to a file set
// of its own; astequal ignores them.
func parseFragment(kind Kind, src string) ([]ast.Node, error) {
	switch kind {
	case Expr:
		e, err := parser.ParseExprFrom(token.NewFileSet(), "", src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fragmentError(err, 0)
		}
		return []ast.Node{e}, nil
	case Stmt, Body:
		const header = "package p\nfunc _() {\n"
		f, err := parser.ParseFile(token.NewFileSet(), "", header+src+"\n}\n", parser.SkipObjectResolution)
		if err != nil {
			return nil, fragmentError(err, strings.Count(header, "\n"))
		}
		var nodes []ast.Node
		for _, s := range f.Decls[0].(*ast.FuncDecl).Body.List {
			nodes = append(nodes, s)
		}
		return nodes, nil
	}
	return nil, fmt.Errorf("kind %s has no Go fragment", kind)
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

// usedImports returns the import specs of f that some selector uses.
func usedImports(f *ast.File) []*ast.ImportSpec {
	var used []*ast.ImportSpec
	for _, imp := range f.Imports {
		if usesImport(f, imp) {
			used = append(used, imp)
		}
	}
	return used
}

// usesImport reports whether a selector in f refers to imp by its local
// name. Without type information the name of a package is taken to be the
// last element of its path, as it is for every import of package lease.
func usesImport(f *ast.File, imp *ast.ImportSpec) bool {
	path, _ := strconv.Unquote(imp.Path.Value)
	name := path[strings.LastIndex(path, "/")+1:]
	if imp.Name != nil {
		name = imp.Name.Name
	}
	if name == "_" || name == "." {
		return true
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// requote quotes value in the style of the literal lit: raw if lit was raw
// and value allows it, interpreted otherwise.
func requote(lit, value string) string {
	if strings.HasPrefix(lit, "`") && !strings.Contains(value, "`") {
		return "`" + value + "`"
	}
	return strconv.Quote(value)
}

func nonImports(decls []ast.Decl) []ast.Decl {
	return slices.DeleteFunc(slices.Clone(decls), func(d ast.Decl) bool {
		gd, ok := d.(*ast.GenDecl)
		return ok && gd.Tok == token.IMPORT
	})
}

// oneLine shortens a fragment for a one-line message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
