package harness

import (
	"slices"
	"testing"

	"github.com/fencelab/fencelab/internal/report"
)

// A package with no tests of its own runs against the tests of each
// package that uses it; each mutant keeps the most telling verdict, and
// the killers of every run that killed it.
func TestCombine_TheMostTellingVerdictOfEveryTester(t *testing.T) {
	run := func(tests []string, ms ...report.Mutant) *report.Report {
		r := &report.Report{Mutants: ms}
		r.Baseline.TestNames = tests
		return r
	}
	m := func(id string, s report.Status, failed ...string) report.Mutant {
		return report.Mutant{ID: id, Status: s, FailedTests: failed}
	}
	a := run([]string{"a:TestX"},
		m("eq", report.Survived), m("both", report.Killed, "a:TestX"), m("one", report.Survived), m("slow", report.Timeout), m("none", report.NotCovered))
	b := run([]string{"b:TestY", "b:TestZ"},
		m("eq", report.Equivalent), m("both", report.Killed, "b:TestY"), m("one", report.Killed, "b:TestZ"), m("slow", report.Killed, "b:TestY"), m("none", report.Survived))
	got := combine([]*report.Report{a, b})
	want := []report.Mutant{
		m("eq", report.Equivalent),
		m("both", report.Killed, "a:TestX", "b:TestY"),
		m("one", report.Killed, "b:TestZ"),
		m("slow", report.Killed, "b:TestY"),
		m("none", report.Survived),
	}
	for i, w := range want {
		g := got.Mutants[i]
		if g.ID != w.ID || g.Status != w.Status || !slices.Equal(g.FailedTests, w.FailedTests) {
			t.Errorf("mutant %s = %s %v, want %s %v", w.ID, g.Status, g.FailedTests, w.Status, w.FailedTests)
		}
	}
	if !slices.Equal(got.Baseline.TestNames, []string{"a:TestX", "b:TestY", "b:TestZ"}) || got.Baseline.Tests != 3 {
		t.Errorf("tests = %v (%d), want every run's", got.Baseline.TestNames, got.Baseline.Tests)
	}
	if a.Mutants[0].Status != report.Survived {
		t.Errorf("the first run's report changed: eq = %s", a.Mutants[0].Status)
	}
}
