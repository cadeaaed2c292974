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
		{"a build constraint", "//go:build ignore\n\npackage shelf_test\n", []string{`learner_test.go:1:1: directive //go:build is refused: a learner's file is always compiled`}},
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
		return typeErrors(fset, "example.com/shelf_test", []*ast.File{f}, stdImporter(t))
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
