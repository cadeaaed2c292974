package mutation

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-toolsmith/astcopy"
	"golang.org/x/tools/go/ast/astutil"
)

// SwitchEnv is the environment variable that names the active mutant of a
// switched build; unset or empty, the build behaves as the reference.
const SwitchEnv = "MUTATE_ACTIVE"

// CoverEnv is the environment variable that names a file to which a
// switched build appends, one per line, the id of each mutant whose site
// the process reaches, the first time it does.
const CoverEnv = "MUTATE_COVER"

// ActiveSuffix and CoverSuffix name files beside a switched test binary
// (its path with the suffix) that, when they exist, say what SwitchEnv and
// CoverEnv would: the mutant travels with the binary, so that a test that
// runs its own binary again with an environment of its own runs the same
// mutant.
const (
	ActiveSuffix = ".mutant"
	CoverSuffix  = ".cover"
)

// HelperFile is the name of the file that a switched build adds to the
// package.
const HelperFile = "zz_mutate_switch.go"

// Names the helper file declares in the package. They are unlikely to
// collide with the package's own; if they do, the build fails and every
// mutant falls back to its own build.
const (
	onFunc       = "mutateOn"
	pickFunc     = "mutatePick"
	arithFunc    = "mutateArith"
	arithIntFunc = "mutateArithInt"
	negFunc      = "mutateNeg"
)

// Switched is one version of the package that holds every switched
// mutant at once: each mutation site chooses between the reference and the
// mutant at run time, by the value of SwitchEnv (mutant schemata).
type Switched struct {
	Files    map[string][]byte // absolute path: source, the helper file included
	Included []string          // ids switched in, in the order given
	// Excluded says, for each mutant that could not be switched, why; it
	// needs a build of its own.
	Excluded map[string]string
	// Reached are the excluded mutants whose function records, when it is
	// called, that their site may be reached (for coverage; see
	// CoverEnv), in the order given.
	Reached []string
	// Constants are the ids switched in whose switch made a constant a
	// variable: a use of it where Go needs a constant fails to compile
	// there, away from the switch.
	Constants []string
	// Generic says that some switch calls a generic helper: its value's
	// type has a type parameter, or the package was not type-checked (see
	// Package.UseTypes). The helper file then sets go1.21 as its
	// language version, by its //go:build line.
	Generic bool
	spans   map[string]span // id: where its switch is in the printed file
}

// Marked returns the ids whose sites record that they are reached: those
// switched in, and those of Reached, in the order given.
func (sw *Switched) Marked() []string {
	return slices.Concat(sw.Included, sw.Reached)
}

// span is a range of lines of one file.
type span struct {
	file       string // absolute path
	start, end int
}

// Switch builds the switched version of the package for ms, leaving out the
// ids in exclude. A mutant that cannot be switched (its fragment overlaps
// another's, or its expression may have side effects that would run when it
// is not active) is excluded and reported in Excluded, never silently
// changed. An excluded mutant of a function, unless noMark names it, gets
// a mark at the top of the function's body instead, which records that
// its site may be reached whenever the function is called (see Reached):
// coverage then knows the tests that may reach it, and never calls it
// unreached when it is not.
func (p *Package) Switch(ms []*Mutant, exclude map[string]string, noMark map[string]bool) (*Switched, error) {
	sw := &Switched{Files: map[string][]byte{}, Excluded: map[string]string{}, spans: map[string]span{}}
	for id, why := range exclude {
		sw.Excluded[id] = why
	}
	copies := map[*sourceFile]*ast.File{}
	copyOf := func(sf *sourceFile) *ast.File {
		if copies[sf] == nil {
			copies[sf] = astcopy.File(sf.ast)
		}
		return copies[sf]
	}
	h := newHelpers(p.typed)
	if err := p.switchAll(sw, ms, copyOf, h); err != nil {
		return nil, err
	}
	for _, m := range ms {
		if _, ok := sw.Excluded[m.ID]; !ok || noMark[m.ID] {
			continue
		}
		sf, err := p.fileOf(m)
		if err != nil {
			continue // not a function of the package: nothing to mark
		}
		if markReached(sf.path, copyOf(sf), m) {
			sw.Reached = append(sw.Reached, m.ID)
		}
	}
	// Keep the order of ms.
	order := func(a, b string) int {
		return slices.IndexFunc(ms, func(m *Mutant) bool { return m.ID == a }) -
			slices.IndexFunc(ms, func(m *Mutant) bool { return m.ID == b })
	}
	slices.SortFunc(sw.Included, order)
	slices.SortFunc(sw.Reached, order)
	for sf, f := range copies {
		if err := p.printSwitched(sw, sf, f); err != nil {
			return nil, err
		}
	}
	sw.Files[filepath.Join(p.Dir, HelperFile)] = helper(p.Name, h)
	sw.Generic = h.generic
	return sw, nil
}

// switchAll switches every mutant of ms in that sw does not exclude, in
// the copies of their files that copyOf gives, or excludes it, saying why.
// Bodies go first: a body's fragment is the whole body, which any other
// switch in the same function would change.
func (p *Package) switchAll(sw *Switched, ms []*Mutant, copyOf func(*sourceFile) *ast.File, h *helpers) error {
	order := slices.Clone(ms)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Kind == Body && order[j].Kind != Body })
	skip := map[ast.Node]bool{} // the mutant side of every switch made so far
	for _, m := range order {
		if _, ok := sw.Excluded[m.ID]; ok {
			continue
		}
		if err := m.Check(); err != nil {
			return err
		}
		sf, err := p.fileOf(m)
		if err != nil {
			return err
		}
		constant, why := switchOne(sf.path, p.fset, copyOf(sf), m, skip, h)
		if why != "" {
			sw.Excluded[m.ID] = why
			continue
		}
		sw.Included = append(sw.Included, m.ID)
		if constant {
			sw.Constants = append(sw.Constants, m.ID)
		}
	}
	return nil
}

// printSwitched prints f, the switched copy of sf, into sw, and records
// where each switch is in it.
func (p *Package) printSwitched(sw *Switched, sf *sourceFile, f *ast.File) error {
	var buf bytes.Buffer
	if err := format.Node(&buf, p.fset, f); err != nil {
		return fmt.Errorf("print the switched %s: %w", filepath.Base(sf.path), err)
	}
	out := buf.Bytes()
	printed, err := parser.ParseFile(token.NewFileSet(), sf.path, out, parseMode)
	if err != nil {
		return fmt.Errorf("the switched %s does not parse: %w", filepath.Base(sf.path), err)
	}
	sw.Files[sf.path] = out
	for id, s := range switchSpans(printed, out) {
		s.file = sf.path
		sw.spans[id] = s
	}
	return nil
}

// Blame returns the ids of the switched mutants whose switch is the
// innermost one around line of file (the file's base name or path, as a
// compiler error names it).
func (sw *Switched) Blame(file string, line int) []string {
	var ids []string
	size := -1
	for id, s := range sw.spans {
		if filepath.Base(s.file) != filepath.Base(file) || line < s.start || line > s.end {
			continue
		}
		switch n := s.end - s.start; {
		case size < 0 || n < size:
			ids, size = []string{id}, n
		case n == size:
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// switchOne rewrites the one site of m in f into a switch, or returns why
// it cannot; constant says that the site is in a constant's declaration,
// which the switch makes a variable's.
func switchOne(path string, fset *token.FileSet, f *ast.File, m *Mutant, skip map[ast.Node]bool, h *helpers) (constant bool, why string) {
	decl := findDecl(path, f, m.Target)
	s, err := locateSkipping(fset, decl, m, skip)
	if err != nil {
		return false, "its site overlaps the site of another mutant of " + m.Target + ", which the switched build holds"
	}
	constant = constDeclOf(f, s.node.Pos()) != nil
	// Every node of a switch is placed at the site, so that the printer
	// keeps the comments around it in their place.
	on := func() ast.Expr {
		return &ast.CallExpr{
			Fun: &ast.Ident{NamePos: s.from, Name: onFunc}, Lparen: s.from, Rparen: s.from,
			Args: []ast.Expr{&ast.BasicLit{ValuePos: s.from, Kind: token.STRING, Value: strconv.Quote(m.ID)}},
		}
	}
	with, mutant, why := kinds[m.Kind].switched(f, decl, s, m, on)
	if why != "" {
		return false, why
	}
	if call, ok := with.(*ast.CallExpr); ok {
		if why := h.retype(call, extent{s.node.Pos(), s.node.End()}); why != "" {
			return false, why
		}
	}
	skip[mutant] = true
	if !replace(f, s.node, with) {
		return false, "internal error: the site is gone"
	}
	return constant, ""
}

// markReached puts a call of the switch helper with m's id, which records that
// the site is reached, at the top of the body of m's function in f, the
// file at path, and reports whether m's target is a function.
func markReached(path string, f *ast.File, m *Mutant) bool {
	decl, ok := findDecl(path, f, m.Target).(*ast.FuncDecl)
	if !ok || decl.Body == nil {
		return false
	}
	at := decl.Body.Lbrace
	call := &ast.CallExpr{
		Fun: &ast.Ident{NamePos: at, Name: onFunc}, Lparen: at, Rparen: at,
		Args: []ast.Expr{&ast.BasicLit{ValuePos: at, Kind: token.STRING, Value: strconv.Quote(m.ID)}},
	}
	decl.Body.List = slices.Insert(decl.Body.List, 0, ast.Stmt(&ast.ExprStmt{X: call}))
	return true
}

// locateSkipping is locate, blind to the mutant side of earlier switches.
func locateSkipping(fset *token.FileSet, decl ast.Node, m *Mutant, skip map[ast.Node]bool) (*site, error) {
	if len(skip) == 0 {
		return locate(fset, decl, m)
	}
	// Hide the skipped subtrees behind empty stand-ins while locating.
	hidden := map[ast.Node]ast.Node{}
	astutil.Apply(decl, func(c *astutil.Cursor) bool {
		if skip[c.Node()] {
			stand := standIn(c.Node())
			hidden[stand] = c.Node()
			c.Replace(stand)
			return false
		}
		return true
	}, nil)
	defer astutil.Apply(decl, func(c *astutil.Cursor) bool {
		if orig, ok := hidden[c.Node()]; ok {
			c.Replace(orig)
			return false
		}
		return true
	}, nil)
	return locate(fset, decl, m)
}

// standIn returns an empty node of the same kind as n.
func standIn(n ast.Node) ast.Node {
	switch n.(type) {
	case *ast.BlockStmt:
		return &ast.BlockStmt{}
	case *ast.BasicLit:
		return &ast.BasicLit{Kind: token.STRING, Value: `""`}
	default:
		return ast.NewIdent("_")
	}
}

// switchSpans finds, in a printed switched file, the lines of the
// statement or declaration around each mutant's switch.
func switchSpans(f *ast.File, src []byte) map[string]span {
	spans := map[string]span{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn, ok := call.Fun.(*ast.Ident)
		if !ok || fn.Name != onFunc || len(call.Args) != 1 {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok {
			return true
		}
		id, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		path, _ := astutil.PathEnclosingInterval(f, call.Pos(), call.End())
		outer := switchOf(path, call)
		s := span{start: offsetLine(f, src, outer.Pos()), end: offsetLine(f, src, outer.End())}
		if old, ok := spans[id]; ok {
			s.start, s.end = min(s.start, old.start), max(s.end, old.end)
		}
		spans[id] = s
		return true
	})
	return spans
}

// switchOf returns the construct that a mutateOn call decides: the if
// statement of a statement or body switch, the mutatePick call of a value
// switch, or the parenthesized condition of a boolean switch.
func switchOf(path []ast.Node, call *ast.CallExpr) ast.Node {
	for _, n := range path {
		switch n := n.(type) {
		case *ast.IfStmt:
			if n.Cond == ast.Expr(call) {
				return n
			}
		case *ast.CallExpr:
			if fn, ok := n.Fun.(*ast.Ident); ok && strings.HasPrefix(fn.Name, pickFunc) && len(n.Args) == 3 && n.Args[0] == ast.Expr(call) {
				return n
			}
		case *ast.ParenExpr:
			if b, ok := n.X.(*ast.BinaryExpr); ok && b.Op == token.LOR {
				return n
			}
		}
	}
	return call
}

// offsetLine returns the line of pos in f, whose source is src.
func offsetLine(f *ast.File, src []byte, pos token.Pos) int {
	off := int(pos - f.FileStart)
	return bytes.Count(src[:min(max(off, 0), len(src))], []byte("\n")) + 1
}

// helper is the file a switched build adds to package name: what every
// switch calls, and the typed helpers of h. Generic helpers are declared
// only when a switch calls one; the file then sets go1.21 as its own
// language version (a //go:build line may raise it above the module's),
// so that it compiles in a module whose go.mod predates generics.
func helper(name string, h *helpers) []byte {
	typed, imports := h.source()
	build, generic := "", ""
	if h.generic {
		build = "//go:build go1.21\n\n"
		generic = genericHelpers
	}
	imports = append(imports, `mutateos "os"`, `mutatesync "sync"`)
	return fmt.Appendf(nil, `%s// Code generated by mutate for a switched build. DO NOT EDIT.

package %s

import (
	%s
)

// mutateActive is the id of the mutant this process runs as, empty for
// the reference behaviour, and mutateCover the file that records the sites
// it reaches, empty for none: what the files beside the binary say, or
// else the environment.
var mutateActive, mutateCover = mutateSetting(%q, %q), mutateSetting(%q, %q)

func mutateSetting(env, suffix string) string {
	if exe, err := mutateos.Executable(); err == nil {
		if data, err := mutateos.ReadFile(exe + suffix); err == nil {
			return string(data)
		}
	}
	return mutateos.Getenv(env)
}

// %s reports whether mutant id is the active one. Its site is reached. It
// allocates nothing (after a site's first record), and inlines: with no
// mutant active, a switched build allocates as the reference does.
func %s(id string) bool {
	if mutateCover != "" {
		mutateRecord(id)
	}
	return mutateActive == id
}

var (
	mutateMu      mutatesync.Mutex
	mutateReached = map[string]bool{}
)

// mutateRecord appends id to the file mutateCover names, the first time.
func mutateRecord(id string) {
	mutateMu.Lock()
	defer mutateMu.Unlock()
	if mutateReached[id] {
		return
	}
	mutateReached[id] = true
	if f, err := mutateos.OpenFile(mutateCover, mutateos.O_WRONLY|mutateos.O_APPEND|mutateos.O_CREATE, 0644); err == nil {
		f.WriteString(id + "\n")
		f.Close()
	}
}
%s%s`, build, name, strings.Join(imports, "\n\t"), SwitchEnv, ActiveSuffix, CoverEnv, CoverSuffix, onFunc, onFunc, typed, generic)
}
