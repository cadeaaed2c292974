package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// copyShop copies the fixture module testdata/shop to a temporary
// directory.
func copyShop(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "shop.go", "shop_test.go"} {
		data, err := os.ReadFile(filepath.Join("testdata", "shop", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runShop runs every generated mutant of the fixture in mode.
func runShop(t *testing.T, dir string, mode Mode, full bool) *report.Report {
	t.Helper()
	src, err := mutation.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A limit of its own: one mutant loops for ever.
	return prepareAndRun(t, testRun{Dir: dir, Package: ".", Mutants: src.Generate(), Mode: mode, Full: full, Jobs: 2, NoCache: true, Timeout: 2 * time.Second})
}

// Selecting the tests by coverage and stopping generated mutants at their
// first failing test change no verdict: on every generated mutant of the
// fixture, a switched run (coverage, early kill) and overlay runs of every
// test to the end agree on the status (a mutant no test reaches is
// not-covered rather than survived), the early kill's failing tests are
// among the full run's, and every test that fails in the full run reaches
// the mutant's site.
func TestGenerated_CoverageAndEarlyKillAgreeWithFullOverlayRuns(t *testing.T) {
	skipShort(t)
	dir := copyShop(t)
	fast := runShop(t, dir, ModeSwitch, false)
	full := runShop(t, dir, ModeOverlay, true)
	if len(fast.Mutants) != len(full.Mutants) || len(fast.Mutants) < 15 {
		t.Fatalf("%d and %d mutants, want the same, at least 15", len(fast.Mutants), len(full.Mutants))
	}
	statuses := map[report.Status]int{}
	for i, f := range fast.Mutants {
		o := full.Mutants[i]
		statuses[f.Status]++
		want := o.Status
		if f.Status == report.NotCovered && o.Status == report.Survived {
			want = report.NotCovered
		}
		if f.Status != want {
			t.Errorf("%s: %s with coverage and early kill, %s in full overlay runs", f.ID, f.Status, o.Status)
		}
		for _, name := range f.FailedTests {
			if !slices.Contains(o.FailedTests, name) {
				t.Errorf("%s: %s failed in the early kill only (full run: %v)", f.ID, name, o.FailedTests)
			}
		}
		for _, name := range o.FailedTests {
			top, _, _ := strings.Cut(name, "/")
			if f.Build == ModeSwitch && !slices.Contains(f.CoveredBy, top) {
				t.Errorf("%s: %s fails under it but is not among the tests that reach it, %v", f.ID, top, f.CoveredBy)
			}
		}
		if f.Status == report.Killed && f.Generated() && len(f.FailedTests) > len(o.FailedTests) {
			t.Errorf("%s: the early kill has more failing tests than the full run", f.ID)
		}
		if wantEarly := f.Status == report.Killed && f.Generated(); f.FirstFailureOnly != wantEarly || o.FirstFailureOnly {
			t.Errorf("%s: first_failure_only %t with early kill, %t in full runs; want %t, false", f.ID, f.FirstFailureOnly, o.FirstFailureOnly, wantEarly)
		}
	}
	// The fixture has survivors, a function no test calls, a line no test
	// reaches, and a loop that never ends.
	if statuses[report.Survived] == 0 || statuses[report.NotCovered] != 4 || statuses[report.Timeout] != 1 {
		t.Errorf("statuses %v, want some survived, 4 not-covered (Tax's and Refund's minus), 1 timeout", statuses)
	}
	for _, m := range fast.Mutants {
		if (strings.HasPrefix(m.ID, "tax-") || m.ID == "refund-negative-1") && m.Status != report.NotCovered {
			t.Errorf("%s is %s, want not-covered: no test reaches it", m.ID, m.Status)
		}
		if m.ID == "total-boundary-1" && !slices.Equal(m.CoveredBy, []string{"TestTotal_DiscountFromTheThreshold", "TestTotal_NoDiscountBelowTheThreshold"}) {
			t.Errorf("total-boundary-1 is covered by %v, want the two tests of Total", m.CoveredBy)
		}
	}
}

// A generated mutant that cannot be switched in (an array's length must be
// a constant) gets a build of its own, and a mark at the top of its
// function in the switched build: coverage knows that no test calls Pad,
// so it is not-covered, as it would be if it were switched, and it is
// never built; with -full too, where it runs every test.
func TestGenerated_AMutantOutOfTheSwitchedBuildIsStillCovered(t *testing.T) {
	skipShort(t)
	ms := []*mutation.Mutant{
		{ID: "pad", Target: "Pad", Kind: mutation.Expr, Find: "size * 2", Replace: "size / 2", Operator: mutation.OpArithmetic},
		{ID: "max", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a >= b", Operator: mutation.OpBoundary},
	}
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("full=%v", full), func(t *testing.T) {
			rep := prepareAndRun(t, testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Full: full, Jobs: 2, NoCache: true})
			checkMutants(t, rep, []report.Mutant{
				{ID: "pad", Status: report.NotCovered, Build: ModeOverlay, FailedTests: []string{}},
				{ID: "max", Status: report.Survived, Build: ModeSwitch, FailedTests: []string{}},
			})
			if got := rep.Mutants[1].CoveredBy; !slices.Equal(got, []string{"TestMax"}) {
				t.Errorf("max is covered by %v, want [TestMax]", got)
			}
		})
	}
}

// An early-kill mutant runs first, alone, the likeliest killer: the
// fastest test that killed a mutant of its line, or else of its function;
// then the other fast tests; then every test together, in source order
// (as a test binary runs them).
func TestKillers_PhasesTryTheNearestKillerAloneThenEveryTest(t *testing.T) {
	k := newKillers()
	tests := []string{"TestA", "TestSlow", "TestB", "TestC"}
	durations := map[string]float64{"TestA": 0.01, "TestSlow": 2, "TestB": 0.02, "TestC": 0.5}
	if got, want := k.phases("F", 3, tests, durations), [][]string{{"TestA", "TestB"}, tests}; !reflect.DeepEqual(got, want) {
		t.Errorf("phases before any kill = %v, want %v", got, want)
	}
	k.record("F", 3, []string{"TestC/sub", "TestSlow"})
	k.record("F", 9, []string{"TestB"})
	k.record("G", 1, []string{"TestA"})
	for _, tc := range []struct {
		line int
		want [][]string
	}{
		{3, [][]string{{"TestC"}, {"TestA", "TestB"}, tests}}, // the faster of its line's killers
		{9, [][]string{{"TestB"}, {"TestA"}, tests}},
		{5, [][]string{{"TestB"}, {"TestA"}, tests}}, // the fastest of its function's
	} {
		if got := k.phases("F", tc.line, tests, durations); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("phases of a mutant of F at line %d = %v, want %v", tc.line, got, tc.want)
		}
	}
	if got, want := k.phases("G", 1, []string{"TestA"}, durations), [][]string{{"TestA"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("phases of G = %v, want one phase, no empty ones: %v", got, want)
	}
}
