package testgrade

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

var shelfRules = Rules{Package: "shelf", ImportPath: "example.com/shelf", Clause: exercise.External}

// check parses src as learner_test.go and checks it against r, without a
// type check.
func check(t *testing.T, r Rules, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "learner_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range r.Check(fset, f, nil) {
		got = append(got, e.Error())
	}
	return got
}

// Every way to reach what a test must not is refused at its place, with
// why; the file's other problems are all named too.
func TestRules_RefuseWhatReachesTheProcess(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // a problem each, in order
	}{
		{"os", "package shelf_test\nimport \"os\"\n", []string{`learner_test.go:2:8: import "os" is refused: it reads the environment, files and the test binary itself`}},
		{"a package of os", "package shelf_test\nimport \"os/exec\"\n", []string{`learner_test.go:2:8: import "os/exec" is refused: it reaches the process, its signals, programs or the system's users`}},
		{"unsafe, blank", "package shelf_test\nimport _ \"unsafe\"\n", []string{`learner_test.go:2:10: import "unsafe" is refused: it reads and writes any memory`}},
		{"cgo", "package shelf_test\n// int x;\nimport \"C\"\n", []string{`learner_test.go:3:8: import "C" is refused: cgo runs C code`}},
		{"its own binary", "package shelf_test\nimport \"debug/elf\"\n", []string{`learner_test.go:2:8: import "debug/elf" is refused: it reads binaries`}},
		{"path/filepath", "package shelf_test\nimport \"path/filepath\"\n", []string{`learner_test.go:2:8: import "path/filepath" is refused: its Glob, Walk and EvalSymlinks list directories`}},
		{"build info", "package shelf_test\nimport \"runtime/debug\"\n", []string{`learner_test.go:2:8: import "runtime/debug" is refused: it reads the process's state: the binary's build settings`}},
		{"reflect", "package shelf_test\nimport \"reflect\"\n", []string{`learner_test.go:2:8: import "reflect" is refused: it reads unexported fields`}},
		{"flags", "package shelf_test\nimport \"flag\"\n", []string{`learner_test.go:2:8: import "flag" is refused: it reads the test binary's command line`}},
		{"another package of the module", "package shelf_test\nimport \"example.com/shelf/internal/size\"\n", []string{`learner_test.go:2:8: import "example.com/shelf/internal/size" is not one a learner's test of this exercise may import: those are example.com/shelf, and the standard packages`}},
		{"linkname", "package shelf_test\nimport _ \"strings\"\n//go:linkname env runtime.envs\nvar env []string\n", []string{`learner_test.go:3:1: directive //go:linkname is refused: it reaches any symbol of the binary`}},
		{"a build constraint", "//go:build ignore\n\npackage shelf_test\n", []string{`learner_test.go:1:1: build constraint "//go:build ignore" is refused: a learner's file is always compiled`}},
		{"a +build line, no space", "//+build ignore\n\npackage shelf_test\n", []string{`learner_test.go:1:1: build constraint "//+build ignore" is refused`}},
		{"a +build line", "// +build linux\n\npackage shelf_test\n", []string{`learner_test.go:1:1: build constraint "// +build linux" is refused`}},
		{"a line directive", "package shelf_test\n//line other.go:1\nvar x int\n", []string{`learner_test.go:2:1: directive //line is refused: it changes the file and line that messages name`}},
		{"TestMain", "package shelf_test\nimport \"testing\"\nfunc TestMain(m *testing.M) {}\n", []string{`learner_test.go:3:6: TestMain is refused: it runs around every test of the file`}},
		{"the package itself", "package shelf\n", []string{`learner_test.go:1:9: package shelf: a learner's test file of package shelf declares package shelf_test`}},
		{"two at once", "package other\nimport (\n\t\"os\"\n\t\"syscall\"\n)\n", []string{
			`learner_test.go:1:9: package other: a learner's test file of package shelf declares package shelf_test`,
			`learner_test.go:3:2: import "os" is refused`,
			`learner_test.go:4:2: import "syscall" is refused: it makes any system call`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := check(t, shelfRules, tc.src)
			if len(got) != len(tc.want) {
				t.Fatalf("Check() = %q, want %d problems", got, len(tc.want))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %d = %q, want it to start %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// A contract test's file passes: the package, the standard packages a
// contract test needs, a dot import, an example, a fuzz test.
func TestRules_AContractTestPasses(t *testing.T) {
	src := `package shelf_test

import (
	"context"
	"errors"
	"fmt"
	. "strings"
	"testing"
	"time"

	"example.com/shelf"
)

func TestPut(t *testing.T) { _ = shelf.New; _ = context.Background; _ = errors.New; _ = time.Second; _ = Contains }

func FuzzPut(f *testing.F) {}

func ExamplePut() {
	fmt.Println(1)
	// Output: 1
}
`
	if got := check(t, shelfRules, src); len(got) != 0 {
		t.Errorf("Check() = %q, want no problem", got)
	}
}

// The catalog chooses the package a file may be in, and widens its
// imports.
func TestRules_TheCatalogWidens(t *testing.T) {
	r := shelfRules
	r.Clause, r.Imports = exercise.Either, []string{"encoding/csv"}
	for _, src := range []string{"package shelf\nimport \"encoding/csv\"\n", "package shelf_test\nimport \"encoding/csv\"\n"} {
		if got := check(t, r, src); len(got) != 0 {
			t.Errorf("Check(%q) = %q, want no problem", src, got)
		}
	}
	r.Clause = exercise.Internal
	if got := check(t, r, "package shelf_test\n"); len(got) != 1 || !strings.Contains(got[0], "declares package shelf") {
		t.Errorf("Check(package shelf_test) with internal = %q, want the package refused", got)
	}
}

// A file that keeps the rules is type-checked, and each of its errors is
// named at its place; only when it keeps them.
func TestRules_TypeCheckedOnlyWhenTheRulesHold(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "learner_test.go", "package shelf_test\nimport \"testing\"\nfunc TestX(t *testing.T) { fence := 1 }\n", parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	tc := func(f *ast.File) yamlfile.Errors {
		checked++
		return typeErrors(fset, "example.com/shelf_test", []*ast.File{f}, stdImporter(t), nil)
	}
	got := shelfRules.Check(fset, f, tc)
	if checked != 1 || len(got) != 1 || got[0].Error() != "learner_test.go:3:28: declared and not used: fence" {
		t.Errorf("Check() = %v (type-checked %d times), want the unused variable at 3:28", got, checked)
	}
	f, _ = parser.ParseFile(fset, "other_test.go", "package shelf_test\nimport \"os\"\n", parser.ParseComments)
	checked = 0
	if got := shelfRules.Check(fset, f, tc); checked != 0 || len(got) != 1 {
		t.Errorf("Check(import os) = %v, type-checked %d times; want the import refused and no type check", got, checked)
	}
}

// typeChecked parses src as learner_test.go, of a package that imports
// only the standard library, and returns its problems: the rules, then the
// type check and the rules on types.
func typeChecked(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "learner_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range shelfRules.Check(fset, f, func(f *ast.File) yamlfile.Errors {
		return typeErrors(fset, "example.com/shelf_test", []*ast.File{f}, stdImporter(t), nil)
	}) {
		got = append(got, e.Error())
	}
	return got
}

// What the allowed packages would hand out of the test binary's memory is
// refused at its place, whatever the file imports: a reflect value
// (encoding/json's errors carry one; testing/quick takes functions of
// them), an unsafe.Pointer (sync/atomic's pointer functions), the
// runners of package testing, and whatever fmt would print as an address.
func TestRules_RefuseWhatAllowedPackagesHandOut(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string // the first problem, its start
	}{
		{"json's reflect value, to memory", `
type loop struct{ Next *loop }
func TestCode(t *testing.T) {
	l := &loop{}
	l.Next = l
	_, err := json.Marshal(l)
	var uve *json.UnsupportedValueError
	if errors.As(err, &uve) {
		p := uve.Value.UnsafePointer()
		_ = (*[4]byte)(p)
	}
}`, "learner_test.go:24:8: uve.Value.UnsafePointer() is of type unsafe.Pointer, which is refused: an unsafe.Pointer reads and writes any memory"},
		{"json's reflect type", `
func TestType(t *testing.T) {
	var n int
	err := json.Unmarshal([]byte("true"), &n)
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		t.Log(ute.Type)
	}
}`, "learner_test.go:22:9: ute.Type is of type reflect.Type, which is refused"},
		{"quick's Values, inferred", `
func TestQuick(t *testing.T) {
	c := &quick.Config{}
	f := c.Values
	_ = f
}`, "learner_test.go:19:7: c.Values is of type func([]reflect.Value, *math/rand.Rand), which is refused"},
		{"atomic's unsafe pointers", `
func TestAtomic(t *testing.T) {
	p := atomic.LoadPointer(nil)
	_ = p
}`, "learner_test.go:18:7: atomic.LoadPointer(nil) is of type unsafe.Pointer, which is refused"},
		{"testing's MainStart", `
func TestMain2(t *testing.T) {
	_ = testing.MainStart
}`, "learner_test.go:18:14: testing.MainStart is refused: it runs tests of the file's own making"},
		{"fmt's %p", `
func TestP(t *testing.T) {
	_ = fmt.Sprintf("%p", t)
}`, `learner_test.go:18:18: fmt.Sprintf's format "%p" holds %p, which is refused: it prints an address`},
		{"a function, printed", `
func TestF(t *testing.T) {
	_ = fmt.Sprint(strings.ToUpper)
}`, "learner_test.go:18:17: strings.ToUpper, a func(s string) string printed with %v by fmt.Sprint, is refused: fmt would print its value, an address"},
		{"a pointer, printed as a number", `
func TestD(t *testing.T) {
	n := 1
	_ = fmt.Sprintf("%d", &n)
}`, "learner_test.go:19:24: &n, a *int printed with %d by fmt.Sprintf, is refused: fmt would print its value, an address"},
		{"a pointer inside a struct", `
type box struct{ n *int }
func TestBox(t *testing.T) {
	_ = fmt.Sprint(box{})
}`, "learner_test.go:19:17: box{}, a example.com/shelf_test.box printed with %v by fmt.Sprint, is refused: fmt would print its field n, an address"},
		{"a value of any", `
func TestAny(t *testing.T) {
	var x any = 1
	_ = fmt.Sprint(x)
}`, "learner_test.go:19:17: x, a any printed with %v by fmt.Sprint, is refused: fmt would print its value (an interface with neither Error nor String"},
		{"a format of no constant", `
func TestFormat(t *testing.T) {
	f := "%d"
	_ = fmt.Sprintf(f, 1)
}`, "learner_test.go:19:18: fmt.Sprintf's format must be a constant"},
		{"an explicit index", `
func TestIndex(t *testing.T) {
	_ = fmt.Sprintf("%[1]d", 1)
}`, "learner_test.go:18:18: fmt.Sprintf's format \"%[1]d\" holds an explicit argument index"},
		{"a value of 128 MiB", `
var blob = [1 << 27]byte{1<<27 - 1: 1}
func TestBlob(t *testing.T) { _ = blob[0] }`, "learner_test.go:17:12: [1 << 27]byte{…} is a value of 128 MiB, which is refused: every build of the file would hold it (at most 16 MiB)"},
		{"spread operands", `
func TestSpread(t *testing.T) {
	xs := []any{1}
	_ = fmt.Sprint(xs...)
}`, "learner_test.go:19:19: fmt.Sprint's operands must be written out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := typeChecked(t, allowedHeader+tc.body+"\n")
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
				t.Errorf("Check() = %q, want one problem, %q…", got, tc.want)
			}
		})
	}
}

// allowedHeader is the head of a learner's file that imports the allowed
// packages the rules on types look at: 16 lines.
const allowedHeader = `package shelf_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"
	"testing/quick"
)

var _ = 0
var _, _, _, _, _, _, _ = json.Marshal, errors.New, fmt.Sprint, rand.Int, strings.ToUpper, atomic.AddInt32, quick.Check
`

// What a contract test prints with fmt, and how it uses the allowed
// packages, passes the rules on types: numbers, strings, errors and
// Stringers under any verb that prints them by their methods, slices and
// structs of them, a pointer to a struct of them at the top, %T of
// anything, an error of json's without its reflect value.
func TestRules_WhatAContractTestPrintsPasses(t *testing.T) {
	body := `
type item struct {
	Name  string
	Count int
	When  time.Duration
}
func TestPrint(t *testing.T) {
	var x any = 1
	err := errors.New("x")
	it := &item{Name: "a", Count: 1}
	_ = fmt.Sprintf("%d items, %s, %q, %x, %v, %+v, %T, %5.2f%%", 3, "s", "q", "hex", []string{"a"}, it, x, 1.5)
	_ = fmt.Errorf("wrapped: %w", err)
	_ = fmt.Sprint(err, time.Second, item{})
	_, jerr := json.Marshal(map[string]any{"a": func() {}})
	var uve *json.UnsupportedValueError
	if errors.As(jerr, &uve) {
		_ = uve.Str
	}
	var n atomic.Int64
	n.Add(1)
	_ = quick.Check(func(a int) bool { return a == a }, nil)
	_ = strings.ToUpper
}`
	src := strings.Replace(allowedHeader, "\t\"testing/quick\"\n", "\t\"testing/quick\"\n\t\"time\"\n", 1) + body + "\n"
	if got := typeChecked(t, src); len(got) != 0 {
		t.Errorf("Check() = %q, want no problem", got)
	}
}

// An empty file, or one of comments only, is one problem that says what a
// test file begins with, not the parser's three; so is a file without its
// package clause.
func TestRules_ParseErrorsOfAnEmptyFile(t *testing.T) {
	r := Rules{Package: "lease", Clause: exercise.Either}
	for _, tc := range []struct{ src, want string }{
		{"", "mine_test.go:1:1: the file is empty: a test file begins with its package clause, package lease_test or package lease, then imports testing and holds the tests"},
		{"\n\n// TODO: tests\n", "mine_test.go:1:1: the file is empty: a test file begins with its package clause, package lease_test or package lease, then imports testing and holds the tests"},
		{"// tests\nfunc TestX(t *testing.T) {}\n", "mine_test.go:2:1: a test file begins with its package clause, package lease_test or package lease: found 'func'"},
	} {
		_, err := parser.ParseFile(token.NewFileSet(), "mine_test.go", tc.src, parser.AllErrors)
		if err == nil {
			t.Fatalf("%q parses", tc.src)
		}
		if got := r.parseErrors("mine_test.go", []byte(tc.src), err).Error(); got != tc.want {
			t.Errorf("parseErrors(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
	// Any other syntax error is the parser's, every one.
	src := "package lease_test\nfunc TestX(t *testing.T) { if }\n"
	_, err := parser.ParseFile(token.NewFileSet(), "mine_test.go", src, parser.AllErrors)
	if got := r.parseErrors("mine_test.go", []byte(src), err).Error(); !strings.HasPrefix(got, "mine_test.go:2:31: expected operand, found '}'") {
		t.Errorf("parseErrors = %q, want the parser's errors", got)
	}
}
