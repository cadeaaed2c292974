// Package mutants holds the catalog of documented faults of package lease
// and the engine that applies them as AST rewrites.
//
// A mutant names a declaration of the package (a function, a method as
// Type.Method, or a package-level const or var), a fragment of Go to find
// inside it and the fragment to put in its place. The fragment is matched
// structurally, never by line number or text, and must match exactly once:
// if the reference code drifts so that it matches zero or two times, applying
// the mutant is an error that names it, never a silent result.
package mutants

import (
	"fmt"
	"regexp"

	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Kind says what a mutant's Find and Replace fragments are.
type Kind string

const (
	// Expr fragments are Go expressions, such as `until > now`.
	Expr Kind = "expr"
	// Stmt fragments are one or more Go statements, matched as a contiguous
	// run of statements in one block.
	Stmt Kind = "stmt"
	// Body fragments are whole function bodies: Find must be the target's
	// entire body, which Replace replaces.
	Body Kind = "body"
	// String fragments are pieces of a string literal, such as `until>?`.
	String Kind = "string"
)

// Kinds lists the valid kinds.
var Kinds = []Kind{Expr, Stmt, Body, String}

// Mutant is one documented fault.
type Mutant struct {
	ID        string // stable name, used by prediction files
	Step      int    // step of the contract it breaks; 0 for none
	Title     string // one line
	Contract  string // the contract sentence it breaks
	Rationale string // why the contract says so
	Seed      string // the faulty fragment as the design note wrote it
	Target    string // "Func", "Type.Method", or a package-level const or var
	Kind      Kind
	Find      string // the Go fragment in the reference code
	Replace   string // the fragment that replaces it

	// Defined holds where each field was written, by field name ("id",
	// "target", "find", ...), for mutants read from a file; nil for the
	// built-in catalog.
	Defined map[string]yamlfile.Pos
}

// Origin returns where field was defined, or "" for a built-in mutant.
func (m *Mutant) Origin(field string) string {
	if p, ok := m.Defined[field]; ok {
		return p.String()
	}
	return ""
}

// errorf returns an error about m, prefixed with the position of field
// when m was read from a file.
func (m *Mutant) errorf(field, format string, args ...any) error {
	msg := fmt.Sprintf("mutant %s: %s", m.ID, fmt.Sprintf(format, args...))
	if p, ok := m.Defined[field]; ok {
		return &yamlfile.Error{Pos: p, Msg: msg}
	}
	return fmt.Errorf("%s", msg)
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// check validates the fields that need no source code.
func (m *Mutant) check() error {
	if !idPattern.MatchString(m.ID) {
		return m.errorf("id", "id %q: use lower-case letters, digits and '-'", m.ID)
	}
	if m.Target == "" {
		return m.errorf("target", "no target: name the function (Open, Store.Claim) or const to rewrite")
	}
	switch m.Kind {
	case Expr, Stmt, Body, String:
	default:
		return m.errorf("kind", "unknown kind %q: want one of expr, stmt, body, string", m.Kind)
	}
	if m.Find == "" {
		return m.errorf("find", "empty find: give the fragment of the reference code to replace")
	}
	if m.Find == m.Replace {
		return m.errorf("replace", "replace is the same as find: the mutant would change nothing")
	}
	if m.Kind != String {
		if _, err := parseFragment(m.Kind, m.Find); err != nil {
			return m.errorf("find", "find is not a Go %s: %v", m.Kind, err)
		}
		if _, err := parseFragment(m.Kind, m.Replace); err != nil {
			return m.errorf("replace", "replace is not a Go %s: %v", m.Kind, err)
		}
	}
	return nil
}
