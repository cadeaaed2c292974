// Package mutation applies mutants to a Go package as AST rewrites.
//
// A mutant names a declaration of the package (a function, a method as
// Type.Method, or a package-level const or var), a fragment of Go to find
// inside it and the fragment to put in its place. What a fragment is
// depends on the mutant's kind (an expression, statements, a whole body, a
// piece of a string literal); each kind is one type behind one small
// interface, in a file of its own. A fragment is matched structurally,
// never by line number or text, and must match exactly once, or at the
// occurrence the mutant names: if the code changes so that it matches zero
// or two times, applying the mutant is an error that names it, never a
// silent result.
//
// Applying a mutant works on a copy of the parsed file (astcopy, then
// astutil.Apply); the printed result is parsed again and checked against
// the rewritten tree. Switch puts every mutant into one version of the
// package, each chosen at run time (mutant schemata); TypeCheck tells
// whether a mutant is valid Go on its own.
package mutation

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/internal/text"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Kind says what a mutant's Find and Replace fragments are.
type Kind string

// The kinds of mutant; see the kind type of each for its rules.
const (
	Expr   Kind = "expr"   // Go expressions, such as `until > now`
	Stmt   Kind = "stmt"   // one or more statements, a contiguous run in one block
	Body   Kind = "body"   // a whole function body, replaced whole
	String Kind = "string" // a piece of a string literal, such as `until>?`
)

// errDrift is returned when a mutant's fragment does not match its target
// exactly once (or at the occurrence it names).
var errDrift = errors.New("fragment does not match exactly once")

// ErrUnknownTarget is returned when a mutant names a declaration that the
// package does not have.
var ErrUnknownTarget = errors.New("unknown target")

// Mutant is one fault to apply.
type Mutant struct {
	ID        string // stable name, used by prediction files
	Step      int    // step of the contract it breaks; 0 for none
	Title     string // one line
	Contract  string // the contract sentence it breaks
	Rationale string // why the contract says so
	Seed      string // the faulty fragment as a design note wrote it
	// Question is what the worksheet asks of this step beside the
	// prediction, if anything (see exercise.Question).
	Question string
	Target   string // "Func", "Type.Method", or a package-level const or var
	Kind     Kind
	Find     string // the Go fragment in the reference code
	Replace  string // the fragment that replaces it
	// Occurrence picks, counting from 1 in source order, one of several
	// matches of Find; Line picks the match on that line of the file.
	// Zero for either means: Find must match exactly once.
	Occurrence int
	Line       int
	// Points is what a prediction of the mutant is worth when graded; 0
	// means the default, 1.
	Points int
	// Operator is the rule that generated the mutant; empty for one
	// written by hand.
	Operator Operator

	// Defined holds where each field was written, by field name ("id",
	// "target", "find", ...), for the error messages of mutants read from
	// a file.
	Defined map[string]yamlfile.Pos
}

// errorf returns an error about m, prefixed with the position of field
// when m was read from a file.
// Generated reports whether an operator generated m from the code, rather
// than a catalog's author (see Operator.Generated).
func (m *Mutant) Generated() bool { return m.Operator.Generated() }

func (m *Mutant) errorf(field, format string, args ...any) error {
	msg := fmt.Sprintf("mutant %s: %s", m.ID, fmt.Sprintf(format, args...))
	if p, ok := m.Defined[field]; ok {
		return &yamlfile.Error{Pos: p, Msg: msg}
	}
	return errors.New(msg)
}

// IDs returns the ids of ms, in order.
func IDs(ms []*Mutant) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// ValidID reports whether id is an id that files may use: lower-case
// letters, digits and '-', not starting with '-'.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Check validates what needs no source code: the id, the kind, and that
// both fragments are fragments of that kind. Its error joins every
// problem (see Problems).
func (m *Mutant) Check() error {
	return errors.Join(m.Problems()...)
}

// Problems returns every problem that Check finds, each at the position of
// its field when m was read from a file.
func (m *Mutant) Problems() []error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, m.errorf(field, format, args...))
	}
	if !idPattern.MatchString(m.ID) {
		add("id", "id %q: use lower-case letters, digits and '-'", m.ID)
	}
	if m.Target == "" {
		add("target", "no target: name the function (Open, Store.Claim), method or package-level const or var to rewrite")
	}
	k, ok := kinds[m.Kind]
	if !ok {
		add("kind", "unknown kind %q%s: want one of %s", m.Kind, suggest.Hint(string(m.Kind), kindList()), kindNames())
	}
	switch {
	case m.Find == "":
		add("find", "empty find: give the fragment of the code to replace")
	case m.Find == m.Replace:
		add("replace", "replace is the same as find: the mutant would change nothing")
	case ok:
		if err := k.parse(m.Find); err != nil {
			add("find", "find is not a Go %s: %v", m.Kind, err)
		}
		if err := k.parse(m.Replace); err != nil {
			add("replace", "replace is not a Go %s: %v", m.Kind, err)
		}
	}
	if m.Occurrence < 0 || m.Line < 0 {
		add("occurrence", "occurrence and line count from 1")
	}
	return errs
}

// Describe says in one line what m rewrites, and where: "expr `a > b` ->
// `a >= b` in Max", "stmt `x++` deleted from F", "the whole body of F
// replaced".
func (m *Mutant) Describe() string {
	switch {
	case m.Kind == Body:
		return fmt.Sprintf("the whole body of %s replaced", m.Target)
	case strings.TrimSpace(m.Replace) == "":
		return fmt.Sprintf("%s `%s` deleted from %s", m.Kind, text.OneLine(m.Find, 50), m.Target)
	}
	return fmt.Sprintf("%s `%s` -> `%s` in %s", m.Kind, text.OneLine(m.Find, 50), text.OneLine(m.Replace, 50), m.Target)
}
