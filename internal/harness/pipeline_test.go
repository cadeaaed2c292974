package harness

import (
	"slices"
	"strings"
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

// Runs against different testers need not hold the same mutants, nor in
// the same order (a first stage stopped one of them, see Options.First):
// each mutant is matched by its id, and one that ran against some of the
// testers keeps what they gave.
func TestCombine_MatchesMutantsByID(t *testing.T) {
	a := &report.Report{Mutants: []report.Mutant{
		{ID: "both", Status: report.Survived},
		{ID: "onlyA", Status: report.Killed, FailedTests: []string{"a:TestX"}},
	}}
	b := &report.Report{Mutants: []report.Mutant{
		{ID: "onlyB", Status: report.Survived},
		{ID: "both", Status: report.Killed, FailedTests: []string{"b:TestY"}},
	}}
	got := combine([]*report.Report{a, b})
	var ids []string
	for _, m := range got.Mutants {
		ids = append(ids, m.ID+" "+string(m.Status)+" "+strings.Join(m.FailedTests, ","))
	}
	want := []string{"both killed b:TestY", "onlyA killed a:TestX", "onlyB survived "}
	if !slices.Equal(ids, want) {
		t.Errorf("combine() = %q, want %q", ids, want)
	}
}
