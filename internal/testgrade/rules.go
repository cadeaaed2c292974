package testgrade

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/text"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Rules say what a learner's test file may be, checked before anything of
// it runs. A file that breaks one is invalid: it earns nothing, and each
// problem is named at its file:line:col.
//
// The rules are the first of two walls between a learner's tests and the
// identity of the mutant they run against (the other: no run names its
// mutant, see harness.Options.Blind). Go code reads its environment, its
// files, its own binary or its memory only through os, syscall, unsafe or
// packages built on them; a file that imports none of them, links to no
// symbol and calls into no C can observe the package under test through
// its API, and time (see docs/internals.md, "A learner's tests").
type Rules struct {
	Package    string // the exercise's package name: lease
	ImportPath string // and import path
	// Clause is the package a learner's file may be in.
	Clause exercise.TestPackage
	// Imports are the packages it may import beyond
	// exercise.StandardImports and the
	// exercise's own: the catalog's tests.imports.
	Imports []string
}

// directives says why a comment directive has no place in a learner's
// test file, by its prefix.
var directives = []struct{ prefix, why string }{
	{"//go:linkname", "it reaches any symbol of the binary, the process's environment among them"},
	{"//go:embed", "it embeds files"},
	{"//line ", "it changes the file and line that messages name"},
	{"/*line ", "it changes the file and line that messages name"},
	{"//go:", "a test file needs no compiler directive"},
	{"//export ", "it is cgo's"},
}

// allowed reports whether the file may import path.
func (r Rules) allowed(path string) bool {
	return path == r.ImportPath || slices.Contains(exercise.StandardImports, path) || slices.Contains(r.Imports, path)
}

// clauses returns the package names a learner's file may declare.
func (r Rules) clauses() []string {
	switch r.Clause {
	case exercise.Internal:
		return []string{r.Package}
	case exercise.Either:
		return []string{r.Package + "_test", r.Package}
	}
	return []string{r.Package + "_test"}
}

// Check returns every problem of f, the parsed learner's file: its package,
// its imports, its directives, a TestMain. A file with none is then
// type-checked by typeCheck, unless it is nil.
func (r Rules) Check(fset *token.FileSet, f *ast.File, typeCheck func(*ast.File) yamlfile.Errors) yamlfile.Errors {
	var errs yamlfile.Errors
	at := func(pos token.Pos, format string, args ...any) {
		p := fset.Position(pos)
		errs = append(errs, &yamlfile.Error{Pos: yamlfile.Pos{File: p.Filename, Line: p.Line, Col: p.Column}, Msg: fmt.Sprintf(format, args...)})
	}
	if clauses := r.clauses(); !slices.Contains(clauses, f.Name.Name) {
		at(f.Name.Pos(), "package %s: a learner's test file of package %s declares package %s", f.Name.Name, r.Package, strings.Join(clauses, " or "))
	}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || r.allowed(path) {
			continue
		}
		if why := exercise.RefusedImport(path); why != "" {
			at(imp.Path.Pos(), "import %q is refused: %s", path, why)
			continue
		}
		at(imp.Path.Pos(), "import %q is not one a learner's test of this exercise may import: those are %s, and the standard packages a contract test needs (the worksheet lists them)", path, r.ImportPath)
	}
	for _, group := range f.Comments {
		for _, c := range group.List {
			// Any line go/build takes for a build constraint, in any
			// spelling it reads ("//go:build", "//+build", "// +build").
			if constraint.IsGoBuild(c.Text) || constraint.IsPlusBuild(c.Text) {
				line := text.Name(c.Text)
				if utf8.RuneCountInString(line) > 40 {
					line = string([]rune(line)[:39]) + "…"
				}
				at(c.Pos(), "build constraint %q is refused: a learner's file is always compiled, whatever the build", line)
				continue
			}
			for _, d := range directives {
				if strings.HasPrefix(c.Text, d.prefix) {
					at(c.Pos(), "directive %s is refused: %s", strings.Fields(c.Text)[0], d.why)
					break
				}
			}
		}
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "TestMain" {
			at(fd.Name.Pos(), "TestMain is refused: it runs around every test of the file, which are graded one by one; set up in each test, with a helper and t.Cleanup")
		}
	}
	if len(errs) == 0 && typeCheck != nil {
		errs = typeCheck(f)
	}
	return errs
}

// typeErrors type-checks files, the learner's file last, as one package
// with imp, and returns the errors of the learner's file: what the
// compiler would say, before anything is built; or, if there are none,
// what the rules on types refuse of it (see reachProblems).
func typeErrors(fset *token.FileSet, path string, files []*ast.File, imp types.Importer, allowed []string) yamlfile.Errors {
	var errs yamlfile.Errors
	learner := files[len(files)-1]
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		Instances: map[*ast.Ident]types.Instance{}}
	conf := types.Config{
		Importer: imp,
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok || te.Fset.File(te.Pos) != fset.File(learner.Pos()) {
				return // another file's: the package's own compile
			}
			p := te.Fset.Position(te.Pos)
			errs = append(errs, &yamlfile.Error{Pos: yamlfile.Pos{File: p.Filename, Line: p.Line, Col: p.Column}, Msg: te.Msg})
		},
	}
	conf.Check(path, fset, files, info)
	if len(errs) > 0 {
		return errs
	}
	return reachProblems(fset, learner, info, allowed)
}
