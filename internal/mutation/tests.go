package mutation

import (
	"cmp"
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
	funcs, err := TestFuncs(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(funcs))
	for i, f := range funcs {
		names[i] = f.Name
	}
	return names, nil
}

// TestFunc is a top-level test, fuzz test or example, and where its
// function is.
type TestFunc struct {
	Name         string
	File         string // the test file's name in the package directory
	Line, Column int
}

// TestFuncs returns the top-level tests of the package in dir (see
// TopLevel), sorted by name, with where each is declared.
func TestFuncs(dir string) ([]TestFunc, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); !ok {
			return nil, fmt.Errorf("list tests of %s: %w", dir, err)
		}
	}
	fset := token.NewFileSet()
	var funcs []TestFunc
	for _, name := range slices.Concat(bp.TestGoFiles, bp.XTestGoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("list tests of %s: %w", dir, err)
		}
		funcs = append(funcs, TestFuncsOf(fset, f)...)
	}
	slices.SortStableFunc(funcs, func(a, b TestFunc) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(funcs, func(a, b TestFunc) bool { return a.Name == b.Name }), nil
}

// TestFuncsOf returns the top-level tests, fuzz tests and examples of the
// test file f, parsed with its comments, that go test runs (see
// TopLevel), in the order they are declared, with where each is. Neither
// TestMain nor a benchmark is one; an example without an output comment
// is compiled and never run, so it is not one either.
func TestFuncsOf(fset *token.FileSet, f *ast.File) []TestFunc {
	var funcs []TestFunc
	add := func(name string, pos token.Pos) {
		p := fset.Position(pos)
		funcs = append(funcs, TestFunc{Name: name, File: filepath.Base(p.Filename), Line: p.Line, Column: p.Column})
	}
	decls := map[string]token.Pos{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil {
			continue
		}
		decls[fd.Name.Name] = fd.Pos()
		if isTestFunc(fd, "Test", "T") || isTestFunc(fd, "Fuzz", "F") {
			add(fd.Name.Name, fd.Pos())
		}
	}
	for _, ex := range doc.Examples(f) {
		if ex.Output != "" || ex.EmptyOutput {
			add("Example"+ex.Name, decls["Example"+ex.Name])
		}
	}
	slices.SortStableFunc(funcs, func(a, b TestFunc) int { return cmp.Compare(a.Line, b.Line) })
	return funcs
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
