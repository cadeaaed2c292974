package exercise

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/gotest"
)

// TestTarget_ModuleDirsAreGoListsOrNothing: when go list's answer for a
// package tells the packages of its module that it and its tests import,
// they are the ones go list -deps -test names; when it cannot (a test
// imports a package of the module, or of another module, that the package
// does not), ModuleDirs says so.
func TestTarget_ModuleDirsAreGoListsOrNothing(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"m/go.mod": "module example.com/m\n\ngo 1.24\n\nrequire example.com/x v0.0.0\n\nreplace example.com/x => ../x\n",
		"m/b/b.go": "package b\n\nfunc B() int { return 1 }\n",
		"m/c/c.go": "package c\n\nimport \"example.com/m/b\"\n\nfunc C() int { return b.B() }\n",
		// Its tests import the standard library only.
		"m/a/a.go":      "package a\n\nimport \"example.com/m/b\"\n\nfunc A() int { return b.B() }\n",
		"m/a/a_test.go": "package a\n\nimport (\n\t\"strings\"\n\t\"testing\"\n)\n\nfunc TestA(t *testing.T) { _ = strings.ToUpper(\"\") }\n",
		// Its tests import a package of the module it does not import.
		"m/e/e.go":      "package e\n\nfunc E() int { return 2 }\n",
		"m/e/e_test.go": "package e\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/c\"\n)\n\nfunc TestE(t *testing.T) { _ = c.C() }\n",
		// Its external tests import it, and what it imports.
		"m/f/f.go":      "package f\n\nimport \"example.com/m/c\"\n\nfunc F() int { return c.C() }\n",
		"m/f/f_test.go": "package f_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/b\"\n\t\"example.com/m/f\"\n)\n\nfunc TestF(t *testing.T) { _ = f.F() + b.B() }\n",
		// Its tests import another module, whose imports go list did not
		// say.
		"m/g/g.go":      "package g\n\nfunc G() int { return 3 }\n",
		"m/g/g_test.go": "package g\n\nimport (\n\t\"testing\"\n\n\t\"example.com/x\"\n)\n\nfunc TestG(t *testing.T) { _ = x.X() }\n",
		"x/go.mod":      "module example.com/x\n\ngo 1.24\n",
		"x/x.go":        "package x\n\nfunc X() int { return 4 }\n",
	}
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "m")
	env, err := gotest.Env(t.Context(), "", "GOROOT")
	if err != nil {
		t.Fatal(err)
	}
	targets, err := FindTargets(t.Context(), "", dir, "./...", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantOK := map[string]bool{"./a": true, "./b": true, "./c": true, "./e": false, "./f": true, "./g": false}
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
		t.Errorf("FindTargets() found %d packages, want %d", len(targets), len(wantOK))
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
