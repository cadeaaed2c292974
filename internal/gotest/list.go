package gotest

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TopLevel returns the names of the top-level tests, fuzz tests and
// examples that `go test -list .` would print for the package in dir,
// read from its test files without building anything: functions TestXxx
// and FuzzXxx of the right shape, and examples with an output comment.
func TopLevel(dir string) ([]string, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); !ok {
			return nil, fmt.Errorf("list tests of %s: %w", dir, err)
		}
	}
	fset := token.NewFileSet()
	var names []string
	for _, name := range slices.Concat(bp.TestGoFiles, bp.XTestGoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("list tests of %s: %w", dir, err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil {
				continue
			}
			switch name := fd.Name.Name; {
			case isTestFunc(fd, "Test", "T"), isTestFunc(fd, "Fuzz", "F"):
				names = append(names, name)
			}
		}
		for _, ex := range doc.Examples(f) {
			if ex.Output != "" || ex.EmptyOutput {
				names = append(names, "Example"+ex.Name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// isTestFunc reports whether fd is a function prefix+Xxx(*testing.<param>),
// by the rules of go test: what follows the prefix does not start with a
// lower-case letter.
func isTestFunc(fd *ast.FuncDecl, prefix, param string) bool {
	name := fd.Name.Name
	if !strings.HasPrefix(name, prefix) || name == "TestMain" {
		return false
	}
	if rest := name[len(prefix):]; rest != "" {
		if r, _ := utf8.DecodeRuneInString(rest); unicode.IsLower(r) {
			return false
		}
	}
	ps := fd.Type.Params.List
	if len(ps) != 1 || len(ps[0].Names) > 1 || fd.Type.Results != nil || fd.Type.TypeParams != nil {
		return false
	}
	star, ok := ps[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == param
}
