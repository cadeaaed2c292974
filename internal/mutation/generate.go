package mutation

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"slices"
	"strings"
	"unicode"

	"github.com/fencelab/fencelab/internal/text"
)

// Operator names a rule that generates mutants from the code itself,
// without a catalog.
type Operator string

// Generated reports whether o names an operator: a mutant with one was
// generated from the code; one without was written by hand in a catalog.
// It is the one place that tells the two apart.
func (o Operator) Generated() bool { return o != "" }

// The operators, after those of gremlins (the conditionals, arithmetic,
// increment/decrement, negatives and logical operators), go-mutesting
// (statement removal) and cargo-mutants (a body that returns zero values),
// and operators on the SQL that a function passes to database/sql.
const (
	OpBoundary     Operator = "boundary"
	OpNegation     Operator = "negation"
	OpArithmetic   Operator = "arithmetic"
	OpIncDec       Operator = "incdec"
	OpNegative     Operator = "negative"
	OpLogical      Operator = "logical"
	OpRemoveCall   Operator = "remove-call"
	OpRemoveAssign Operator = "remove-assign"
	OpZeroReturn   Operator = "zero-return"
	OpSQLBoundary  Operator = "sql-boundary"
	OpSQLNegation  Operator = "sql-negation"
	OpSQLWhere     Operator = "sql-where"
	OpSQLConflict  Operator = "sql-conflict"
)

// operators lists every operator with the rewrite it makes, in the order
// Generate applies them at a place.
var operators = []struct {
	op   Operator
	help string
}{
	{OpBoundary, "< ↔ <=, > ↔ >="},
	{OpNegation, "== ↔ !=, < ↔ >=, > ↔ <="},
	{OpArithmetic, "+ ↔ -, * ↔ /, % → * (not on strings)"},
	{OpIncDec, "x++ ↔ x--"},
	{OpNegative, "-x → x"},
	{OpLogical, "&& ↔ ||"},
	{OpRemoveCall, "a call statement, or a defer, deleted"},
	{OpRemoveAssign, "an assignment (not a declaration) deleted"},
	{OpZeroReturn, "the function body returns zero values, or does nothing"},
	{OpSQLBoundary, "in SQL passed to database/sql: < ↔ <=, > ↔ >="},
	{OpSQLNegation, "in SQL conditions: = ↔ !="},
	{OpSQLWhere, "in SQL: one AND term of a WHERE dropped"},
	{OpSQLConflict, "in SQL: OR IGNORE ↔ OR REPLACE"},
}

// OperatorHelp returns every operator with the rewrite it makes, a line
// each, as "mutate help operators" prints them.
func OperatorHelp() string {
	var b strings.Builder
	for _, o := range operators {
		fmt.Fprintf(&b, "  %-14s %s\n", o.op, o.help)
	}
	return b.String()
}

// binarySwaps is the data of the operators on binary expressions: for
// each, the operators it turns each operator into.
var binarySwaps = []struct {
	op   Operator
	swap map[token.Token]token.Token
}{
	{OpBoundary, map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}},
	{OpNegation, map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR}},
	{OpArithmetic, map[token.Token]token.Token{token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL}},
	{OpLogical, map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}},
}

// ignoreDirective, in a comment on a line, keeps Generate off that line;
// in a function's doc comment, off the whole function.
const ignoreDirective = "//mutate:ignore"

// Generate returns the mutants of every operator at every place of the
// package where it applies, file by file in source order. Each is an
// ordinary mutant of a kind (its fragment, the occurrence of it that is
// meant), so it applies, switches and type-checks like a catalog's; its id
// is its target, its operator and its ordinal among that operator's
// mutants of that target ("store-renew-negation-2"), so it stays the same
// while the target does, whatever changes around it. Generated files
// ("Code generated ... DO NOT EDIT.") are skipped, and so are the lines and
// functions that ignoreDirective marks.
func (p *Package) Generate() []*Mutant {
	g := &generator{fset: p.fset, count: map[string]int{}, ids: map[string]bool{}, sqlNames: map[string]bool{}}
	var files []*sourceFile
	for _, sf := range p.files {
		if !ast.IsGenerated(sf.ast) {
			files = append(files, sf)
		}
	}
	for _, sf := range files {
		g.ignored = ignoredLines(p.fset, sf.ast)
		for _, d := range sf.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || hasIgnore(fd.Doc) {
				continue
			}
			g.function(declName(sf.path, sf.ast, fd), fd)
		}
	}
	// Then the package's constants, and the SQL of the constants that
	// the functions pass to database/sql, wherever they are declared.
	for _, sf := range files {
		g.ignored = ignoredLines(p.fset, sf.ast)
		g.consts(sf.ast)
		g.sqlConsts(sf.ast)
	}
	return g.out
}

// generator is the state of one Generate.
type generator struct {
	fset     *token.FileSet
	ignored  map[int]bool    // lines of the current file
	count    map[string]int  // target and operator: mutants so far
	ids      map[string]bool // ids given
	sqlNames map[string]bool // names passed to database/sql calls
	out      []*Mutant
}

// function generates the mutants of fd's body; target names fd.
func (g *generator) function(target string, fd *ast.FuncDecl) {
	g.zeroReturn(target, fd)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ArrayType:
			return false // an array's length is a constant
		case *ast.BinaryExpr, *ast.UnaryExpr:
			g.operators(target, fd.Body, n.(ast.Expr))
		case *ast.IncDecStmt:
			mut := *n
			mut.Tok = token.INC + token.DEC - n.Tok
			g.stmt(target, fd, OpIncDec, n, &mut)
		case *ast.ForStmt:
			// The post statement of a loop is no statement of a block:
			// the mutant rewrites the loop.
			if post, ok := n.Post.(*ast.IncDecStmt); ok {
				mutPost := *post
				mutPost.Tok = token.INC + token.DEC - post.Tok
				loop := *n
				loop.Post = &mutPost
				m := g.stmt(target, fd, OpIncDec, n, &loop)
				if m != nil {
					m.Title = fmt.Sprintf("%s: `%s` becomes `%s` in the loop on line %d", OpIncDec,
						printed(g.fset, post), printed(g.fset, &mutPost), g.fset.Position(n.Pos()).Line)
				}
			}
		case *ast.ExprStmt:
			if _, ok := n.X.(*ast.CallExpr); ok {
				g.stmt(target, fd, OpRemoveCall, n, nil)
			}
		case *ast.DeferStmt:
			g.stmt(target, fd, OpRemoveCall, n, nil)
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE && !allBlank(n.Lhs) {
				g.stmt(target, fd, OpRemoveAssign, n, nil)
			}
		case *ast.CallExpr:
			g.sqlCall(target, fd, n)
		}
		return true
	})
}

// consts generates the mutants of the values of f's package-level
// constants, each spec a target named by its first constant.
func (g *generator) consts(f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST || hasIgnore(gd.Doc) {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if hasIgnore(vs.Doc) {
				continue
			}
			for _, v := range vs.Values {
				ast.Inspect(v, func(n ast.Node) bool {
					if e, ok := n.(ast.Expr); ok {
						g.operators(vs.Names[0].Name, vs, e)
					}
					return true
				})
			}
		}
	}
}

// operators adds the mutants of the operators on expressions that apply
// to e, an expression of scope, the body or the spec that target names.
func (g *generator) operators(target string, scope ast.Node, e ast.Expr) {
	switch e := e.(type) {
	case *ast.BinaryExpr:
		for _, bs := range binarySwaps {
			to, ok := bs.swap[e.Op]
			if !ok || e.Op == token.ADD && concatenates(e) {
				continue
			}
			mut := *e
			mut.Op = to
			g.expr(target, scope, bs.op, e, &mut, fmt.Sprintf("`%s` becomes `%s`", e.Op, to))
		}
	case *ast.UnaryExpr:
		if e.Op == token.SUB {
			g.expr(target, scope, OpNegative, e, e.X, "the `-` is dropped")
		}
	}
}

// expr adds the mutant of operator op that puts mut in place of orig, in
// scope; what says what changes, for the title of a long expression.
func (g *generator) expr(target string, scope ast.Node, op Operator, orig, mut ast.Expr, what string) {
	if g.ignoredAt(orig) {
		return
	}
	m := g.mutant(target, op, Expr, printed(g.fset, orig), printed(g.fset, mut))
	if len(m.Find) > titleMax {
		m.Title = fmt.Sprintf("%s: %s in `%s`", op, what, text.OneLine(m.Find, titleMax))
	}
	g.add(m, scope, func(s *site) bool { return s.node == orig })
}

// stmt adds the mutant of operator op that puts mut in place of orig, or
// deletes it when mut is nil, and returns it.
func (g *generator) stmt(target string, fd *ast.FuncDecl, op Operator, orig, mut ast.Stmt) *Mutant {
	if g.ignoredAt(orig) {
		return nil
	}
	replace := ""
	if mut != nil {
		replace = printed(g.fset, mut)
	}
	m := g.mutant(target, op, Stmt, printed(g.fset, orig), replace)
	if !g.add(m, fd.Body, func(s *site) bool { return (*stmtList(s.node))[s.index] == orig }) {
		return nil
	}
	return m
}

// zeroReturn adds the mutant whose body returns the zero value of each
// result, or, for a function without results, does nothing; unless the
// body does that already.
func (g *generator) zeroReturn(target string, fd *ast.FuncDecl) {
	if g.ignoredAt(fd.Body) || fd.Name.Name == "init" && fd.Recv == nil {
		return
	}
	var zeros []string
	if fd.Type.Results != nil {
		for _, f := range fd.Type.Results.List {
			z := zeroValue(g.fset, f.Type)
			for range max(len(f.Names), 1) {
				zeros = append(zeros, z)
			}
		}
	}
	replace := ""
	if len(zeros) > 0 {
		replace = "return " + strings.Join(zeros, ", ")
	}
	find := printedStmts(g.fset, fd.Body.List)
	if strings.TrimSpace(find) == replace {
		return
	}
	if find == "" {
		return // an empty body: nothing to do less of
	}
	m := g.mutant(target, OpZeroReturn, Body, find, replace)
	m.Title = fmt.Sprintf("%s: the body of %s becomes `%s`", OpZeroReturn, target, replace)
	if replace == "" {
		m.Title = fmt.Sprintf("%s: the body of %s does nothing", OpZeroReturn, target)
	}
	g.add(m, fd.Body, func(*site) bool { return true })
}

// titleMax is how much of a fragment a title quotes.
const titleMax = 50

// concatenates reports whether e, a sum, is by its look a concatenation of
// strings: a string literal is among its terms. (The type check drops the
// other sums that are not numbers.)
func concatenates(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.ParenExpr:
		return concatenates(e.X)
	case *ast.BinaryExpr:
		return e.Op == token.ADD && (concatenates(e.X) || concatenates(e.Y))
	}
	return false
}

// zeroValue returns the zero value of the type t as Go source.
func zeroValue(fset *token.FileSet, t ast.Expr) string {
	switch t := t.(type) {
	case *ast.Ident:
		switch t.Name {
		case "bool":
			return "false"
		case "string":
			return `""`
		case "error", "any":
			return "nil"
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
			"float32", "float64", "complex64", "complex128", "byte", "rune":
			return "0"
		}
	case *ast.StarExpr, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType:
		return "nil"
	case *ast.ArrayType:
		if t.Len == nil {
			return "nil"
		}
	}
	// Any other type, a named one or a type parameter: the zero value
	// whatever it is.
	return "*new(" + printed(fset, t) + ")"
}

// mutant returns a mutant of target by op; add gives it its id.
func (g *generator) mutant(target string, op Operator, k Kind, find, replace string) *Mutant {
	title := fmt.Sprintf("%s: `%s` becomes `%s`", op, text.OneLine(find, titleMax), text.OneLine(replace, titleMax))
	if replace == "" {
		title = fmt.Sprintf("%s: `%s` deleted", op, text.OneLine(find, titleMax))
	}
	return &Mutant{Title: title, Target: target, Kind: k, Find: find, Replace: replace, Operator: op}
}

// add picks, among the matches of m's fragment in scope, the one that is
// (the place m was made for), sets m's occurrence to it when there are
// several, gives m its id, and adds it. It reports false, adding nothing,
// when the fragment as printed does not match there.
func (g *generator) add(m *Mutant, scope ast.Node, is func(*site) bool) bool {
	sites := kinds[m.Kind].sites(g.fset, scope, m)
	i := slices.IndexFunc(sites, is)
	if i < 0 {
		return false
	}
	if len(sites) > 1 {
		m.Occurrence = i + 1
	}
	key := m.Target + "\x00" + string(m.Operator)
	g.count[key]++
	m.ID = fmt.Sprintf("%s-%s-%d", slug(m.Target), m.Operator, g.count[key])
	for base, n := m.ID, 0; g.ids[m.ID]; n++ {
		// Two targets whose names differ only in case or punctuation.
		m.ID = fmt.Sprintf("%s-%c", base, 'a'+n)
	}
	g.ids[m.ID] = true
	g.out = append(g.out, m)
	return true
}

// ignoredAt reports whether n starts or ends on a line ignoreDirective
// marks.
func (g *generator) ignoredAt(n ast.Node) bool {
	return g.ignored[g.fset.Position(n.Pos()).Line] || g.ignored[g.fset.Position(n.End()).Line]
}

// ignoredLines returns the lines of f that carry ignoreDirective.
func ignoredLines(fset *token.FileSet, f *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if isIgnore(c.Text) {
				lines[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	return lines
}

func hasIgnore(doc *ast.CommentGroup) bool {
	return doc != nil && slices.ContainsFunc(doc.List, func(c *ast.Comment) bool { return isIgnore(c.Text) })
}

func isIgnore(text string) bool {
	rest, ok := strings.CutPrefix(text, ignoreDirective)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

func allBlank(exprs []ast.Expr) bool {
	for _, e := range exprs {
		if id, ok := e.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	return true
}

// slug turns a target's name into the start of an id: "Store.ClaimMany"
// becomes "store-claim-many".
func slug(name string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range name {
		switch {
		case unicode.IsUpper(r):
			if unicode.IsLower(prev) || unicode.IsDigit(prev) {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsLetter(r) && r < unicode.MaxASCII, unicode.IsDigit(r) && r < unicode.MaxASCII:
			b.WriteRune(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteByte('-')
			}
		}
		prev = r
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		s = "f"
	}
	return s
}

// printed returns n as gofmt prints it.
func printed(fset *token.FileSet, n ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, n); err != nil {
		return ""
	}
	return buf.String()
}

// printedStmts returns a list of statements as gofmt prints them, one
// after the other.
func printedStmts(fset *token.FileSet, list []ast.Stmt) string {
	var parts []string
	for _, s := range list {
		parts = append(parts, printed(fset, s))
	}
	return strings.Join(parts, "\n")
}
