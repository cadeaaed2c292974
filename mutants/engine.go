package mutants

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/go-toolsmith/astcopy"
	"github.com/go-toolsmith/astequal"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/fencelab/fencelab/internal/suggest"
)

// ErrDrift is returned when a mutant's fragment does not match its target
// exactly once: the reference code and the catalog have drifted apart.
var ErrDrift = errors.New("fragment does not match exactly once")

// ErrUnknownTarget is returned when a mutant names a declaration that the
// package does not have.
var ErrUnknownTarget = errors.New("unknown target")

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
			names = append(names, declNames(d)...)
		}
	}
	sort.Strings(names)
	return names
}

// marked is an error that also matches a sentinel, without repeating the
// sentinel's text in its message.
type marked struct {
	error
	sentinel error
}

func (e marked) Unwrap() []error { return []error{e.error, e.sentinel} }

func mark(sentinel, err error) error { return marked{err, sentinel} }

// Applied is a mutant applied to the package.
type Applied struct {
	Mutant   *Mutant
	File     string // absolute path of the rewritten file
	Line     int    // line of the fragment in the reference file
	Original []byte // the reference file
	Mutated  []byte // the rewritten file, gofmt-formatted
}

// Apply rewrites a copy of the file that declares m's target and returns
// the result. It fails with ErrUnknownTarget or ErrDrift, or when the
// rewrite leaves the target unchanged or does not print as valid Go.
//
// The rewrite happens on an astcopy of the parsed file, with astutil.Apply.
// It is printed by splicing the fragment's source into the reference in
// place of the matched node and formatting the result with go/format, so
// that every comment and line outside the fragment stays as it was. The
// printed mutant is parsed again: its target must equal the rewritten tree
// and every other declaration the reference.
func (p *Package) Apply(m *Mutant) (*Applied, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	sf, err := p.fileOf(m)
	if err != nil {
		return nil, err
	}
	copied := astcopy.File(sf.ast)
	site, err := rewrite(p.fset, copied, m)
	if err != nil {
		return nil, err
	}
	from, to := p.fset.Position(site.from).Offset, p.fset.Position(site.to).Offset
	spliced := slices.Concat(sf.src[:from], []byte(site.text), sf.src[to:])
	out, err := formatMutant(sf.path, spliced, usedImports(sf.ast))
	if err != nil {
		return nil, m.errorf("replace", "the mutant does not print as Go: %v", err)
	}
	if err := verify(sf, out, targetDecl(copied, m.Target), m); err != nil {
		return nil, err
	}
	return &Applied{Mutant: m, File: sf.path, Line: site.line, Original: sf.src, Mutated: out}, nil
}

// fileOf returns the file that declares m's target.
func (p *Package) fileOf(m *Mutant) (*sourceFile, error) {
	for _, sf := range p.files {
		if findDecl(sf.ast, m.Target) != nil {
			return sf, nil
		}
	}
	return nil, mark(ErrUnknownTarget, m.errorf("target",
		"package %s has no function, method or const %q%s", p.Name, m.Target, suggest.Hint(m.Target, p.Targets())))
}

// rewrite applies m to f, a copy of a parsed file, and returns the site.
func rewrite(fset *token.FileSet, f *ast.File, m *Mutant) (*site, error) {
	before := astcopy.Decl(targetDecl(f, m.Target))
	site, err := locate(fset, findDecl(f, m.Target), m)
	if err != nil {
		return nil, err
	}
	replaced := false
	astutil.Apply(f, func(c *astutil.Cursor) bool {
		if !replaced && c.Node() == site.node {
			c.Replace(site.with)
			replaced = true
		}
		return !replaced
	}, nil)
	if !replaced {
		return nil, m.errorf("find", "internal error: the match in %s is gone", m.Target)
	}
	if astequal.Decl(before, targetDecl(f, m.Target)) {
		return nil, m.errorf("replace", "the rewrite leaves %s unchanged", m.Target)
	}
	return site, nil
}

// site is where a mutant applies: node is to be replaced by with, and in
// the source the bytes from from to to by text.
type site struct {
	node, with ast.Node
	from, to   token.Pos
	text       string
	line       int
	index      int // for Stmt: where the run of statements starts in node
}

// locate finds the one place in decl where m's fragment matches.
func locate(fset *token.FileSet, decl ast.Node, m *Mutant) (*site, error) {
	var sites []*site
	switch m.Kind {
	case Expr:
		find := expr(m.Find)
		astutil.Apply(scopeOf(decl), func(c *astutil.Cursor) bool {
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
	case Stmt:
		find := stmts(m.Find)
		ast.Inspect(scopeOf(decl), func(n ast.Node) bool {
			list := stmtList(n)
			if list == nil {
				return true
			}
			for i := 0; i+len(find) <= len(*list); i++ {
				if stmtsEqual((*list)[i:i+len(find)], find) {
					first, last := (*list)[i], (*list)[i+len(find)-1]
					spliced := slices.Concat((*list)[:i], stmts(m.Replace), (*list)[i+len(find):])
					sites = append(sites, &site{
						node: n, with: withStmts(n, spliced), index: i,
						from: first.Pos(), to: last.End(), text: m.Replace,
						line: fset.Position(first.Pos()).Line,
					})
				}
			}
			return true
		})
	case Body:
		body, ok := scopeOf(decl).(*ast.BlockStmt)
		if !ok {
			return nil, m.errorf("target", "kind body needs a function or method, and %s is not one", m.Target)
		}
		if stmtsEqual(body.List, stmts(m.Find)) {
			line := fset.Position(body.Lbrace).Line
			if len(body.List) > 0 {
				line = fset.Position(body.List[0].Pos()).Line
			}
			sites = append(sites, &site{
				node: body, with: &ast.BlockStmt{List: stmts(m.Replace)},
				from: body.Lbrace, to: body.End(), text: "{\n" + m.Replace + "\n}",
				line: line,
			})
		}
	case String:
		ast.Inspect(scopeOf(decl), func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			value, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			before, _, _ := strings.Cut(value, m.Find)
			text := requote(lit.Value, strings.Replace(value, m.Find, m.Replace, 1))
			s := &site{
				node: lit, with: &ast.BasicLit{Kind: token.STRING, Value: text},
				from: lit.Pos(), to: lit.End(), text: text,
				line: fset.Position(lit.Pos()).Line + strings.Count(before, "\n"),
			}
			for range strings.Count(value, m.Find) {
				sites = append(sites, s)
			}
			return true
		})
	}
	if len(sites) != 1 {
		return nil, mark(ErrDrift, m.errorf("find",
			"%s `%s` matches %d times in %s, want exactly 1: the reference code changed; update the mutant to match it",
			m.Kind, oneLine(m.Find), len(sites), m.Target))
	}
	return sites[0], nil
}

// formatMutant parses the spliced source of a mutant, deletes the imports
// among used that it no longer uses (a rewrite that removed their last use
// would not compile otherwise), and formats it.
func formatMutant(path string, src []byte, used []*ast.ImportSpec) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parseMode)
	if err != nil {
		return nil, err
	}
	for _, imp := range used {
		if usesImport(f, imp) {
			continue
		}
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		}
		p, _ := strconv.Unquote(imp.Path.Value)
		astutil.DeleteNamedImport(fset, f, name, p)
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// verify parses the printed mutant and checks that its target equals want,
// the rewritten tree, and that every other declaration but the imports is
// the reference's.
func verify(sf *sourceFile, mutated []byte, want ast.Decl, m *Mutant) error {
	got, err := parser.ParseFile(token.NewFileSet(), sf.path, mutated, parseMode)
	if err != nil {
		return m.errorf("replace", "the mutant does not parse: %v", err)
	}
	if !astequal.Decl(targetDecl(got, m.Target), want) {
		return m.errorf("replace", "the printed mutant of %s differs from the rewritten tree", m.Target)
	}
	ref, have := nonImports(sf.ast.Decls), nonImports(got.Decls)
	if len(have) != len(ref) {
		return m.errorf("replace", "the mutant has %d declarations, the reference %d", len(have), len(ref))
	}
	for i, d := range ref {
		if !slices.Contains(declNames(d), m.Target) && !astequal.Decl(d, have[i]) {
			return m.errorf("replace", "the mutant also changes %s", strings.Join(declNames(d), ", "))
		}
	}
	return nil
}

// Diff returns the mutant as a unified diff against the reference, with
// name, the file's path relative to the module root, in the header.
func (a *Applied) Diff(name string) string {
	return udiff.Unified("a/"+name, "b/"+name, string(a.Original), string(a.Mutated))
}
