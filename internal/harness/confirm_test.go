package harness

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/report"
)

// runs of the canned suite of writeModule (TestMax, TestDouble, TestSize),
// as test2json events.
func suiteRun(failing ...string) string {
	var b strings.Builder
	for _, test := range []string{"TestMax", "TestDouble", "TestSize"} {
		b.WriteString(`{"Action":"run","Test":"` + test + `"}` + "\n")
		if slices.Contains(failing, test) {
			b.WriteString(`{"Action":"output","Test":"` + test + `","Output":"    calc_test.go:6: wrong\n"}` + "\n")
			b.WriteString(`{"Action":"fail","Test":"` + test + `"}` + "\n")
			continue
		}
		b.WriteString(`{"Action":"pass","Test":"` + test + `"}` + "\n")
	}
	if len(failing) > 0 {
		b.WriteString(`{"Action":"fail"}` + "\n")
	} else {
		b.WriteString(`{"Action":"pass"}` + "\n")
	}
	return b.String()
}

// alone is the flag of a run of one top-level test.
func alone(test string) string { return runOnly([]string{test}) }

// underMutant answers the runs of mutant m: the whole suite with whole,
// and a run with one flag (such as alone's) with byFlag's events for it;
// the other runs are left to the canned events.
func underMutant(whole string, byFlag map[string]string) func(string, []string, int) (string, bool) {
	return func(active string, args []string, n int) (string, bool) {
		if active != "m" {
			return "", false
		}
		if len(args) == 0 {
			return whole, true
		}
		events, ok := byFlag[args[0]]
		return events, ok && len(args) == 1
	}
}

// hangsAlone is a run of test stopped at its limit.
func hangsAlone(test string) string {
	return `{"Action":"run","Test":"` + test + `"}` + "\nTIMEOUT\n"
}

var flipped = &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"}

// runCanned runs ms with r on the module of writeModule.
func runCanned(t *testing.T, r *canned, ms ...*mutation.Mutant) *report.Report {
	t.Helper()
	return prepareAndRun(t, testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Jobs: 1, NoCache: true, Runner: r})
}

// count returns how many runs r made with mutant active.
func (c *canned) count(active string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, a := range c.runs {
		if a == active {
			n++
		}
	}
	return n
}

// A test that fails under the mutant once, and passes when run again under
// it, is flaky: no killer. The mutant, whose only failure it was, runs
// once more, passes, and survives, with the test named.
func TestConfirm_AFlakyKillerIsNoKill(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun()}, respond: func(active string, args []string, n int) (string, bool) {
		if active == "m" && len(args) == 0 && n == 0 {
			return suiteRun("TestMax"), true
		}
		return "", false
	}}
	rep := runCanned(t, r, flipped)
	m := rep.Mutants[0]
	if m.Status != report.Survived || len(m.FailedTests) != 0 || !slices.Equal(m.FlakyTests, []string{"TestMax"}) {
		t.Fatalf("mutant = %s, failed %v, flaky %v; want survived, none failed, TestMax flaky", m.Status, m.FailedTests, m.FlakyTests)
	}
	// The suite, TestMax alone, the suite again (TestMax in its grouping),
	// then once more, whole.
	if got := r.count("m"); got != 4 {
		t.Errorf("%d runs of the mutant, want 4", got)
	}
	// Its two outcomes are reported as such, with the test involved.
	want := "TestMax failed in one run under it, and not when run again; a second run of the same tests passed: its outcome changes from run to run (the suite's own randomness, or the machine's load)"
	if m.Reason != want {
		t.Errorf("reason = %q,\nwant %q", m.Reason, want)
	}
	if got := describe(m, false); got != "survived: "+want {
		t.Errorf("describe() = %q, want the reason", got)
	}
	if got := rep.ExitCode(); got != report.ExitSurvived {
		t.Errorf("ExitCode() = %d, want %d: not detected, and no error of the run", got, report.ExitSurvived)
	}
}

// The first time a test's failure alone under a mutant would make it a
// killer, it runs alone without the mutant until it has passed
// TrustPasses runs alone (coverage's two count; here three more):
// passing each time, it kills every mutant it fails under, with no more
// checks; failing once, it is flaky for the whole run, and kills none (a
// test that fails alone by chance would otherwise kill whichever mutants
// it failed under twice).
func TestConfirm_AKillersPassAloneIsCheckedOnceMore(t *testing.T) {
	first := &mutation.Mutant{ID: "m1", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	second := &mutation.Mutant{ID: "m2", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a >= b", Operator: mutation.OpBoundary}
	for _, tc := range []struct {
		name       string
		failAt     int // the run of TestMax alone without a mutant that fails; -1: none
		wantStatus report.Status
		wantRuns   int // runs of TestMax alone without a mutant
	}{
		{"PassesEveryTime", -1, report.Killed, 2 + 3},
		{"FailsInTheSecondCheck", 3, report.Flaky, 2 + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &canned{
				events: map[string]string{"": suiteRun(), "m1": suiteRun("TestMax"), "m2": suiteRun("TestMax")},
				reach:  map[string][]string{"TestMax": {"m1", "m2"}},
				respond: func(active string, args []string, n int) (string, bool) {
					if active == "" && slices.Equal(args, []string{alone("TestMax")}) && n == tc.failAt {
						return suiteRun("TestMax"), true
					}
					return "", false
				},
			}
			rep := runCanned(t, r, first, second)
			for _, m := range rep.Mutants {
				wantFailed, wantFlaky := []string{"TestMax"}, []string(nil)
				if tc.wantStatus == report.Flaky {
					wantFailed, wantFlaky = []string{}, []string{"TestMax"}
				}
				if m.Status != tc.wantStatus || !slices.Equal(m.FailedTests, wantFailed) || !slices.Equal(m.FlakyTests, wantFlaky) {
					t.Errorf("%s = %s, failed %v, flaky %v; want %s, failed %v, flaky %v", m.ID, m.Status, m.FailedTests, m.FlakyTests, tc.wantStatus, wantFailed, wantFlaky)
				}
			}
			if got := r.seen[" "+alone("TestMax")]; got != tc.wantRuns {
				t.Errorf("%d runs of TestMax alone without a mutant, want %d", got, tc.wantRuns)
			}
		})
	}
}

// A flaky test runs only for the mutants it reaches when it passes: a
// mutant elsewhere could only make it fail by chance, and a verdict of
// "flaky" there would be a coin toss.
func TestCoverage_AFlakyTestRunsOnlyWhereItReaches(t *testing.T) {
	m := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	o := &mutation.Mutant{ID: "o", Target: "Double", Kind: mutation.Expr, Find: "x * 2", Replace: "x + 2", Operator: mutation.OpArithmetic}
	r := &canned{
		events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax"), "o": suiteRun()},
		reach:  map[string][]string{"TestMax": {"m"}, "TestDouble": {"o"}},
		respond: func(active string, args []string, n int) (string, bool) {
			if active == "" && slices.Equal(args, []string{alone("TestMax")}) && n == 1 {
				return suiteRun("TestMax"), true
			}
			return "", false
		},
	}
	rep := runCanned(t, r, m, o)
	if !slices.Equal(rep.FlakyTests, []string{"TestMax"}) {
		t.Fatalf("report's flaky tests = %v, want [TestMax]", rep.FlakyTests)
	}
	if got := rep.Mutants[1]; got.ID != "o" || got.Status != report.Survived || len(got.FlakyTests) != 0 {
		t.Errorf("o = %s %s, flaky %v; want survived, no flaky test (TestMax does not reach it)", got.ID, got.Status, got.FlakyTests)
	}
	for key := range r.seen {
		if strings.HasPrefix(key, "o ") && strings.Contains(key, "TestMax") {
			t.Errorf("a run of o ran TestMax: %q", key)
		}
	}
}

// A test that fails in both coverage runs alone runs alone again: passing
// once then, it is flaky (never a killer), not a test that needs the
// tests before it.
func TestCoverage_ATestThatFailsTwiceAloneIsCheckedAgain(t *testing.T) {
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	for _, tc := range []struct {
		name      string
		passAt    int // the run of TestMax alone without the mutant that passes; -1: none
		wantFlaky bool
	}{
		{"PassesInTheThirdRun", 2, true},
		{"PassesInTheLastRun", defaultPolicy.CoverPasses + defaultPolicy.CoverRecheck - 1, true},
		{"NeverPasses", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &canned{
				events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")},
				reach:  map[string][]string{"TestMax": {"m"}},
				respond: func(active string, args []string, n int) (string, bool) {
					if active == "" && slices.Equal(args, []string{alone("TestMax")}) && n != tc.passAt {
						return suiteRun("TestMax"), true
					}
					return "", false
				},
			}
			rep := runCanned(t, r, gen)
			if got := slices.Equal(rep.FlakyTests, []string{"TestMax"}); got != tc.wantFlaky {
				t.Errorf("report's flaky tests = %v, want TestMax flaky: %v", rep.FlakyTests, tc.wantFlaky)
			}
			want := defaultPolicy.CoverPasses + defaultPolicy.CoverRecheck
			if tc.passAt >= 0 {
				want = tc.passAt + 1
			}
			if got := r.seen[" "+alone("TestMax")]; got != want {
				t.Errorf("%d runs of TestMax alone without the mutant, want %d", got, want)
			}
		})
	}
}

// A test whose failure did not reproduce in the first attempt at a mutant
// is flaky for it: when, in the second attempt, it fails and then fails
// again alone, that is the chance of a flaky test, not a kill.
func TestConfirm_ATestFlakyForAMutantNeverKillsItLater(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun()}, respond: func(active string, args []string, n int) (string, bool) {
		switch {
		case active == "m" && len(args) == 0 && n%2 == 0: // each attempt's suite
			return suiteRun("TestMax"), true
		case active == "m" && slices.Equal(args, []string{alone("TestMax")}) && n == 1:
			return suiteRun("TestMax"), true // the second time alone
		}
		return "", false
	}}
	rep := runCanned(t, r, flipped)
	m := rep.Mutants[0]
	if m.Status != report.Flaky || len(m.FailedTests) != 0 || !slices.Equal(m.FlakyTests, []string{"TestMax"}) {
		t.Fatalf("mutant = %s, failed %v, flaky %v; want flaky, none failed, TestMax flaky", m.Status, m.FailedTests, m.FlakyTests)
	}
}

// A failure that reproduces, under the mutant alone and not without it,
// kills: and that kill is cached, while a verdict that saw a flaky test is
// not.
func TestConfirm_OnlyConfirmedVerdictsAreCached(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cache of its own
	flaky := &mutation.Mutant{ID: "flaky", Target: "Double", Kind: mutation.Expr, Find: "x * 2", Replace: "x * 3"}
	respond := func(active string, args []string, n int) (string, bool) {
		switch {
		case active == "m":
			return suiteRun("TestMax"), true
		case active == "flaky" && len(args) == 0 && n == 0:
			return suiteRun("TestDouble"), true
		}
		return "", false
	}
	dir := writeModule(t)
	first := &canned{events: map[string]string{"": suiteRun()}, respond: respond}
	cfg := testRun{Dir: dir, Package: ".", Mutants: []*mutation.Mutant{flipped, flaky}, Jobs: 1, Runner: first}
	rep := prepareAndRun(t, cfg)
	checkMutants(t, rep, []report.Mutant{
		{ID: "m", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}},
		{ID: "flaky", Status: report.Survived, Build: ModeSwitch, FailedTests: []string{}},
	})
	again := &canned{events: map[string]string{"": suiteRun()}, respond: respond}
	cfg.Runner = again
	rep = prepareAndRun(t, cfg)
	if again.count("m") != 0 || again.count("flaky") == 0 {
		t.Fatalf("second run: %d runs of m, %d of flaky; want m from the cache and flaky run again", again.count("m"), again.count("flaky"))
	}
	if rep.Mutants[0].Status != report.Killed {
		t.Errorf("cached m = %s, want killed", rep.Mutants[0].Status)
	}
}

// A test that passes and fails when it runs alone with no mutant (coverage
// runs each test twice) is flaky: its failures under a mutant are never
// kills. A mutant whose only failure it is runs once more, and is then
// flaky, with no failing test to predict.
func TestConfirm_ATestFlakyWithoutTheMutantNeverKills(t *testing.T) {
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	r := &canned{
		events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")},
		reach:  map[string][]string{"TestMax": {"m"}},
		respond: func(active string, args []string, n int) (string, bool) {
			if active == "" && slices.Equal(args, []string{alone("TestMax")}) && n == 1 {
				return suiteRun("TestMax"), true
			}
			return "", false
		},
	}
	rep := runCanned(t, r, gen)
	m := rep.Mutants[0]
	if m.Status != report.Flaky || len(m.FailedTests) != 0 || !slices.Equal(m.FlakyTests, []string{"TestMax"}) {
		t.Fatalf("mutant = %s, failed %v, flaky %v; want flaky, none failed, TestMax flaky", m.Status, m.FailedTests, m.FlakyTests)
	}
	if !slices.Equal(rep.FlakyTests, []string{"TestMax"}) {
		t.Errorf("report's flaky tests = %v, want [TestMax]", rep.FlakyTests)
	}
	if err := predict.Comparable(rep); err == nil {
		t.Error("predict.Comparable() = nil for a flaky mutant, want an error")
	}
	if got := rep.ExitCode(); got != report.ExitError {
		t.Errorf("ExitCode() = %d, want %d", got, report.ExitError)
	}
	// It says what was seen: the failure reproduced, and it fails without
	// the mutant too; not that no failure reproduced.
	want := "TestMax both passed and failed with no mutant active in this run, so its failures are no evidence"
	if m.Reason != want || describe(m, false) != "flaky: "+want {
		t.Errorf("reason = %q, described as %q; want %q", m.Reason, describe(m, false), want)
	}
}

// A run of the reference that its limit stopped says nothing of a test
// that passed in the baseline: it was slowed down (a loaded machine), and
// runs once more with a longer limit before the failure is judged.
func TestConfirm_AReferenceRunStoppedAtItsLimitRunsAgain(t *testing.T) {
	slow := `{"Action":"run","Test":"TestMax"}
TIMEOUT
`
	r := &canned{events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")}, respond: func(active string, args []string, n int) (string, bool) {
		if active == "" && slices.Equal(args, []string{alone("TestMax")}) && n == 0 {
			return slow, true
		}
		return "", false
	}}
	rep := runCanned(t, r, flipped)
	checkMutants(t, rep, []report.Mutant{{ID: "m", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}}})
	if got := r.seen[" "+alone("TestMax")]; got < 2 {
		t.Errorf("%d runs of TestMax alone without the mutant, want it stopped at the limit, then run again", got)
	}
}

// A test that fails under the mutant only after the tests before it (not
// alone) kills when it fails again in the same grouping, and passes there
// without the mutant.
func TestConfirm_AFailureThatNeedsTheTestsBeforeItKillsInItsGrouping(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun()}, respond: func(active string, args []string, n int) (string, bool) {
		if active == "m" && len(args) == 0 {
			return suiteRun("TestSize"), true
		}
		return "", false
	}}
	rep := runCanned(t, r, flipped)
	checkMutants(t, rep, []report.Mutant{{ID: "m", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestSize"}}})
	if got := r.count("m"); got != 3 {
		t.Errorf("%d runs of the mutant, want 3 (the suite, TestSize alone, the suite again)", got)
	}
}

// hang is a run stopped at its limit after TestMax failed, while
// TestDouble ran.
const hang = `{"Action":"run","Test":"TestMax"}
{"Action":"fail","Test":"TestMax"}
{"Action":"run","Test":"TestDouble"}
TIMEOUT
`

// In a run of every test stopped at its limit after a test failed, each
// test that had not finished runs alone: one that is stopped again hangs,
// one that passes was held up, and the failing set is whole, whatever
// failed before the limit came.
func TestConfirm_AFailureThenAHangIsSettledTestByTest(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")},
		respond: underMutant(hang, map[string]string{alone("TestDouble"): hangsAlone("TestDouble"), alone("TestSize"): suiteRun()})}
	rep := runCanned(t, r, flipped)
	m := rep.Mutants[0]
	if m.Status != report.Timeout || m.Partial || !slices.Equal(m.FailedTests, []string{"TestMax"}) || !slices.Equal(m.Running, []string{"TestDouble"}) {
		t.Fatalf("mutant = %s, partial %v, failed %v, running %v; want a whole timeout, TestMax failed, TestDouble hung", m.Status, m.Partial, m.FailedTests, m.Running)
	}
	if want := "run alone, TestDouble did not finish within its own limit"; !strings.HasSuffix(m.Reason, want) {
		t.Errorf("reason = %q, want it to end %q", m.Reason, want)
	}
	err := predict.Comparable(rep)
	if err == nil || !strings.Contains(err.Error(), "mutants that timed out, do not compile or have flaky tests: m (timeout)") {
		t.Fatalf("predict.Comparable() = %v, want it to refuse the timeout of m", err)
	}
}

// A test that failed before the limit, but does not finish alone (it
// failed only after waiting longer than its own limit, as for a lock that
// is never released), hangs: whether it failed before the whole run's
// limit came depends on how fast the tests before it ran.
func TestConfirm_AFailureThatHangsAloneHangs(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun(), "m": suiteRun()},
		respond: underMutant(hang, map[string]string{alone("TestMax"): hangsAlone("TestMax")})}
	rep := runCanned(t, r, flipped)
	m := rep.Mutants[0]
	if m.Status != report.Timeout || m.Partial || len(m.FailedTests) != 0 || !slices.Equal(m.Running, []string{"TestMax"}) {
		t.Fatalf("mutant = %s, partial %v, failed %v, running %v; want a whole timeout, no test failed, TestMax hung", m.Status, m.Partial, m.FailedTests, m.Running)
	}
	if want := "run alone, TestMax did not finish within its own limit"; !strings.HasSuffix(m.Reason, want) {
		t.Errorf("reason = %q, want it to end %q", m.Reason, want)
	}
}

// A mutant that hangs many tests alone hangs most of the suite: after
// policy.SettleHangs of them, the others are not tried, and the set is
// partial.
func TestConfirm_SettlingStopsAfterEnoughHangs(t *testing.T) {
	pol := defaultPolicy
	pol.SettleHangs = 1
	r := &canned{events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")},
		respond: underMutant(hang, map[string]string{alone("TestDouble"): hangsAlone("TestDouble")})}
	rep := prepareAndRun(t, testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, NoCache: true, Runner: r, Policy: &pol})
	m := rep.Mutants[0]
	if m.Status != report.Timeout || !m.Partial || !slices.Equal(m.FailedTests, []string{"TestMax"}) || !slices.Equal(m.Running, []string{"TestDouble"}) {
		t.Fatalf("mutant = %s, partial %v, failed %v, running %v; want a partial timeout, TestMax failed, TestDouble hung", m.Status, m.Partial, m.FailedTests, m.Running)
	}
	if want := "run alone, TestDouble did not finish within its own limit; 1 other test not tried alone"; !strings.HasSuffix(m.Reason, want) {
		t.Errorf("reason = %q, want it to end %q", m.Reason, want)
	}
	if n := r.seen["m "+alone("TestSize")]; n != 0 {
		t.Errorf("TestSize ran alone under the mutant %d times, want 0", n)
	}
}

// A run of every test that was only slower than its limit, each test
// finishing alone, is a kill by the tests that fail.
func TestConfirm_ARunSlowerThanItsLimitIsKilledByItsFailingTests(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")}, respond: underMutant(hang, nil)}
	rep := runCanned(t, r, flipped)
	m := rep.Mutants[0]
	if m.Status != report.Killed || m.Partial || !slices.Equal(m.FailedTests, []string{"TestMax"}) || len(m.Running) != 0 {
		t.Fatalf("mutant = %s, partial %v, failed %v, running %v; want killed by TestMax, nothing hung", m.Status, m.Partial, m.FailedTests, m.Running)
	}
}

// An early-kill run stopped at its limit after a test failed is a timeout
// whose failing tests are partial, and no prediction is graded against it.
func TestConfirm_AFailureThenAHangInAnEarlyKillRunIsAPartialTimeout(t *testing.T) {
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	r := &canned{
		events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")},
		reach:  map[string][]string{"TestMax": {"m"}, "TestDouble": {"m"}},
		respond: func(active string, args []string, n int) (string, bool) {
			if active == "m" && slices.Contains(args, "-test.failfast") {
				return hang, true
			}
			return "", false
		},
	}
	rep := runCanned(t, r, gen)
	m := rep.Mutants[0]
	if m.Status != report.Timeout || !m.Partial || !slices.Equal(m.FailedTests, []string{"TestMax"}) || !slices.Equal(m.Running, []string{"TestDouble"}) {
		t.Fatalf("mutant = %s, partial %v, failed %v, running %v; want a partial timeout, TestMax failed, TestDouble running", m.Status, m.Partial, m.FailedTests, m.Running)
	}
	err := predict.Comparable(rep)
	if err == nil || !strings.Contains(err.Error(), "the failing tests are partial): m") {
		t.Fatalf("predict.Comparable() = %v, want it to refuse the partial set of m", err)
	}
}

// A generated mutant whose likeliest killer passes alone under it runs its
// covering tests together, in source order: a test that fails only after
// another is a kill. Its failure there is confirmed in that grouping.
func TestGenerated_ATestThatFailsOnlyAfterAnotherKillsInSourceOrder(t *testing.T) {
	first := &mutation.Mutant{ID: "m1", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a >= b", Operator: mutation.OpBoundary}
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	together := runOnly([]string{"TestMax", "TestSize"})
	r := &canned{
		events: map[string]string{"": suiteRun(), "m1": suiteRun("TestMax")},
		reach:  map[string][]string{"TestMax": {"m", "m1"}, "TestSize": {"m", "m1"}},
		respond: func(active string, args []string, n int) (string, bool) {
			if active == "m" && slices.Contains(args, together) {
				return suiteRun("TestSize"), true
			}
			return "", false
		},
	}
	rep := prepareAndRun(t, testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{first, gen}, Jobs: 1, NoCache: true, Runner: r})
	m := rep.Mutants[1]
	if m.Status != report.Killed || !slices.Equal(m.FailedTests, []string{"TestSize"}) {
		t.Fatalf("mutant = %s, failed %v; want killed by TestSize", m.Status, m.FailedTests)
	}
	// TestMax alone (m1's killer), then both together, stopped at the
	// first failure; TestSize alone passes, so its failure is confirmed
	// in its grouping.
	if got := r.seen["m "+alone("TestMax")+" -test.failfast"]; got != 1 {
		t.Errorf("%d runs of TestMax alone under m, want 1: the likeliest killer first", got)
	}
}

// crash is a run in which the binary died while TestMax and TestDouble
// ran, TestMax having printed a panic.
const crash = `{"Action":"run","Test":"TestMax"}
{"Action":"run","Test":"TestDouble"}
{"Action":"output","Test":"TestMax","Output":"panic: runtime error: integer divide by zero\n"}
`

// Of the tests running when the binary died, the one that dies again alone
// under the mutant kills it; the others were bystanders, and are neither
// killers nor flaky.
func TestConfirm_BystandersOfACrashAreNoKillers(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun()},
		respond: underMutant(crash, map[string]string{alone("TestMax"): `{"Action":"run","Test":"TestMax"}` + "\n"})}
	rep := runCanned(t, r, flipped)
	m := rep.Mutants[0]
	if m.Status != report.Killed || !slices.Equal(m.FailedTests, []string{"TestMax"}) || len(m.FlakyTests) != 0 {
		t.Fatalf("mutant = %s, failed %v, flaky %v; want killed by TestMax alone, nothing flaky", m.Status, m.FailedTests, m.FlakyTests)
	}
	if !strings.Contains(m.Failures[0].Message, "integer divide by zero") {
		t.Errorf("TestMax's message = %q, want its panic", m.Failures[0].Message)
	}
}

// A subtest running when a sibling's panic brought the binary down is
// confirmed without its siblings: run alone with them, it would be caught
// running again whenever their panic came first.
func TestConfirm_ASubtestRunningAtASiblingsPanicRunsWithoutItsSiblings(t *testing.T) {
	const died = `{"Action":"run","Test":"TestMax"}
{"Action":"run","Test":"TestMax/Small"}
{"Action":"run","Test":"TestMax/Large"}
{"Action":"output","Test":"TestMax/Small","Output":"panic: boom\n"}
{"Action":"fail","Test":"TestMax/Small"}
`
	r := &canned{events: map[string]string{"": suiteRun()}, respond: func(active string, args []string, n int) (string, bool) {
		switch {
		case active == "m" && (len(args) == 0 || slices.Equal(args, []string{alone("TestMax")})):
			return died, true
		case slices.Equal(args, []string{"-test.run=^TestMax$/^Large$"}):
			return `{"Action":"run","Test":"TestMax"}
{"Action":"run","Test":"TestMax/Large"}
{"Action":"pass","Test":"TestMax/Large"}
{"Action":"pass","Test":"TestMax"}
{"Action":"pass"}
`, true
		}
		return "", false
	}}
	rep := runCanned(t, r, flipped)
	m := rep.Mutants[0]
	if m.Status != report.Killed || !slices.Equal(m.FailedTests, []string{"TestMax", "TestMax/Small"}) || len(m.FlakyTests) != 0 {
		t.Fatalf("mutant = %s, failed %v, flaky %v; want killed by TestMax and TestMax/Small, TestMax/Large a bystander", m.Status, m.FailedTests, m.FlakyTests)
	}
	if got := r.seen["m -test.run=^TestMax$/^Large$"]; got != 1 {
		t.Errorf("%d runs of TestMax/Large alone under the mutant, want 1 (runs: %v)", got, r.seen)
	}
}

// A binary that dies again and again while tests run, none of which dies
// alone, crashed: detected, but by no test.
func TestConfirm_ACrashNoTestCausesAloneIsCrashed(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun()}, respond: underMutant(crash, nil)}
	rep := runCanned(t, r, flipped)
	m := rep.Mutants[0]
	if m.Status != report.Crashed || len(m.FailedTests) != 0 || len(m.FlakyTests) != 0 {
		t.Fatalf("mutant = %s, failed %v, flaky %v; want crashed, no test failed, nothing flaky", m.Status, m.FailedTests, m.FlakyTests)
	}
	if want := "the test binary exited with status 1 while TestDouble, TestMax ran, and again when run again; none of them fails alone"; m.Reason != want {
		t.Errorf("reason = %q, want %q", m.Reason, want)
	}
}

// After the mutants the reference runs once more: if it no longer passes,
// something a mutant's run left behind changed what the tests see, and
// the run stops with an error naming the mutants.
func TestRun_TheReferenceMustStillPassAfterTheMutants(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")}, respond: func(active string, args []string, n int) (string, bool) {
		// The baseline, the switched build with none active, its run for
		// trust, then the reference after the mutants.
		if active == "" && len(args) == 0 && n == 3 {
			return suiteRun("TestSize"), true
		}
		return "", false
	}}
	cfg := testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, NoCache: true, Runner: r}
	_, err := cfg.run(t)
	if err == nil || !strings.Contains(err.Error(), "run again after the mutants, no longer passes as the baseline did") ||
		!strings.Contains(err.Error(), "one of mutant m changed what the tests see") || !strings.HasSuffix(err.Error(), "\n  failed: TestSize") {
		t.Fatalf("Run() error = %v, want the reference's failure after mutant m", err)
	}
	var ae *ReferenceAfterError
	if !errors.As(err, &ae) || !slices.Equal(ae.Failed, []string{"TestSize"}) || !slices.Equal(ae.Mutants, []string{"m"}) || ae.Unfinished != nil {
		t.Errorf("Run() error = %#v, want a *ReferenceAfterError: TestSize failed after mutant m", err)
	}
}

// A crash in one test does not hide what the tests after it say: those
// that never started run again, and their failures join the set.
func TestConfirm_TheTestsACrashKeptFromRunningRunAfterIt(t *testing.T) {
	rest := runOnly([]string{"TestDouble", "TestSize"})
	r := &canned{events: map[string]string{"": suiteRun()}, respond: func(active string, args []string, n int) (string, bool) {
		switch {
		case active == "m" && len(args) == 0:
			// TestMax panics: nothing after it runs.
			return `{"Action":"run","Test":"TestMax"}` + "\n" + `{"Action":"output","Test":"TestMax","Output":"panic: boom\n"}` + "\n", true
		case active == "m" && slices.Equal(args, []string{alone("TestMax")}):
			return `{"Action":"run","Test":"TestMax"}` + "\n", true
		case active == "m" && (slices.Equal(args, []string{rest}) || slices.Equal(args, []string{alone("TestSize")})):
			return suiteRun("TestSize"), true
		}
		return "", false
	}}
	rep := runCanned(t, r, flipped)
	checkMutants(t, rep, []report.Mutant{{ID: "m", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax", "TestSize"}}})
	if m := rep.Mutants[0]; m.Partial || len(m.FlakyTests) != 0 {
		t.Errorf("partial %v, flaky %v; want a whole set, nothing flaky", m.Partial, m.FlakyTests)
	}
}

// cpuLimits returns the CPU limits of r's runs with active as the mutant.
func (c *canned) cpuLimits(active string) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var limits []time.Duration
	for i, a := range c.runs {
		if a == active {
			limits = append(limits, c.limits[i])
		}
	}
	return limits
}

// A mutant that spins is stopped once it has used ten times its tests'
// baseline time on every CPU, plus a second, of CPU time (here a second:
// the canned tests take no time), not at its wall limit: a loaded machine
// stretches a run's wall time, not its CPU time. The reference's own run
// of the same tests, which used none, confirms that the limit was not too
// tight.
func TestConfirm_ASpinningMutantStopsAtItsCPULimit(t *testing.T) {
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	r := &canned{
		events: map[string]string{"": suiteRun()},
		reach:  map[string][]string{"TestMax": {"m"}},
		cpu:    map[string]time.Duration{"m": time.Hour},
	}
	rep := runCanned(t, r, gen)
	m := rep.Mutants[0]
	if m.Status != report.Timeout || m.Reason != "stopped at the limit of 1s of CPU time while TestMax ran" {
		t.Fatalf("mutant = %s %q; want a timeout at the CPU limit of 1s while TestMax ran", m.Status, m.Reason)
	}
	if got, want := r.cpuLimits("m"), []time.Duration{cpuSlack}; !slices.Equal(got, want) {
		t.Errorf("CPU limits of the mutant's runs = %v, want %v (one run, not raised: the reference used none)", got, want)
	}
}

// The baseline's durations do not show all of a run's CPU time (the
// binary's start, a set-up done once by whichever test needs it first):
// a run stopped at its CPU limit when the reference's run of the same
// tests used more than a tenth of it runs again with ten times the
// reference's CPU time plus a second; one that then finishes is judged by
// its tests.
func TestConfirm_ACPULimitBelowTheReferencesOwnNeedIsRaised(t *testing.T) {
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	r := &canned{
		events: map[string]string{"": suiteRun()},
		reach:  map[string][]string{"TestMax": {"m"}},
		cpu:    map[string]time.Duration{"m": 3 * time.Second, "": 500 * time.Millisecond},
	}
	rep := runCanned(t, r, gen)
	if m := rep.Mutants[0]; m.Status != report.Survived || m.Reason != "" {
		t.Fatalf("mutant = %s %q; want survived (it needs 3s of CPU time, within ten times the reference's 0.5s plus 1s)", m.Status, m.Reason)
	}
	if got, want := r.cpuLimits("m"), []time.Duration{cpuSlack, 6 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("CPU limits of the mutant's runs = %v, want %v", got, want)
	}
}

// Once the reference's run of some tests is known, a mutant of the same
// tests starts with the CPU limit it asks for: the first mutant runs
// twice (stopped short, then again), the second once, with the same
// verdict.
func TestConfirm_AKnownReferenceSetsTheCPULimitAtOnce(t *testing.T) {
	first := &mutation.Mutant{ID: "m1", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	second := &mutation.Mutant{ID: "m2", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a >= b", Operator: mutation.OpBoundary}
	r := &canned{
		events: map[string]string{"": suiteRun()},
		reach:  map[string][]string{"TestMax": {"m1", "m2"}},
		cpu:    map[string]time.Duration{"m1": 3 * time.Second, "m2": 3 * time.Second, "": 500 * time.Millisecond},
	}
	rep := runCanned(t, r, first, second)
	for _, m := range rep.Mutants {
		if m.Status != report.Survived {
			t.Errorf("%s = %s %q; want survived (it needs 3s of CPU time, within ten times the reference's 0.5s plus 1s)", m.ID, m.Status, m.Reason)
		}
	}
	if got, want := r.cpuLimits("m1"), []time.Duration{cpuSlack, 6 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("CPU limits of m1's runs = %v, want %v", got, want)
	}
	if got, want := r.cpuLimits("m2"), []time.Duration{6 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("CPU limits of m2's runs = %v, want %v", got, want)
	}
}

// -timeout sets the limit of every run: no CPU limit then.
func TestConfirm_TimeoutFlagSetsNoCPULimit(t *testing.T) {
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	r := &canned{
		events: map[string]string{"": suiteRun()},
		reach:  map[string][]string{"TestMax": {"m"}},
		cpu:    map[string]time.Duration{"m": time.Hour},
	}
	rep := prepareAndRun(t, testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{gen}, Jobs: 1, NoCache: true, Runner: r, Timeout: time.Minute})
	if m := rep.Mutants[0]; m.Status != report.Survived {
		t.Fatalf("mutant = %s %q; want survived (no CPU limit stops it)", m.Status, m.Reason)
	}
	for _, limit := range r.cpuLimits("m") {
		if limit != 0 {
			t.Fatalf("CPU limits of the mutant's runs = %v, want none", r.cpuLimits("m"))
		}
	}
}

func TestTestsOf_NamesTheTestsOfARun(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "every test"},
		{[]string{"-test.failfast"}, "every test"},
		{[]string{runOnly([]string{"TestA", "TestB"})}, "TestA, TestB"},
		{[]string{runPath("TestA/sub")}, "TestA/sub"},
	} {
		if got := testsOf(tc.args); got != tc.want {
			t.Errorf("testsOf(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A generated mutant's run stops at its first failing test (failfast).
// When that failure does not reproduce, the run once more lets the other
// tests run first: one whose failure reproduces kills the mutant. A test
// that fails under the mutant only by chance (here, only in a run stopped
// at the first failure, as contention between goroutines may) never hides
// the test that fails every time.
func TestGenerated_AFailureThatDoesNotReproduceHidesNoKiller(t *testing.T) {
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	r := &canned{
		events: map[string]string{"": suiteRun()},
		reach:  map[string][]string{"TestMax": {"m"}, "TestDouble": {"m"}},
		respond: func(active string, args []string, n int) (string, bool) {
			if active != "m" {
				return "", false
			}
			included := func(test string) bool {
				for _, arg := range args {
					if pattern, ok := strings.CutPrefix(arg, "-test.run="); ok {
						return regexp.MustCompile(pattern).MatchString(test)
					}
				}
				return true
			}
			failfast := slices.Contains(args, "-test.failfast")
			var events strings.Builder
			failed := false
			for _, test := range []string{"TestMax", "TestDouble", "TestSize"} {
				if !included(test) {
					continue
				}
				events.WriteString(`{"Action":"run","Test":"` + test + `"}` + "\n")
				if test == "TestDouble" || test == "TestMax" && failfast {
					events.WriteString(`{"Action":"output","Test":"` + test + `","Output":"    calc_test.go:6: wrong\n"}` + "\n")
					events.WriteString(`{"Action":"fail","Test":"` + test + `"}` + "\n")
					failed = true
					if failfast {
						break
					}
					continue
				}
				events.WriteString(`{"Action":"pass","Test":"` + test + `"}` + "\n")
			}
			if failed {
				events.WriteString(`{"Action":"fail"}` + "\n")
			} else {
				events.WriteString(`{"Action":"pass"}` + "\n")
			}
			return events.String(), true
		},
	}
	rep := runCanned(t, r, gen)
	m := rep.Mutants[0]
	if m.Status != report.Killed || !slices.Equal(m.FailedTests, []string{"TestDouble"}) || !slices.Equal(m.FlakyTests, []string{"TestMax"}) {
		t.Fatalf("mutant = %s, failed %v, flaky %v (%s); want killed by TestDouble, TestMax flaky", m.Status, m.FailedTests, m.FlakyTests, m.Reason)
	}
	if got := rep.ExitCode(); got != report.ExitKilled {
		t.Errorf("ExitCode() = %d, want %d", got, report.ExitKilled)
	}
}

// Every run of the reference with no mutant counts toward a killer's
// passes (see references.trust): the baseline, the switched build's run of
// every test with no mutant active, and the run of every test that trust
// makes before the mutants are three; the run of TestMax alone that its
// failure is compared with is the fourth, so one more run alone makes it a
// killer.
func TestConfirm_TheSwitchedBuildsRunWithNoMutantCountsForTrust(t *testing.T) {
	r := &canned{events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")}}
	rep := runCanned(t, r, flipped)
	if m := rep.Mutants[0]; m.Status != report.Killed || !slices.Equal(m.FailedTests, []string{"TestMax"}) {
		t.Fatalf("mutant = %s, failed %v; want killed by TestMax", m.Status, m.FailedTests)
	}
	if got := r.seen[" "+alone("TestMax")]; got != 2 {
		t.Errorf("%d runs of TestMax alone without a mutant, want 2", got)
	}
	if got := r.seen[" "]; got != 4 {
		t.Errorf("%d runs of every test without a mutant, want 4: the baseline, the switched build's, the one for trust, the one after the mutants", got)
	}
}

// When more catalog mutants will run than it takes, the runs of every test
// before them are as many as trust needs (two more, side by side, after
// the baseline's and the switched build's): a killer's failure is then
// trusted with the one run it is compared with, and no mutant's killers
// run again alone for trust.
func TestConfirm_ManyCatalogMutantsNeedNoRunForTrustAlone(t *testing.T) {
	var ms []*mutation.Mutant
	for i, replace := range []string{"a < b", "a >= b", "a != b"} {
		ms = append(ms, &mutation.Mutant{ID: fmt.Sprint("m", i+1), Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: replace})
	}
	r := &canned{events: map[string]string{"": suiteRun(), "m1": suiteRun("TestMax"), "m2": suiteRun("TestMax"), "m3": suiteRun("TestMax")}}
	rep := runCanned(t, r, ms...)
	for _, m := range rep.Mutants {
		if m.Status != report.Killed || !slices.Equal(m.FailedTests, []string{"TestMax"}) {
			t.Errorf("%s = %s, failed %v; want killed by TestMax", m.ID, m.Status, m.FailedTests)
		}
	}
	if got := r.seen[" "+alone("TestMax")]; got != 1 {
		t.Errorf("%d runs of TestMax alone without a mutant, want 1: the one its failures are compared with", got)
	}
	if got := r.seen[" "]; got != 5 {
		t.Errorf("%d runs of every test without a mutant, want 5: the baseline, the switched build's, two for trust, the one after the mutants", got)
	}
}
