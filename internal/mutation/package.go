package mutation

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/suggest"
)

// parseMode is the mode for every parse: comments are kept so that printed
// mutants read like the reference code, and objects are not resolved
// because nothing here needs them.
const parseMode = parser.ParseComments | parser.SkipObjectResolution

// Package is the parsed source of the Go package that mutants rewrite. The
// parsed files are never modified: every mutant works on a copy.
type Package struct {
	Dir   string // absolute directory
	Name  string // package name
	fset  *token.FileSet
	files []*sourceFile
	typed *typing // see UseTypes; nil until then
}

type sourceFile struct {
	path string // absolute
	src  []byte
	ast  *ast.File
}

// Load parses the non-test Go files of the package in dir that the current
// build context selects.
func Load(dir string) (*Package, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	bp, err := build.ImportDir(abs, 0)
	if err != nil {
		return nil, fmt.Errorf("load package %s: %w", dir, err)
	}
	p := &Package{Dir: abs, Name: bp.Name, fset: token.NewFileSet()}
	for _, name := range bp.GoFiles {
		path := filepath.Join(abs, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("load package %s: %w", dir, err)
		}
		f, err := parser.ParseFile(p.fset, path, src, parseMode)
		if err != nil {
			return nil, fmt.Errorf("load package %s: %w", dir, err)
		}
		p.files = append(p.files, &sourceFile{path: path, src: src, ast: f})
	}
	return p, nil
}

// Targets lists the declarations that mutants can name, sorted.
func (p *Package) Targets() []string {
	var names []string
	for _, sf := range p.files {
		for _, d := range sf.ast.Decls {
			names = append(names, declNames(sf.path, sf.ast, d)...)
		}
	}
	slices.Sort(names)
	return names
}

// fileOf returns the file that declares m's target. A function that the
// package declares more than once (init) is named with its file; its bare
// name is enough where the package declares it once.
func (p *Package) fileOf(m *Mutant) (*sourceFile, error) {
	var found []*sourceFile
	for _, sf := range p.files {
		if findDecl(sf.path, sf.ast, m.Target) != nil {
			found = append(found, sf)
		}
	}
	var names []string
	for _, sf := range found {
		for _, d := range sf.ast.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && repeatable(fd) && fd.Name.Name == m.Target {
				names = append(names, declName(sf.path, sf.ast, fd))
			}
		}
	}
	switch {
	case len(names) > 1:
		return nil, mark(ErrUnknownTarget, m.errorf("target",
			"package %s declares %s %d times: name one of them, %s", p.Name, m.Target, len(names), strings.Join(names, ", ")))
	case len(found) > 0:
		return found[0], nil
	}
	return nil, mark(ErrUnknownTarget, m.errorf("target",
		"package %s has no function, method, const or var %q%s", p.Name, m.Target, suggest.Hint(m.Target, p.Targets())))
}

// marked is an error that also matches a sentinel, without repeating the
// sentinel's text in its message.
type marked struct {
	error
	sentinel error
}

func (e marked) Unwrap() []error { return []error{e.error, e.sentinel} }

func mark(sentinel, err error) error { return marked{err, sentinel} }

// scopeOf returns the part of decl that fragments are matched in: a
// function's body, or a const or var spec.
func scopeOf(decl ast.Node) ast.Node {
	if fd, ok := decl.(*ast.FuncDecl); ok {
		return fd.Body
	}
	return decl
}

// findDecl returns the declaration of name in f, the file at path: the
// *ast.FuncDecl of a function or method ("Type.Method", "init@file.go"),
// or the *ast.ValueSpec of a package-level const or var. The bare name of
// a function that Go lets a package declare more than once is its first
// in f (fileOf checks that there is one in the package).
func findDecl(path string, f *ast.File, name string) ast.Node {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body != nil && (declName(path, f, d) == name || repeatable(d) && d.Name.Name == name) {
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

// targetDecl returns the top-level declaration of f, the file at path,
// that declares name: the *ast.FuncDecl, or the *ast.GenDecl that holds
// the const or var. The trees of two versions of a file are compared at
// this level, because astequal compares declarations but not specs.
func targetDecl(path string, f *ast.File, name string) ast.Decl {
	if fd, ok := findDecl(path, f, name).(*ast.FuncDecl); ok {
		return fd
	}
	for _, d := range f.Decls {
		if slices.Contains(declNames(path, f, d), name) {
			return d
		}
	}
	return nil
}

// declNames returns the names of what d, a declaration of f, the file at
// path, declares, as targets name them.
func declNames(path string, f *ast.File, d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return []string{declName(path, f, d)}
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

// repeatable reports whether fd is a function that Go lets a package
// declare more than once: init, or the blank identifier.
func repeatable(fd *ast.FuncDecl) bool {
	return fd.Recv == nil && (fd.Name.Name == "init" || fd.Name.Name == "_")
}

// declName returns the target name of fd, a declaration of f, the file at
// path: its funcName, and for a function that a package may declare more
// than once, its file's name too, "init@config.go", with its place among
// the file's functions of that name after the first: "init@config.go#2".
// Each is then one declaration, whatever the other files hold.
func declName(path string, f *ast.File, fd *ast.FuncDecl) string {
	if !repeatable(fd) {
		return funcName(fd)
	}
	name := fd.Name.Name + "@" + filepath.Base(path)
	n := 0
	for _, d := range f.Decls {
		if other, ok := d.(*ast.FuncDecl); ok && repeatable(other) && other.Name.Name == fd.Name.Name {
			n++
		}
		if d == fd {
			break
		}
	}
	if n > 1 {
		name += "#" + strconv.Itoa(n)
	}
	return name
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
// last element of its path, as it is for most packages; the type check of
// every mutant catches the others.
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

func nonImports(decls []ast.Decl) []ast.Decl {
	return slices.DeleteFunc(slices.Clone(decls), func(d ast.Decl) bool {
		gd, ok := d.(*ast.GenDecl)
		return ok && gd.Tok == token.IMPORT
	})
}
