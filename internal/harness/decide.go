package harness

import "github.com/fencelab/fencelab/internal/report"

// A mutant's status is decided here, and nowhere else: the steps of its
// run (the build, coverage, each run of its tests, the confirmation of
// their failures, the run once more, per-test reuse, the compiler's
// equivalence) each record what they saw in its evidence, and decide
// turns the evidence into a status by one order of precedence. The
// reasons and the failing tests stay with the steps that found them.

// evidence is what the steps of a mutant's run saw.
type evidence struct {
	unbuilt    bool // the mutant did not compile
	equivalent bool // it compiles to the reference's code
	unreached  bool // no test reaches its site
	// crash is how the test binary ended with no test to blame, if it did.
	crash crashKind
	// stop is the limit that stopped the run, if one did and a test hangs
	// (or was not tried) alone.
	stop stopKind
	// unconfirmed: tests failed, and no failure reproduced in two
	// attempts.
	unconfirmed bool
	// failed: tests failed, or were running when the binary died; once
	// confirmed, only those whose failures reproduced.
	failed bool
	// skipped: tests that passed without the mutant skipped under it.
	skipped bool
}

// crashKind is how a test binary ended that no test is to blame for.
type crashKind int

const (
	noCrash crashKind = iota
	// crashForged: it printed a report that the testing package cannot
	// have written.
	crashForged
	// crashLost: it was killed from outside, twice.
	crashLost
	// crashBeforeTests, crashBetweenTests: it ended before any test ran,
	// or with some never run.
	crashBeforeTests
	crashBetweenTests
	// crashAfterPass: it failed after every test passed.
	crashAfterPass
	// crashUnfinished: it reported that every test passed and exited 0,
	// but the testing package never finished its run.
	crashUnfinished
	// crashBystanders: it died again while tests ran that pass alone.
	crashBystanders
)

// stopKind is the limit that stopped a run.
type stopKind int

const (
	noStop stopKind = iota
	stopWall
	stopCPU
	stopMemory
)

// decide returns the status that e bears.
func decide(e evidence) report.Status {
	switch {
	case e.unbuilt:
		return report.BuildFailed
	case e.equivalent:
		return report.Equivalent
	case e.unreached:
		return report.NotCovered
	case e.crash != noCrash:
		return report.Crashed
	case e.stop == stopMemory:
		return report.OutOfMemory
	case e.stop != noStop:
		return report.Timeout
	case e.unconfirmed:
		return report.Flaky
	case e.failed:
		return report.Killed
	case e.skipped:
		return report.Skipped
	}
	return report.Survived
}

// verdict is a mutant's result while its run goes on, with the evidence
// its status is decided from.
type verdict struct {
	report.Mutant
	seen evidence
}

// newVerdict returns the verdict of a run that has seen nothing yet.
func newVerdict() verdict {
	v := verdict{Mutant: report.Mutant{FailedTests: []string{}, Failures: []report.Failure{}}}
	v.decide()
	return v
}

// decide sets v's status from what v has seen.
func (v *verdict) decide() { v.Status = decide(v.seen) }
