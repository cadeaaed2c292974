package mutation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// TypeError is returned by TypeCheck for a mutant that is not valid Go on
// its own: what the compiler would say, at the mutant's real file:line.
type TypeError struct {
	Messages string // one "file:line:col: message" per line
}

func (e *TypeError) Error() string { return e.Messages }

// UsesCgo reports whether a file of the package imports "C": go/types
// cannot check such a package without cgo's processing.
func (p *Package) UsesCgo() bool {
	for _, sf := range p.files {
		for _, imp := range sf.ast.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "C" {
				return true
			}
		}
	}
	return false
}

// TypeCheck checks the package with a's file replaced by the mutant, the
// form an overlay build compiles, and returns a *TypeError if it is not
// valid Go: a variable the rewrite leaves unused, a value of the wrong
// type. imp resolves the package's imports. Paths in the messages are
// relative to relTo.
func (p *Package) TypeCheck(path string, imp types.Importer, a *Applied, relTo string) error {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, sf := range p.files {
		src := sf.src
		if sf.path == a.File {
			src = a.Mutated
		}
		f, err := parser.ParseFile(fset, sf.path, src, parser.SkipObjectResolution)
		if err != nil {
			return &TypeError{Messages: err.Error()}
		}
		files = append(files, f)
	}
	var msgs []string
	conf := types.Config{
		Importer: imp,
		// Soft errors too: the compiler refuses an unused variable.
		Error: func(err error) { msgs = append(msgs, relative(err.Error(), relTo)) },
	}
	if _, err := conf.Check(path, fset, files, nil); err == nil {
		return nil
	}
	return &TypeError{Messages: strings.Join(slices.Compact(msgs), "\n")}
}

// relative makes the absolute file path that starts msg relative to dir.
func relative(msg, dir string) string {
	if dir == "" || !filepath.IsAbs(msg) {
		return msg
	}
	file, rest, ok := strings.Cut(msg, ":")
	if !ok {
		return msg
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil {
		return msg
	}
	return fmt.Sprintf("%s:%s", filepath.ToSlash(rel), rest)
}
