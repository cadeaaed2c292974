package harness

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/report"
)

// ranTests returns the top-level tests a run with args runs, of those of
// suiteRun: those its -test.run names, or all.
func ranTests(args []string) []string {
	all := []string{"TestMax", "TestDouble", "TestSize"}
	for _, arg := range args {
		if list, ok := strings.CutPrefix(arg, "-test.run=^(?:"); ok {
			return strings.Split(strings.TrimSuffix(list, ")$"), "|")
		}
	}
	return all
}

// suiteOf is suiteRun for the tests a run with args runs.
func suiteOf(args []string, failing ...string) string {
	ran := ranTests(args)
	out := suiteRun(failing...)
	var keep []string
	for line := range strings.Lines(out) {
		test, _, _ := strings.Cut(strings.TrimPrefix(line, `{"Action":"`), `"}`)
		_, name, found := strings.Cut(test, `"Test":"`)
		if found && !slices.Contains(ran, name) {
			continue
		}
		keep = append(keep, line)
	}
	if !slices.ContainsFunc(failing, func(f string) bool { return slices.Contains(ran, f) }) {
		keep[len(keep)-1] = `{"Action":"pass"}` + "\n"
	}
	return strings.Join(keep, "")
}

// A catalog mutant runs the tests that reach its site, to the end, when
// the run measures coverage: its failing tests are those of a run of the
// whole suite, and a mutant that no test reaches is not-covered without a
// run. With -full, each runs every test.
func TestCoverage_ACatalogMutantRunsTheTestsThatReachIt(t *testing.T) {
	unreached := &mutation.Mutant{ID: "d", Target: "Double", Kind: mutation.Expr, Find: "x * 2", Replace: "x * 3"}
	pol := defaultPolicy
	pol.CoverPays = 0 // always narrows
	for _, full := range []bool{false, true} {
		mu := make(chan struct{}, 1)
		args := map[string][][]string{}
		r := &canned{
			reach: map[string][]string{"TestMax": {"m"}},
			respond: func(active string, a []string, n int) (string, bool) {
				mu <- struct{}{}
				args[active] = append(args[active], a)
				<-mu
				if active == "m" {
					return suiteOf(a, "TestMax"), true
				}
				return suiteOf(a), true
			},
		}
		rep := prepareAndRun(t, testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{flipped, unreached}, Jobs: 1, NoCache: true, Full: full, Policy: &pol, Runner: r})
		if !full {
			checkMutants(t, rep, []report.Mutant{
				{ID: "m", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}},
				{ID: "d", Status: report.NotCovered, Build: ModeSwitch, FailedTests: []string{}},
			})
			if first := args["m"][0]; !slices.Equal(first, []string{alone("TestMax")}) {
				t.Errorf("m's first run with %q, want TestMax alone, the test that reaches it", first)
			}
			if len(args["d"]) != 0 {
				t.Errorf("d ran %d times, want none: no test reaches it", len(args["d"]))
			}
			if got := rep.Mutants[0].CoveredBy; !slices.Equal(got, []string{"TestMax"}) {
				t.Errorf("m covered by %v, want [TestMax]", got)
			}
			continue
		}
		checkMutants(t, rep, []report.Mutant{
			{ID: "m", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}},
			{ID: "d", Status: report.Survived, Build: ModeSwitch, FailedTests: []string{}},
		})
		if first := args["m"][0]; len(first) != 0 {
			t.Errorf("-full: m's first run with %q, want every test", first)
		}
	}
}

// Coverage pays for a catalog alone when the catalog's runs of the whole
// suite would take more than CoverPays times what coverage costs: a few
// slow tests and many mutants, not many fast tests and few mutants.
func TestCoverage_PaysForACatalogOnlyWhenTheSuiteIsSlowEnough(t *testing.T) {
	baseline := func(wall float64, elapsed ...float64) *Baseline {
		res := &gotest.Result{Tests: map[string]*gotest.Test{}, Wall: wall}
		for i, e := range elapsed {
			res.Tests["Test"+strings.Repeat("x", i+1)] = &gotest.Test{Name: "Test" + strings.Repeat("x", i+1), Outcome: gotest.Pass, Elapsed: e}
		}
		return &Baseline{Result: res}
	}
	cfg := config{}
	slow := baseline(10.2, 2, 2, 2, 2, 2) // 5 tests of 2 s; 0.2 s beside them (a run's cost)
	fast := baseline(1.0, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01)
	parallel := baseline(1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5) // 5 s of tests in 1 s
	for _, tc := range []struct {
		name string
		n    int
		b    *Baseline
		want bool
	}{
		// 8 x 10.2 s = 81.6 s > 3 x 2 x (10 + 5 x 0.2) = 66 s
		{"8 mutants, slow tests", 8, slow, true},
		// 6 x 10.2 s = 61.2 s < 66 s
		{"6 mutants, slow tests", 6, slow, false},
		// 100 x 1.0 s = 100 s > 3 x 2 x (0.1 + 10 x 0.9) = 54.6 s
		{"100 mutants, fast tests", 100, fast, true},
		// 8 x 1.0 s = 8 s < 54.6 s
		{"8 mutants, fast tests", 8, fast, false},
		// 8 x 1.0 s = 8 s < 3 x 2 x (5 + 10 x 0.02) = 31.2 s
		{"8 mutants, parallel tests", 8, parallel, false},
		// 40 x 1.0 s = 40 s > 31.2 s
		{"40 mutants, parallel tests", 40, parallel, true},
	} {
		if got := coveragePays(cfg, tc.n, tc.b); got != tc.want {
			t.Errorf("%s: coveragePays() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// lease's catalog kills with the same tests whether each mutant runs the
// tests that reach its site or the whole suite: the narrowed run is
// exact against predictions/example.yaml, the model answer, which the
// gate's run of the whole suite is exact against too (cmd/mutate's
// run_lease script). Every failing test of a mutant reaches its site:
// lease's tests share no state.
//
// It runs lease's catalog once more, beside cmd/mutate's gate: 35 s of CPU
// that CI's five minutes do not hold. MUTATE_LEASE_NARROWED=1 runs it.
func TestCoverage_LeasesCatalogKillsWithTheSameTestsNarrowed(t *testing.T) {
	skipShort(t)
	if os.Getenv("MUTATE_LEASE_NARROWED") == "" {
		t.Skip("lease's catalog narrowed: MUTATE_LEASE_NARROWED=1 go test -run TestCoverage_LeasesCatalogKillsWithTheSameTestsNarrowed ./internal/harness")
	}
	s, err := exercise.Load("../..", []string{"../../mutants/catalog.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	pol := defaultPolicy
	pol.CoverPays = 0 // always narrows
	rep := prepareAndRun(t, testRun{Dir: "../..", Package: "./lease", Mutants: s.Mutants, Jobs: 2, NoCache: true, Policy: &pol})
	narrowed := 0
	for _, m := range rep.Mutants {
		if len(m.CoveredBy) > 0 && len(m.CoveredBy) < len(rep.Baseline.TestNames) {
			narrowed++
		}
	}
	if narrowed == 0 {
		t.Fatal("no mutant ran a part of the suite: the rule was not applied")
	}
	model, err := predict.Load("../../predictions/example.yaml", predict.KnownOf(rep), false)
	if err != nil {
		t.Fatal(err)
	}
	score := predict.Compare(model, rep, predict.CreditExact)
	if score.Exact != score.Total || score.Total != len(s.Mutants) {
		for _, o := range score.Matches {
			t.Logf("%+v", o)
		}
		t.Fatalf("narrowed run: %d of %d exact against the model answer, want all %d", score.Exact, score.Total, len(s.Mutants))
	}
}
