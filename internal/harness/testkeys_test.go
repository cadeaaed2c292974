package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// The keys of a package's tests, after each kind of edit: what changed
// says which tests must run again under every mutant (see reuse.go).
func TestReadTestKeys_AnEditChangesTheKeysOfWhatItCanChange(t *testing.T) {
	const original = `//go:build !never

package calc

import "testing"

// helper is shared by every test.
func helper() int { return 1 }

func init() {}

func TestA(t *testing.T) {
	if helper() != 1 {
		t.Fatal("A")
	}
}

func TestB(t *testing.T) {
	if Double(2) != 4 {
		t.Fatal("B")
	}
}

// TestC runs TestB's function too.
func TestC(t *testing.T) {
	TestB(t)
}

func ExampleDouble() {
	// Output: 4
}
`
	for _, tc := range []struct {
		name         string
		old, new     string
		sharedChange bool
		changed      []string // the tests whose keys change
	}{
		{"a comment between tests", "func TestB", "// a note\n\nfunc TestB", false, nil},
		{"init", "func init() {}", "func init() {\n}", true, nil},
		{"one test's body", `t.Fatal("A")`, `t.Fatal("A!")`, false, []string{"TestA"}},
		{"a test that another calls", `t.Fatal("B")`, `t.Fatal("B!")`, false, []string{"TestB", "TestC"}},
		{"an example's output", "// Output: 4", "// Output: 5", false, []string{"ExampleDouble"}},
		{"a helper", "func helper() int { return 1 }", "func helper() int { return 2 }", true, nil},
		{"TestMain", "func init() {}", "func init() {}\n\nfunc TestMain(m *testing.M) { m.Run() }", true, nil},
		{"the build constraint", "//go:build !never", "//go:build !ever", true, nil},
		{"a new test", "func ExampleDouble", "func TestD(t *testing.T) {}\n\nfunc ExampleDouble", false, []string{"TestD"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := keysOfSource(t, original)
			if !strings.Contains(original, tc.old) {
				t.Fatalf("the original holds no %q", tc.old)
			}
			after := keysOfSource(t, strings.Replace(original, tc.old, tc.new, 1))
			if got := before.shared != after.shared; got != tc.sharedChange {
				t.Errorf("the shared key changed: %v, want %v", got, tc.sharedChange)
			}
			var changed []string
			for _, name := range []string{"TestA", "TestB", "TestC", "TestD", "ExampleDouble"} {
				if before.tests[name] != after.tests[name] {
					changed = append(changed, name)
				}
			}
			if strings.Join(changed, " ") != strings.Join(tc.changed, " ") {
				t.Errorf("the tests whose keys changed: %v, want %v", changed, tc.changed)
			}
		})
	}
}

// keysOfSource returns the test keys of a package whose one test file is
// src.
func keysOfSource(t *testing.T, src string) *testKeys {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n\nfunc Double(x int) int { return 2 * x }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "calc_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := readTestKeys(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(k.files) != 1 || k.files[0] != "calc_test.go" {
		t.Fatalf("test files %v, want calc_test.go", k.files)
	}
	return k
}

// After an edit to the tests, each mutant runs again only the tests whose
// keys changed (and the one sampled), takes the others' outcomes from the
// run before, and names every failing test as a run with no outcomes
// kept does (NoCache).
func TestRun_AnEditRunsAgainOnlyTheTestsItCanChange(t *testing.T) {
	r, dir := reuseRun(t)
	steps := []struct {
		name, old, new string
		reused         int // by the two mutants together
	}{
		// TestMax runs again under both; TestDouble, the one reused
		// failure, is the sample, and runs again under plus-one.
		{"one test's body", `t.Fatal("Max is wrong")`, `t.Fatalf("Max is wrong: %d", Max(1, 2))`, 2*3 - 2 - 1},
		// A new test runs under both, and kills plus-one too; one of
		// the two reused failures is the sample.
		{"a new test", "func TestSize", "func TestDoubleThree(t *testing.T) {\n\tif Double(3) != 6 {\n\t\tt.Fatal(\"Double(3) is wrong\")\n\t}\n}\n\nfunc TestSize", 2*4 - 2 - 1},
		{"a helper", "import \"testing\"", "import \"testing\"\n\nfunc two() int { return 2 }", 0},
		{"init", "import \"testing\"", "import \"testing\"\n\nfunc init() {}", 0},
		{"TestMain", "import \"testing\"", "import \"testing\"\n\nfunc TestMain(m *testing.M) { m.Run() }", 0},
		{"nothing but a comment", "func TestSize", "// TestSize pins the table's size.\nfunc TestSize", 2*4 - 1},
	}
	path := filepath.Join(dir, "calc_test.go")
	for _, step := range steps {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), step.old) {
			t.Fatalf("%s: the test file holds no %q", step.name, step.old)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(src), step.old, step.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		rep := prepareAndRun(t, r)
		want := rep
		if step.reused > 0 {
			// Otherwise it ran every test: that is the run to compare.
			whole := r
			whole.NoCache = true
			want = prepareAndRun(t, whole)
		}
		reused := 0
		for i, m := range rep.Mutants {
			reused += m.Reused
			w := want.Mutants[i]
			if m.Status != w.Status || !slices.Equal(m.FailedTests, w.FailedTests) || step.reused > 0 && w.Reused != 0 {
				t.Errorf("%s: %s %s %v; with no outcomes kept %s %v (reused %d)", step.name, m.ID, m.Status, m.FailedTests, w.Status, w.FailedTests, w.Reused)
			}
			if m.Reused > 0 && m.ReusedFrom.IsZero() {
				t.Errorf("%s: %s reused %d outcomes from no time", step.name, m.ID, m.Reused)
			}
		}
		if reused != step.reused {
			t.Errorf("%s: %d outcomes reused, want %d", step.name, reused, step.reused)
		}
	}
}

// A kept outcome that a run of the same test contradicts (here one
// forged in the cache: TestSize failed under flipped, where TestMax did)
// is found by the sampled check, and the mutant runs every test: its
// verdict is the whole suite's, not the kept one.
func TestRun_TheSampledCheckCatchesAKeptOutcomeThatNoLongerHolds(t *testing.T) {
	r, dir := reuseRun(t)
	ms := r.Mutants
	// TestDouble changes: plus-one's only failure runs again, and the
	// forged one is the only reused failure, so it is the sample.
	path := filepath.Join(dir, "calc_test.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), `t.Fatal("Double is wrong")`, `t.Fatal("Double(2) is wrong")`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := r.config()
	if err := resolveIsolation(&cfg.Options); err != nil {
		t.Fatal(err)
	}
	p, err := prepare(t.Context(), r.plan(t).Units[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	keys := p.keys(t.Context(), cfg)
	p.withTests(cfg, &keys)
	p.Close()
	key := cache.MutantKey(keys.tests, ms[0])
	o, ok := cache.LoadOutcomes(key)
	if !ok || !slices.Equal(o.Mutant.FailedTests, []string{"TestMax"}) {
		t.Fatalf("kept outcomes of flipped: %v %+v; want TestMax failing", ok, o.Mutant.FailedTests)
	}
	o.Mutant.FailedTests = []string{"TestSize"}
	o.Mutant.Failures = []report.Failure{{Test: "TestSize", Message: "forged"}}
	if err := cache.StoreOutcomes(key, o); err != nil {
		t.Fatal(err)
	}
	rep := prepareAndRun(t, r)
	flipped := rep.Mutants[0]
	if flipped.Status != report.Killed || !slices.Equal(flipped.FailedTests, []string{"TestMax"}) || flipped.Reused != 0 {
		t.Errorf("flipped: %s by %v, %d outcomes reused; want killed by TestMax alone, every test run", flipped.Status, flipped.FailedTests, flipped.Reused)
	}
	if plus := rep.Mutants[1]; !slices.Equal(plus.FailedTests, []string{"TestDouble"}) || plus.Reused != 2 {
		t.Errorf("plus-one: %v, %d outcomes reused; want TestDouble, 2", plus.FailedTests, plus.Reused)
	}
}

// reuseRun runs two mutants of writeModule's module once, with a results
// cache of the test's own, and returns the run, which the test runs again
// after its edits, and the module's directory.
func reuseRun(t *testing.T) (testRun, string) {
	t.Helper()
	skipShort(t)
	ownCache(t)
	dir := writeModule(t)
	ms := []*mutation.Mutant{
		{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"},
		{ID: "plus-one", Target: "Double", Kind: mutation.Stmt, Find: "return y", Replace: "return y + 1"},
	}
	r := testRun{Dir: dir, Package: ".", Mutants: ms, Mode: ModeSwitch, Jobs: 2}
	prepareAndRun(t, r)
	return r, dir
}

// ownCache gives the test a results cache of its own: the module of
// writeModule is the same tree in every test, and the outcomes another
// test kept would be reused here.
func ownCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

// A reused outcome is that of a test whose function did not change and
// that did not run again: a test that changed and did not run (it no
// longer reaches the mutant's site) loses its old failure, and one that
// is gone is gone from the result.
func TestMerged_KeepsTheFailuresOfUnchangedTestsOnly(t *testing.T) {
	o := cache.Outcomes{Tests: map[string]string{"TestA": "a", "TestB": "b", "TestC": "c", "TestGone": "g"}, Mutant: report.Mutant{
		Status: report.Killed, FailedTests: []string{"TestA/sub", "TestB", "TestGone"},
		Failures: []report.Failure{{Test: "TestA/sub", Message: "a"}, {Test: "TestB", Message: "b"}, {Test: "TestGone", Message: "g"}},
	}}
	ru := &reuse{tested: &testKeys{tests: map[string]string{"TestA": "a", "TestB": "b2", "TestC": "c", "TestD": "d"}}}
	reused := ru.reused(o, []string{"TestA", "TestB", "TestC", "TestD"}, []string{"TestD"})
	if !slices.Equal(reused, []string{"TestA", "TestC"}) {
		t.Fatalf("reused %v, want TestA and TestC", reused)
	}
	ran := verdict{Mutant: report.Mutant{Status: report.Killed, FailedTests: []string{"TestD"}, Failures: []report.Failure{{Test: "TestD", Message: "d"}}}, seen: evidence{failed: true}}
	got := merged(o, ran, reused)
	if got.Status != report.Killed || !slices.Equal(got.FailedTests, []string{"TestA/sub", "TestD"}) || got.Failures[0].Message != "a" {
		t.Errorf("merged: %s %v %v; want killed by TestA/sub (kept) and TestD (run)", got.Status, got.FailedTests, got.Failures)
	}
	passed := newVerdict()
	if got := merged(o, passed, []string{"TestC"}); got.Status != report.Survived || len(got.FailedTests) != 0 {
		t.Errorf("merged with no kept failure: %s %v; want survived", got.Status, got.FailedTests)
	}
}
