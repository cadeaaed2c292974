package mutation

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// old is a package for a module whose go.mod predates generics: its
// switches must call helpers without type parameters.
const old = `package old

import "time"

func Safe(f float64) bool {
	return f >= -9007199254740991
}

func Scale(d time.Duration, k int) time.Duration {
	return d * time.Duration(k)
}

func Rem(a, b int) int {
	return a % b
}

func Local(n int) int {
	type celsius int
	c := celsius(n)
	return int(c + 1)
}

func Max[T int | float64](a, b T) T {
	return a + b
}
`

// loadFile loads a package of one file, name with src.
func loadFile(t *testing.T, name, src string) *Package {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return gen(t, dir)
}

func TestSwitch_TypedHelpers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.go"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms := []*Mutant{
		// An untyped constant beside a float64 is a float64.
		{ID: "safe-neg", Target: "Safe", Kind: Expr, Find: "-9007199254740991", Replace: "9007199254740991"},
		{ID: "scale-arith", Target: "Scale", Kind: Expr, Find: "d * time.Duration(k)", Replace: "d / time.Duration(k)"},
		{ID: "rem-arith", Target: "Rem", Kind: Expr, Find: "a % b", Replace: "a * b"},
		{ID: "local-pick", Target: "Local", Kind: Expr, Find: "c + 1", Replace: "c - 1"},
	}
	generic := &Mutant{ID: "max-arith", Target: "Max", Kind: Expr, Find: "a + b", Replace: "a - b"}

	// Before UseTypes, the helpers are generic.
	sw, err := p.Switch(ms, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sw.Generic || !strings.Contains(string(sw.Files[filepath.Join(dir, "old.go")]), `mutatePick(mutateOn("safe-neg"), 9007199254740991, -9007199254740991)`) {
		t.Fatalf("untyped Switch: Generic = %v, want the generic helpers", sw.Generic)
	}

	if err := p.UseTypes("example.com/old", importer.ForCompiler(token.NewFileSet(), "source", nil)); err != nil {
		t.Fatal(err)
	}
	sw, err = p.Switch(ms, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"safe-neg", "scale-arith", "rem-arith"}; !slices.Equal(sw.Included, want) {
		t.Errorf("Included = %v, want %v", sw.Included, want)
	}
	if got, want := sw.Excluded["local-pick"], "its type, celsius, cannot be written in the package"; got != want {
		t.Errorf("Excluded[local-pick] = %q, want %q", got, want)
	}
	if sw.Generic {
		t.Error("Generic = true, want false: every value has a type the package can write")
	}
	src := string(sw.Files[filepath.Join(dir, "old.go")])
	helper := string(sw.Files[filepath.Join(dir, HelperFile)])
	for _, want := range []string{
		`return f >= mutatePick0(mutateOn("safe-neg"), 9007199254740991, -9007199254740991)`,
		`return mutateArith1(mutateOn("scale-arith"), d, time.Duration(k), '/', '*')`,
		`return mutateArith2(mutateOn("rem-arith"), a, b, '*', '%')`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("switched old.go lacks %q:\n%s", want, src)
		}
	}
	for _, want := range []string{
		"func mutatePick0(on bool, mutant, original float64) float64 {",
		"func mutateArith1(on bool, x, y mutatei0.Duration, mutant, original rune) mutatei0.Duration {",
		`mutatei0 "time"`,
		"func mutateArith2(on bool, x, y int, mutant, original rune) int {",
		"\tcase '%':\n\t\treturn x % y\n",
	} {
		if !strings.Contains(helper, want) {
			t.Errorf("helper file lacks %q:\n%s", want, helper)
		}
	}
	// What it emits type-checks; the helper file on its own at the
	// language version of a go1.12 module.
	typeCheck(t, "go1.21", sw.Files[filepath.Join(dir, "old.go")], sw.Files[filepath.Join(dir, HelperFile)])
	typeCheck(t, "go1.12", sw.Files[filepath.Join(dir, HelperFile)])
	// Nothing a go1.12 module cannot compile: no type parameter, no 0o.
	for _, no := range []string{"[T ", "0o", "//go:build"} {
		if strings.Contains(helper, no) {
			t.Errorf("helper file has %q:\n%s", no, helper)
		}
	}

	// A value whose type is a type parameter keeps the generic helper, and
	// the helper file raises its own language version for it.
	sw, err = p.Switch([]*Mutant{generic}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	helper = string(sw.Files[filepath.Join(dir, HelperFile)])
	typeCheck(t, "go1.21", sw.Files[filepath.Join(dir, "old.go")], sw.Files[filepath.Join(dir, HelperFile)])
	if !sw.Generic || !strings.HasPrefix(helper, "//go:build go1.21\n\n") || !strings.Contains(helper, "func mutatePick[T any]") {
		t.Errorf("generic Switch: Generic = %v, helper file:\n%s", sw.Generic, helper)
	}
	if src := string(sw.Files[filepath.Join(dir, "old.go")]); !strings.Contains(src, `return mutatePick(mutateOn("max-arith"), a-b, a+b)`) {
		t.Errorf("switched Max:\n%s", src)
	}
}

// TestApply_DiffsOnlyTheMutatedLines: a file that gofmt would change
// elsewhere (an old-style doc comment) and a rewrite of a whole loop that
// changes its i++ give a mutant that differs from the reference in that
// one line, its comments kept.
func TestApply_DiffsOnlyTheMutatedLines(t *testing.T) {
	src := "package dd\n\n//\tAn old-style doc comment, which gofmt rewrites.\n//\t\tLike this.\nfunc Sum(xs []int) int {\n\tn := 0\n\tfor i := 0; i < len(xs); i++ {\n\t\t// a comment inside the loop\n\t\tn += xs[i] // trailing\n\t}\n\treturn n\n}\n"
	p := loadFile(t, "dd.go", src)
	var loop *Mutant
	for _, m := range p.Generate() {
		if m.Operator == "incdec" {
			loop = m
		}
	}
	if loop == nil || loop.Kind != Stmt {
		t.Fatalf("no incdec mutant of the loop as a whole statement: %+v", loop)
	}
	a, err := p.Apply(loop)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(src, "i++ {", "i-- {", 1)
	if string(a.Mutated) != want {
		t.Errorf("mutant =\n%s\nwant\n%s", a.Mutated, want)
	}
	if a.Replacement != "i--" || a.Start != (Position{7, 27}) || a.End != (Position{7, 30}) {
		t.Errorf("Replacement, Start, End = %q, %v, %v; want the i++ alone", a.Replacement, a.Start, a.End)
	}
}

// TestApply_NarrowsOnlyWhereTheRestIsEqual: a rewrite that changes an
// operator and parenthesizes one of its operands differs in the operator
// too, so the whole fragment is spliced.
func TestApply_NarrowsOnlyWhereTheRestIsEqual(t *testing.T) {
	src := "package dd\n\nfunc Bad(a, b, c bool) bool {\n\treturn a || b || c\n}\n"
	p := loadFile(t, "dd.go", src)
	a, err := p.Apply(&Mutant{ID: "m", Target: "Bad", Kind: Expr, Find: "a || b || c", Replace: "(a || b) && c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(src, "a || b || c", "(a || b) && c", 1); string(a.Mutated) != want {
		t.Errorf("mutant =\n%s\nwant\n%s", a.Mutated, want)
	}
}

// typeCheck type-checks the files of one package at Go version goVersion,
// and fails t with every error.
func typeCheck(t *testing.T, goVersion string, srcs ...[]byte) {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for i, src := range srcs {
		f, err := parser.ParseFile(fset, fmt.Sprintf("file%d.go", i), src, parser.ParseComments)
		if err != nil {
			t.Fatalf("emitted file does not parse: %v\n%s", err, src)
		}
		files = append(files, f)
	}
	conf := types.Config{GoVersion: goVersion, Importer: importer.ForCompiler(fset, "source", nil),
		Error: func(err error) { t.Errorf("emitted code does not type-check: %v", err) }}
	conf.Check("example.com/old", fset, files, nil)
}
