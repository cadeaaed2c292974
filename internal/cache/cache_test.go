package cache

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// writeModule writes a module whose package calc imports the module's
// package util, with a test file, testdata, and an unrelated README.
func writeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                   "module example.com/m\n\ngo 1.26\n",
		"README.md":                "not part of any package\n",
		"util/util.go":             "package util\n\nfunc Two() int { return 2 }\n",
		"calc/calc.go":             "package calc\n\nimport \"example.com/m/util\"\n\nfunc Four() int { return util.Two() * 2 }\n",
		"calc/calc_test.go":        "package calc\n\nimport \"testing\"\n\nfunc TestFour(t *testing.T) {}\n",
		"calc/testdata/input.txt":  "data\n",
		"other/other.go":           "package other\n",
		"calc/testdata/deep/x.txt": "deeper\n",
	}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testMutants() []*mutation.Mutant {
	return []*mutation.Mutant{{ID: "double", Target: "Four", Kind: mutation.Expr, Find: "util.Two() * 2", Replace: "util.Two() + 2"}}
}

// collect returns the inputs of the tree at dir, with the go command's
// settings as they are now.
func collect(t *testing.T, dir string, flags map[string]string) Inputs {
	t.Helper()
	goEnv, err := gotest.Env(t.Context(), "", GoEnvNames...)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Collect(t.Context(), "", dir, "./calc", nil, goEnv, flags)
	if err != nil {
		t.Fatalf("Collect() error = %v", err)
	}
	return in
}

// key returns the key of the first mutant of ms on the tree at dir.
func key(t *testing.T, dir string, ms []*mutation.Mutant, flags map[string]string) string {
	t.Helper()
	return MutantKey(collect(t, dir, flags).Key(), ms[0])
}

var flags = map[string]string{"pkg": "./calc", "mode": "switch", "timeout": "0s"}

// A mutant's key changes when any input changes, and only then.
func TestKey_ChangesWithEveryInput(t *testing.T) {
	dir := writeModule(t)
	base := key(t, dir, testMutants(), flags)
	if again := key(t, dir, testMutants(), flags); again != base {
		t.Fatalf("the key of an unchanged tree changed: %s, then %s", base, again)
	}

	edits := []struct {
		name string
		file string
	}{
		{"PackageSource", "calc/calc.go"},
		{"TestFile", "calc/calc_test.go"},
		{"Testdata", "calc/testdata/deep/x.txt"},
		{"ImportedPackageOfTheModule", "util/util.go"},
		{"GoMod", "go.mod"},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			path := filepath.Join(dir, e.file)
			old, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, old, 0o644)
			if err := os.WriteFile(path, append(old, "// edited\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			if key(t, dir, testMutants(), flags) == base {
				t.Fatalf("editing %s left the key unchanged", e.file)
			}
		})
	}
	t.Run("NewGoSum", func(t *testing.T) {
		path := filepath.Join(dir, "go.sum")
		if err := os.WriteFile(path, []byte("example.com/x v1.0.0 h1:abc=\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		if key(t, dir, testMutants(), flags) == base {
			t.Fatal("adding go.sum left the key unchanged")
		}
	})
	for _, unrelated := range []string{"README.md", "other/other.go"} {
		t.Run("Unrelated/"+unrelated, func(t *testing.T) {
			path := filepath.Join(dir, unrelated)
			old, _ := os.ReadFile(path)
			defer os.WriteFile(path, old, 0o644)
			if err := os.WriteFile(path, append(old, "// edited\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			if key(t, dir, testMutants(), flags) != base {
				t.Fatalf("editing %s, which no test can see, changed the key", unrelated)
			}
		})
	}
	t.Run("MutantDefinition", func(t *testing.T) {
		for _, change := range []func(*mutation.Mutant){
			func(m *mutation.Mutant) { m.Replace = "util.Two() - 2" },
			func(m *mutation.Mutant) { m.Find = "util.Two()" },
			func(m *mutation.Mutant) { m.ID = "twice" },
			func(m *mutation.Mutant) { m.Title = "a title" },
			func(m *mutation.Mutant) { m.Step = 3 },
		} {
			ms := testMutants()
			change(ms[0])
			if key(t, dir, ms, flags) == base {
				t.Errorf("changing the mutant to %+v left the key unchanged", *ms[0])
			}
		}
		other := []*mutation.Mutant{{ID: "x", Target: "Four", Kind: mutation.Expr, Find: "2", Replace: "3"}}
		if key(t, dir, other, flags) == base {
			t.Error("another mutant has the same key")
		}
		// A mutant's key does not depend on the mutants beside it.
		if key(t, dir, append(testMutants(), other...), flags) != base {
			t.Error("a mutant's key changed with the company it runs in")
		}
	})
	t.Run("Flags", func(t *testing.T) {
		for _, f := range []map[string]string{
			{"pkg": "./calc", "mode": "overlay", "timeout": "0s"},
			{"pkg": "./calc", "mode": "switch", "timeout": "1m0s"},
		} {
			if key(t, dir, testMutants(), f) == base {
				t.Errorf("flags %v left the key unchanged", f)
			}
		}
	})
	t.Run("Environment", func(t *testing.T) {
		t.Setenv("RAPID_CHECKS", "7")
		if key(t, dir, testMutants(), flags) == base {
			t.Error("RAPID_CHECKS left the key unchanged")
		}
	})
	t.Run("GoVersionAndSettings", func(t *testing.T) {
		t.Setenv("GOEXPERIMENT", "arenas")
		if key(t, dir, testMutants(), flags) == base {
			t.Error("GOEXPERIMENT left the key unchanged")
		}
		in := collect(t, dir, flags)
		if in.GoEnv["GOVERSION"] == "" {
			t.Fatal("the key does not record the Go version")
		}
		in.GoEnv["GOVERSION"] = "go0.0"
		if MutantKey(in.Key(), testMutants()[0]) == base {
			t.Error("another Go version left the key unchanged")
		}
	})
	t.Run("Harness", func(t *testing.T) {
		in := collect(t, dir, flags)
		if in.Harness == "" {
			t.Fatal("the key does not record the harness")
		}
		in.Harness = "another build of mutate"
		if MutantKey(in.Key(), testMutants()[0]) == base {
			t.Error("another harness left the key unchanged")
		}
	})
}

// The directories a caller gives are the ones whose files are hashed; none
// given, go list's are, and they are the same.
func TestCollect_HashesTheDirectoriesGiven(t *testing.T) {
	dir := writeModule(t)
	goEnv, err := gotest.Env(t.Context(), "", GoEnvNames...)
	if err != nil {
		t.Fatal(err)
	}
	files := func(dirs []string) []string {
		in, err := Collect(t.Context(), "", dir, "./calc", dirs, goEnv, flags)
		if err != nil {
			t.Fatalf("Collect(%v) error = %v", dirs, err)
		}
		return slices.Sorted(maps.Keys(in.Files))
	}
	listed := files(nil)
	want := []string{"calc/calc.go", "calc/calc_test.go", "calc/testdata/deep/x.txt", "calc/testdata/input.txt", "go.mod", "util/util.go"}
	if !slices.Equal(listed, want) {
		t.Errorf("Collect() with go list's directories hashed %v, want %v", listed, want)
	}
	if given := files([]string{filepath.Join(dir, "calc"), filepath.Join(dir, "util")}); !slices.Equal(given, want) {
		t.Errorf("Collect() with calc and util given hashed %v, want %v", given, want)
	}
	if calc := files([]string{filepath.Join(dir, "calc")}); slices.Contains(calc, "util/util.go") {
		t.Errorf("Collect() with calc alone given hashed %v: util's too", calc)
	}
}

// Rehash sees what changed in the files of the inputs since Collect, and
// nothing else.
func TestRehash_SeesAnEditOfTheTree(t *testing.T) {
	dir := writeModule(t)
	in := collect(t, dir, flags)
	same, err := in.Rehash()
	if err != nil {
		t.Fatalf("Rehash() error = %v", err)
	}
	if same.Key() != in.Key() {
		t.Fatal("Rehash() of an unchanged tree changed the key")
	}
	if err := os.WriteFile(filepath.Join(dir, "util", "util.go"), []byte("package util\n\nfunc Two() int { return 3 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edited, err := in.Rehash()
	if err != nil {
		t.Fatalf("Rehash() error = %v", err)
	}
	if edited.Key() == in.Key() || edited.Key() != collect(t, dir, flags).Key() {
		t.Fatal("Rehash() after an edit of an imported package does not give the key Collect gives")
	}
	if err := os.Remove(filepath.Join(dir, "calc", "calc_test.go")); err != nil {
		t.Fatal(err)
	}
	removed, err := in.Rehash()
	if err != nil {
		t.Fatalf("Rehash() error = %v", err)
	}
	if removed.Key() == edited.Key() {
		t.Fatal("Rehash() after a test file was removed left the key unchanged")
	}
}

// Tool asks for a tool's path once per toolchain, and again when the file
// it gave is gone.
func TestTool_KeptWhileTheFileIsThere(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	prog := filepath.Join(dir, "test2json")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	asked := 0
	find := func() (string, error) { asked++; return prog, nil }
	env := map[string]string{"GOROOT": "/go", "GOVERSION": "go1.26.0", "GOCACHE": "/cache"}
	for range 2 {
		if got, err := Tool("test2json", env, find); err != nil || got != prog {
			t.Fatalf("Tool() = %q, %v; want %q", got, err, prog)
		}
	}
	if asked != 1 {
		t.Fatalf("find was called %d times for one toolchain, want 1", asked)
	}
	env["GOVERSION"] = "go1.27.0"
	if _, err := Tool("test2json", env, find); err != nil || asked != 2 {
		t.Fatalf("another Go version: find called %d times in all (error %v), want 2", asked, err)
	}
	if err := os.Remove(prog); err != nil {
		t.Fatal(err)
	}
	if _, err := Tool("test2json", env, find); err != nil || asked != 3 {
		t.Fatalf("after the file was removed: find called %d times in all (error %v), want 3", asked, err)
	}
	failing := func() (string, error) { return "", errors.New("go tool: no test2json") }
	env["GOVERSION"] = "go1.28.0"
	if _, err := Tool("test2json", env, failing); err == nil || err.Error() != "go tool: no test2json" {
		t.Fatalf("Tool() with a failing find: error %v, want find's", err)
	}
}

func TestStoreLoad(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	rep := &report.Report{Package: "./calc", Baseline: report.Baseline{Tests: 1, TestNames: []string{"TestFour"}},
		Mutants: []report.Mutant{{ID: "double", Status: report.Killed, FailedTests: []string{"TestFour"}}}}
	if _, ok := LoadRun("k1"); ok {
		t.Fatal("LoadRun() of an empty cache found a run")
	}
	if err := StoreRun("k1", rep); err != nil {
		t.Fatalf("StoreRun() error = %v", err)
	}
	got, ok := LoadRun("k1")
	if !ok || got.Package != "./calc" || len(got.Mutants) != 0 || got.Baseline.TestNames[0] != "TestFour" {
		t.Fatalf("LoadRun() = %+v, %v; want the run without its mutants", got, ok)
	}
	if len(rep.Mutants) != 1 {
		t.Fatal("StoreRun() changed the report it stored")
	}
	if _, ok := LoadRun("k2"); ok {
		t.Fatal("LoadRun() of another key found a run")
	}

	if err := StoreMutant("m1", rep.Mutants[0]); err != nil {
		t.Fatal(err)
	}
	if m, ok := LoadMutant("m1"); !ok || m.ID != "double" || m.FailedTests[0] != "TestFour" {
		t.Fatalf("LoadMutant() = %+v, %v", m, ok)
	}
	// A timeout may come from a loaded machine: it is not kept.
	if err := StoreMutant("m2", report.Mutant{ID: "loop", Status: report.Timeout}); err != nil {
		t.Fatal(err)
	}
	if _, ok := LoadMutant("m2"); ok {
		t.Fatal("a timeout was cached")
	}
	// One at its limit of CPU time spins, whatever the load: it is kept.
	// A run stopped at its memory limit is not.
	if err := StoreMutant("m3", report.Mutant{ID: "spin", Status: report.Timeout, SpinsAlone: true}); err != nil {
		t.Fatal(err)
	}
	if m, ok := LoadMutant("m3"); !ok || m.Status != report.Timeout || !m.SpinsAlone {
		t.Fatalf("LoadMutant(spins) = %+v, %v; want the timeout kept", m, ok)
	}
	StoreMutant("m4", report.Mutant{ID: "hoard", Status: report.OutOfMemory})
	if _, ok := LoadMutant("m4"); ok {
		t.Fatal("an out-of-memory verdict was cached")
	}
}
