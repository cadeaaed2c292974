package mutation

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/go-toolsmith/astcopy"
	"github.com/go-toolsmith/astequal"
	"golang.org/x/tools/go/ast/astutil"

	"github.com/fencelab/fencelab/internal/text"
)

// Applied is a mutant applied to the package.
type Applied struct {
	Mutant   *Mutant
	File     string // absolute path of the rewritten file
	Line     int    // line of the fragment in the reference file
	Original []byte // the reference file
	Mutated  []byte // the rewritten file, gofmt-formatted
	// Start and End are where the rewritten node is in the reference file
	// (End just after it), and Replacement is the source that takes its
	// place.
	Start, End  Position
	Replacement string
	// Generic says that the target is generic code (a function with type
	// parameters, or a method of a generic type): it is compiled where it
	// is instantiated, not in its package alone.
	Generic bool
}

// Position is a place in a file; both count from 1, the column in bytes.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Apply rewrites a copy of the file that declares m's target and returns
// the result. It fails with ErrUnknownTarget or errDrift, or when the
// rewrite leaves the target unchanged or does not print as valid Go.
//
// The rewrite happens on an astcopy of the parsed file, with astutil.Apply.
// It is printed by splicing the fragment's source into the reference in
// place of the matched node and formatting the result with go/format, so
// that every comment and line outside the fragment stays as it was. The
// printed mutant is parsed again: its target must equal the rewritten tree
// and every other declaration the reference.
func (p *Package) Apply(m *Mutant) (*Applied, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	sf, err := p.fileOf(m)
	if err != nil {
		return nil, err
	}
	copied := astcopy.File(sf.ast)
	s, err := rewrite(sf.path, p.fset, copied, m)
	if err != nil {
		return nil, err
	}
	// The source changes where the rewrite changed the tree, and nowhere
	// else: the smallest node that differs is spliced in, so that the
	// comments around it and the file's own layout stay as they were.
	want := targetDecl(sf.path, copied, m.Target)
	from, to, repl := s.from, s.to, s.text
	a, b, narrowed := narrow(s)
	if narrowed {
		from, to, repl = a.Pos(), a.End(), printed(token.NewFileSet(), b)
	}
	out, err := p.splice(sf, m, from, to, repl)
	if err == nil {
		err = verify(sf, out, want, m)
	}
	if err != nil && narrowed {
		// The node above differs too (an operator): the whole fragment.
		from, to, repl = s.from, s.to, s.text
		out, err = p.splice(sf, m, from, to, repl)
		if err == nil {
			err = verify(sf, out, want, m)
		}
	}
	if err != nil {
		return nil, err
	}
	start, end := p.fset.Position(from), p.fset.Position(to)
	return &Applied{Mutant: m, File: sf.path, Line: s.line, Original: sf.src, Mutated: out,
		Start: Position{start.Line, start.Column}, End: Position{end.Line, end.Column}, Replacement: repl,
		Generic: isGeneric(targetDecl(sf.path, sf.ast, m.Target))}, nil
}

// splice returns the source of sf with the text between from and to
// replaced by text, less the imports that it no longer uses.
func (p *Package) splice(sf *sourceFile, m *Mutant, from, to token.Pos, repl string) ([]byte, error) {
	i, j := p.fset.Position(from).Offset, p.fset.Position(to).Offset
	src := slices.Concat(sf.src[:i], []byte(repl), sf.src[j:])
	if repl == "" || strings.Contains(repl, "\n") {
		src = formatDecl(sf.path, src, m.Target)
	}
	out, err := formatMutant(sf.path, src, usedImports(sf.ast))
	if err != nil {
		return nil, m.errorf("replace", "the mutant does not print as Go: %v", err)
	}
	return out, nil
}

// formatDecl formats the declaration of target in src as gofmt would,
// and leaves the rest of src as it is: lines spliced into a function are
// indented like their neighbours. It returns src unchanged if it does not
// parse.
func formatDecl(path string, src []byte, target string) []byte {
	extent := func(src []byte) (*ast.File, *token.FileSet, int, int, bool) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parseMode)
		if err != nil {
			return nil, nil, 0, 0, false
		}
		d := targetDecl(path, f, target)
		if d == nil {
			return nil, nil, 0, 0, false
		}
		return f, fset, fset.Position(d.Pos()).Offset, fset.Position(d.End()).Offset, true
	}
	f, fset, i, j, ok := extent(src)
	if !ok {
		return src
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return src
	}
	_, _, k, l, ok := extent(buf.Bytes())
	if !ok {
		return src
	}
	return slices.Concat(src[:i], buf.Bytes()[k:l], src[j:])
}

// narrow returns the smallest pair of nodes, within the site's node and
// what replaces it, in which they differ: a rewrite of a whole loop that
// changes its i++ differs in the i++. It reports false when nothing
// smaller than the site's fragment differs alone (a deleted statement).
func narrow(s *site) (ast.Node, ast.Node, bool) {
	a, b := s.node, s.with
	if a == nil || b == nil || a.Pos() > s.from || a.End() < s.to {
		return nil, nil, false
	}
	moved := false
	for {
		ca, cb := children(a), children(b)
		if reflect.TypeOf(a) != reflect.TypeOf(b) || len(ca) != len(cb) {
			break
		}
		diff := -1
		for i := range ca {
			if !astequal.Node(ca[i], cb[i]) {
				if diff >= 0 {
					diff = -2
					break
				}
				diff = i
			}
		}
		if diff < 0 {
			break
		}
		a, b, moved = ca[diff], cb[diff], true
	}
	return a, b, moved && a.Pos() >= s.from && a.End() <= s.to
}

// children returns the nodes directly below n.
func children(n ast.Node) []ast.Node {
	var out []ast.Node
	ast.Inspect(n, func(c ast.Node) bool {
		if c == n {
			return true
		}
		if c != nil {
			out = append(out, c)
		}
		return false
	})
	return out
}

// isGeneric reports whether d is a function with type parameters or a
// method of a generic type.
func isGeneric(d ast.Decl) bool {
	fd, ok := d.(*ast.FuncDecl)
	if !ok {
		return false
	}
	if fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0 {
		return true
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return false
	}
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch t.(type) {
	case *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return false
}

// rewrite applies m to f, a copy of the parsed file at path, and returns
// the site.
func rewrite(path string, fset *token.FileSet, f *ast.File, m *Mutant) (*site, error) {
	before := astcopy.Decl(targetDecl(path, f, m.Target))
	s, err := locate(fset, findDecl(path, f, m.Target), m)
	if err != nil {
		return nil, err
	}
	if !replace(f, s.node, s.with) {
		return nil, m.errorf("find", "internal error: the match in %s is gone", m.Target)
	}
	if astequal.Decl(before, targetDecl(path, f, m.Target)) {
		return nil, m.errorf("replace", "the rewrite leaves %s unchanged", m.Target)
	}
	return s, nil
}

// replace puts with in place of node in f, and reports whether it found it.
func replace(f *ast.File, node, with ast.Node) bool {
	replaced := false
	astutil.Apply(f, func(c *astutil.Cursor) bool {
		if !replaced && c.Node() == node {
			c.Replace(with)
			replaced = true
		}
		return !replaced
	}, nil)
	return replaced
}

// locate finds the one place in decl where m applies: its fragment's only
// match, or the one that m's Occurrence or Line picks.
func locate(fset *token.FileSet, decl ast.Node, m *Mutant) (*site, error) {
	k := kinds[m.Kind]
	if _, isFunc := decl.(*ast.FuncDecl); m.Kind == Body && !isFunc {
		return nil, m.errorf("target", "kind body needs a function or method, and %s is not one", m.Target)
	}
	all := k.sites(fset, scopeOf(decl), m)
	sites := all
	if m.Line > 0 {
		sites = slices.DeleteFunc(slices.Clone(sites), func(s *site) bool { return s.line != m.Line })
	}
	if m.Occurrence > 0 {
		if m.Occurrence > len(sites) {
			sites = nil
		} else {
			sites = sites[m.Occurrence-1 : m.Occurrence]
		}
	}
	if len(sites) == 1 {
		return sites[0], nil
	}
	what := fmt.Sprintf("%s `%s`", m.Kind, text.OneLine(m.Find, 60))
	var lines []string
	for _, s := range all {
		lines = append(lines, strconv.Itoa(s.line))
	}
	field := "find"
	var msg string
	switch {
	case len(all) == 0:
		msg = fmt.Sprintf("%s matches 0 times in %s, want exactly 1: no such fragment there (it is matched as Go, so spacing does not matter, but names, operators and literals do)", what, m.Target)
	case m.Occurrence > 0 || m.Line > 0:
		field = "occurrence"
		if m.Line > 0 {
			field = "line"
		}
		msg = fmt.Sprintf("%s matches %d times in %s (on lines %s), and occurrence %d, line %d picks none of them",
			what, len(all), m.Target, strings.Join(lines, ", "), m.Occurrence, m.Line)
	default:
		msg = fmt.Sprintf("%s matches %d times in %s (on lines %s), want exactly 1: make find longer, or pick one with occurrence: N or line: N",
			what, len(all), m.Target, strings.Join(lines, ", "))
	}
	return nil, mark(errDrift, m.errorf(field, "%s", msg))
}

// formatMutant parses the spliced source of a mutant and deletes the
// imports among used that it no longer uses (a rewrite that removed their
// last use would not compile otherwise). The source is kept as it is, and
// formatted only when an import goes.
func formatMutant(path string, src []byte, used []*ast.ImportSpec) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parseMode)
	if err != nil {
		return nil, err
	}
	unused := false
	for _, imp := range used {
		if usesImport(f, imp) {
			continue
		}
		unused = true
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		}
		p, _ := strconv.Unquote(imp.Path.Value)
		astutil.DeleteNamedImport(fset, f, name, p)
	}
	if !unused {
		return src, nil
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
	if !astequal.Decl(targetDecl(sf.path, got, m.Target), want) {
		return m.errorf("replace", "the printed mutant of %s differs from the rewritten tree", m.Target)
	}
	ref, have := nonImports(sf.ast.Decls), nonImports(got.Decls)
	if len(have) != len(ref) {
		return m.errorf("replace", "the mutant has %d declarations, the reference %d", len(have), len(ref))
	}
	target := targetDecl(sf.path, sf.ast, m.Target)
	for i, d := range ref {
		if d != target && !astequal.Decl(d, have[i]) {
			return m.errorf("replace", "the mutant also changes %s", strings.Join(declNames(sf.path, sf.ast, d), ", "))
		}
	}
	return nil
}

// Diff returns the mutant as a unified diff against the reference, with
// name, the file's path relative to the module root, in the header.
func (a *Applied) Diff(name string) string {
	return udiff.Unified("a/"+name, "b/"+name, string(a.Original), string(a.Mutated))
}
