package exercise

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/fencelab/fencelab/internal/gotest"
)

// moduleDirsFixture is a module m whose packages' tests import the
// standard library only (a, and h, which imports m's root package), a
// package of m that their package does not import (e), their package and
// what it imports (f, external tests), and another module, x, whose
// imports go list's answer for g does not give.
const moduleDirsFixture = `
-- m/go.mod --
module example.com/m

go 1.24

require example.com/x v0.0.0

replace example.com/x => ../x
-- m/m.go --
package m

func M() int { return 0 }
-- m/h/h.go --
package h

import "example.com/m"

func H() int { return m.M() }
-- m/h/h_test.go --
package h

import "testing"

func TestH(t *testing.T) { _ = H() }
-- m/b/b.go --
package b

func B() int { return 1 }
-- m/c/c.go --
package c

import "example.com/m/b"

func C() int { return b.B() }
-- m/a/a.go --
package a

import "example.com/m/b"

func A() int { return b.B() }
-- m/a/a_test.go --
package a

import (
	"strings"
	"testing"
)

func TestA(t *testing.T) { _ = strings.ToUpper("") }
-- m/e/e.go --
package e

func E() int { return 2 }
-- m/e/e_test.go --
package e

import (
	"testing"

	"example.com/m/c"
)

func TestE(t *testing.T) { _ = c.C() }
-- m/f/f.go --
package f

import "example.com/m/c"

func F() int { return c.C() }
-- m/f/f_test.go --
package f_test

import (
	"testing"

	"example.com/m/b"
	"example.com/m/f"
)

func TestF(t *testing.T) { _ = f.F() + b.B() }
-- m/g/g.go --
package g

func G() int { return 3 }
-- m/g/g_test.go --
package g

import (
	"testing"

	"example.com/x"
)

func TestG(t *testing.T) { _ = x.X() }
-- x/go.mod --
module example.com/x

go 1.24
-- x/x.go --
package x

func X() int { return 4 }
`

// TestTarget_ModuleDirsAreGoListsOrNothing: when go list's answer for a
// package tells the packages of its module that it and its tests import,
// they are the ones go list -deps -test names; when it cannot (a test
// imports a package of the module, or of another module, that the package
// does not), ModuleDirs says so.
func TestTarget_ModuleDirsAreGoListsOrNothing(t *testing.T) {
	root := t.TempDir()
	fsys, err := txtar.FS(txtar.Parse([]byte(moduleDirsFixture)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(root, fsys); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "m")
	env, err := gotest.Env(t.Context(), "", "GOROOT")
	if err != nil {
		t.Fatal(err)
	}
	targets, err := findTargets(t.Context(), "", dir, "./...", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantOK := map[string]bool{".": true, "./a": true, "./b": true, "./c": true, "./e": false, "./f": true, "./g": false, "./h": true}
	for _, target := range targets {
		dirs, ok := target.ModuleDirs(env["GOROOT"], false)
		if ok != wantOK[target.Rel] {
			t.Errorf("ModuleDirs() of %s: ok = %v, want %v (dirs %v)", target.Rel, ok, wantOK[target.Rel], dirs)
			continue
		}
		if !ok {
			if dirs != nil {
				t.Errorf("ModuleDirs() of %s = %v, false; want nil", target.Rel, dirs)
			}
			continue
		}
		if want := goListModuleDirs(t, dir, target.Rel); !slices.Equal(dirs, want) {
			t.Errorf("ModuleDirs() of %s = %v; go list -deps -test says %v", target.Rel, dirs, want)
		}
		if _, ok := target.ModuleDirs(env["GOROOT"], true); ok {
			t.Errorf("ModuleDirs() of %s in a workspace: ok = true, want false", target.Rel)
		}
	}
	if len(targets) != len(wantOK) {
		t.Errorf("findTargets() found %d packages, want %d", len(targets), len(wantOK))
	}
}

// goListModuleDirs returns the directories of the packages of the main
// module that pkg and its tests import, sorted, as go list -deps -test
// gives them.
func goListModuleDirs(t *testing.T, dir, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-test", "-f", "{{if and .Module .Module.Main}}{{.Dir}}{{end}}", pkg)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps -test %s: %v", pkg, err)
	}
	var dirs []string
	for _, line := range strings.Fields(string(out)) {
		if !slices.Contains(dirs, line) {
			dirs = append(dirs, line)
		}
	}
	slices.Sort(dirs)
	return dirs
}
