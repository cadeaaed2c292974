package mutation

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// stringKind: Find is a piece of the value of a string literal, such as
// `until>?` in an SQL query, and Replace what takes its place. Each
// occurrence of Find in each literal of the target is a match.
type stringKind struct{}

func (stringKind) parse(string) error { return nil }

func (stringKind) sites(fset *token.FileSet, scope ast.Node, m *Mutant) []*site {
	var sites []*site
	ast.Inspect(scope, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		value, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for at := 0; ; {
			i := strings.Index(value[at:], m.Find)
			if i < 0 {
				break
			}
			i += at
			text := requote(lit.Value, value[:i]+m.Replace+value[i+len(m.Find):])
			sites = append(sites, &site{
				node: lit, with: &ast.BasicLit{Kind: token.STRING, Value: text},
				from: lit.Pos(), to: lit.End(), text: text, at: i,
				line: fset.Position(lit.Pos()).Line + strings.Count(value[:i], "\n"),
			})
			at = i + len(m.Find)
		}
		return true
	})
	return sites
}

// switched puts mutatePick(on, mutant, reference) in place of the literal.
// A const that holds it becomes a var, since the choice is made at run
// time; a use of it where Go needs a constant then fails to compile, and
// the mutant gets a build of its own.
func (stringKind) switched(f *ast.File, decl ast.Node, s *site, _ *Mutant, on func() ast.Expr) (ast.Node, ast.Node, string) {
	orig := s.node.(*ast.BasicLit)
	mut := s.with.(*ast.BasicLit)
	mut.ValuePos = orig.ValuePos
	if vs, ok := decl.(*ast.ValueSpec); ok {
		constToVar(f, vs)
	}
	return pick(s, on(), mut, orig), mut, ""
}

// requote quotes value in the style of the literal lit: raw if lit was raw
// and value allows it, interpreted otherwise.
func requote(lit, value string) string {
	if strings.HasPrefix(lit, "`") && !strings.Contains(value, "`") {
		return "`" + value + "`"
	}
	return strconv.Quote(value)
}

// constToVar turns the const declaration that holds vs into a var.
func constToVar(f *ast.File, vs *ast.ValueSpec) {
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST && len(gd.Specs) == 1 && gd.Specs[0] == vs {
			gd.Tok = token.VAR
		}
	}
}
