package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"hash"
	"os"
	"path/filepath"
	"slices"

	"github.com/fencelab/fencelab/internal/mutation"
)

// testKeys are the keys of a package's test files that per-test reuse
// (see reuse.go) compares: one of what every test may depend on, and one
// of each top-level test's own function.
type testKeys struct {
	// shared is the hash of everything in the test files that is not a
	// top-level test: each file's name, build constraints and package
	// clause, its imports, and every other declaration (helpers, types,
	// package variables, init, TestMain, benchmarks, examples that do
	// not run). A change to any of it may change any test's outcome.
	shared string
	// tests holds, by name, the hash of each top-level test's function
	// (an example's output comment included), and of the functions of
	// the other tests it names, as a test that calls another's function
	// depends on it. Its position is not in it: an edit above a test
	// leaves it alone.
	tests map[string]string
	files []string // the test files, relative to the module root
}

// readTestKeys reads the keys of the test files of the package in dir;
// root is the module root, which the files' paths are relative to.
func readTestKeys(root, dir string) (*testKeys, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); !ok {
			return nil, err
		}
	}
	names := slices.Sorted(slices.Values(slices.Concat(bp.TestGoFiles, bp.XTestGoFiles)))
	k := &testKeys{tests: map[string]string{}}
	shared := sha256.New()
	bodies := map[string][]byte{}  // a test's function, as written
	calls := map[string][]string{} // the names a test's function uses
	fset := token.NewFileSet()
	for _, name := range names {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil, err
		}
		k.files = append(k.files, filepath.ToSlash(rel))
		base := fset.File(f.Pos()).Base()
		text := func(n ast.Node) []byte { return src[int(n.Pos())-base : int(n.End())-base] }
		tests := map[string]bool{}
		for _, t := range mutation.TestFuncsOf(fset, f) {
			tests[t.Name] = true
		}
		// The build constraints and the package clause.
		fmt.Fprintf(shared, "file %q\n%s\n", name, src[:int(f.Name.End())-base])
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Recv == nil && tests[fd.Name.Name] {
				bodies[fd.Name.Name] = text(fd)
				calls[fd.Name.Name] = identsOf(fd.Body)
				continue
			}
			fmt.Fprintf(shared, "decl\n%s\n", text(d))
		}
	}
	k.shared = hex.EncodeToString(shared.Sum(nil))
	for name := range bodies {
		h := sha256.New()
		addTest(h, name, bodies, calls, map[string]bool{})
		k.tests[name] = hex.EncodeToString(h.Sum(nil))
	}
	return k, nil
}

// addTest writes the function of test name into h, and those of the
// tests it names, each once.
func addTest(h hash.Hash, name string, bodies map[string][]byte, calls map[string][]string, seen map[string]bool) {
	if seen[name] {
		return
	}
	seen[name] = true
	fmt.Fprintf(h, "test %q\n%s\n", name, bodies[name])
	for _, id := range calls[name] {
		if _, ok := bodies[id]; ok {
			addTest(h, id, bodies, calls, seen)
		}
	}
}

// identsOf returns the names n uses, sorted, each once.
func identsOf(n ast.Node) []string {
	var ids []string
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			ids = append(ids, id.Name)
		}
		return true
	})
	slices.Sort(ids)
	return slices.Compact(ids)
}
