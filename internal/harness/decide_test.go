package harness

import (
	"testing"

	"github.com/fencelab/fencelab/internal/report"
)

// Each status of a mutant comes from one rule of decide, and when steps
// saw more than one thing, the order of the rules says which wins: a
// mutant that did not build has no run to judge; one that no test
// reaches, none either; a binary that ended with no test to blame, or
// that a limit stopped, is no kill even if tests failed before; and a
// failure that never reproduced is no kill either.
func TestDecide_OneRuleForEachStatusInOneOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		seen evidence
		want report.Status
	}{
		{"nothing seen: every test passed", evidence{}, report.Survived},
		{"a test failed", evidence{failed: true}, report.Killed},
		{"a test that passed without the mutant skipped", evidence{skipped: true}, report.Skipped},
		{"a test failed, another skipped", evidence{failed: true, skipped: true}, report.Killed},
		{"failures that never reproduced", evidence{failed: true, unconfirmed: true}, report.Flaky},
		{"stopped at the wall limit", evidence{stop: stopWall}, report.Timeout},
		{"stopped at the CPU limit", evidence{stop: stopCPU}, report.Timeout},
		{"stopped at the memory limit", evidence{stop: stopMemory}, report.OutOfMemory},
		{"stopped after a failure (partial)", evidence{stop: stopWall, failed: true}, report.Timeout},
		{"stopped, failures unconfirmed", evidence{stop: stopWall, unconfirmed: true}, report.Timeout},
		{"forged framing", evidence{crash: crashForged}, report.Crashed},
		{"killed from outside", evidence{crash: crashLost}, report.Crashed},
		{"ended before any test", evidence{crash: crashBeforeTests}, report.Crashed},
		{"ended between tests", evidence{crash: crashBetweenTests}, report.Crashed},
		{"failed after every test passed", evidence{crash: crashAfterPass}, report.Crashed},
		{"never finished its run", evidence{crash: crashUnfinished}, report.Crashed},
		{"died again with bystanders", evidence{crash: crashBystanders, failed: true}, report.Crashed},
		{"crashed and stopped", evidence{crash: crashForged, stop: stopWall}, report.Crashed},
		{"no test reaches the site", evidence{unreached: true}, report.NotCovered},
		{"no test reaches the site, though one failed", evidence{unreached: true, failed: true}, report.NotCovered},
		{"equivalent to the reference", evidence{equivalent: true}, report.Equivalent},
		{"equivalent, and unreached", evidence{equivalent: true, unreached: true}, report.Equivalent},
		{"did not build", evidence{unbuilt: true}, report.BuildFailed},
		{"did not build, and all else", evidence{unbuilt: true, equivalent: true, unreached: true, crash: crashLost, stop: stopMemory, failed: true}, report.BuildFailed},
	} {
		if got := decide(tc.seen); got != tc.want {
			t.Errorf("%s: decide(%+v) = %s, want %s", tc.name, tc.seen, got, tc.want)
		}
	}
}

// Every status of report's table is decided here: one that decide cannot
// give would be a status no run reaches, or one decided elsewhere.
func TestDecide_GivesEveryStatus(t *testing.T) {
	given := map[report.Status]bool{}
	for _, e := range []evidence{
		{}, {failed: true}, {skipped: true}, {unconfirmed: true}, {stop: stopWall}, {stop: stopMemory},
		{crash: crashLost}, {unreached: true}, {equivalent: true}, {unbuilt: true},
	} {
		given[decide(e)] = true
	}
	for _, s := range report.Statuses() {
		if !given[s] {
			t.Errorf("no evidence gives %s", s)
		}
	}
	if len(given) != len(report.Statuses()) {
		t.Errorf("decide gives %d statuses, the table has %d", len(given), len(report.Statuses()))
	}
}
