package mutation

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"
)

// kind is what one Kind of mutant knows: what its fragments are, where a
// fragment matches in a declaration, what replaces the match, and how a
// switched build chooses between the two. The rest (picking the one match,
// printing, verifying, blaming) is the same for every kind. A new kind is a
// type in a file of its own and a line in kinds.
type kind interface {
	// parse checks that src is a fragment of this kind.
	parse(src string) error
	// sites returns every place in scope (a function's body, or a const
	// or var spec) where m's Find matches, in source order, each with the
	// rewrite by m's Replace.
	sites(fset *token.FileSet, scope ast.Node, m *Mutant) []*site
	// switched returns what stands in place of s.node in a switched
	// build: the reference and the mutant, chosen at run time by on();
	// and the node of the mutant side, which later mutants must not match
	// in. If m cannot be switched, it says why.
	switched(f *ast.File, decl ast.Node, s *site, m *Mutant, on func() ast.Expr) (with, mutant ast.Node, why string)
}

// kinds maps every Kind to its rules.
var kinds = map[Kind]kind{
	Expr:   exprKind{},
	Stmt:   stmtKind{},
	Body:   bodyKind{},
	String: stringKind{},
}

// kindList returns the names of the kinds, sorted.
func kindList() []string {
	var names []string
	for k := range kinds {
		names = append(names, string(k))
	}
	slices.Sort(names)
	return names
}

func kindNames() string { return strings.Join(kindList(), ", ") }

// site is one place where a mutant applies: node is to be replaced by
// with, and in the source the bytes from from to to by text.
type site struct {
	node, with ast.Node
	from, to   token.Pos
	text       string
	line       int // of the fragment, in the file
	index      int // for Stmt: where the run of statements starts in node's list
	at         int // for String: where the match starts in the literal's value
}
