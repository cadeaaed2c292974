package harness

import (
	"fmt"
	"strings"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// classify records in v what res, the run of the test binary with the
// mutant active, shows (see evidence), and decides v's status from it,
// by the evidence rule: a mutant is killed only by a test that failed, or
// that was running when the binary died; it survives only if every
// top-level test of the baseline (expected) reported and none failed; a
// run that ends otherwise, with no test to blame, crashed. A run stopped
// at its limit is a timeout, whose failing tests, if some failed before,
// are partial. (The failures are confirmed afterwards, see
// mutantRun.confirm.)
//
// base is the baseline's run: a test that passed there and skips here is
// named (SkippedTests), and with no failure the mutant is skipped, not
// survived; and if the testing package finished its run there, a run that
// reports every test passed but did not finish crashed. A run whose events
// cannot be the testing package's (see gotest.Result.Forged) crashed too:
// it is never a kill by a test that passed, nor a survival.
func classify(v *verdict, res *gotest.Result, base *gotest.Result, expected []string, lim limits) {
	v.seen = evidence{}
	defer v.decide()
	failed, running := res.Failed(), res.Unfinished()
	switch {
	case res.Forged != "":
		v.seen.crash, v.Output = crashForged, res.Output
		v.Reason = "the test binary printed a report that the testing package cannot have written (" + res.Forged + "): the code under test wrote test framing"
	case res.Lost != "":
		v.seen.crash, v.Output = crashLost, res.Output
		v.Reason = res.Lost + ", killed from outside, twice: detected, but by no test"
	case res.TimedOut:
		v.seen.stop, v.Running, v.SpinsAlone = stopWall, running, res.OverCPU
		switch {
		case res.OverMemory:
			v.seen.stop = stopMemory
		case res.OverCPU:
			v.seen.stop = stopCPU
		}
		v.Reason = lim.stopped(res)
		if len(running) > 0 {
			v.Reason += " while " + strings.Join(running, ", ") + " ran"
		}
		for _, name := range failed {
			v.AddFailure(name, res.Message(name))
		}
		v.Partial = len(failed) > 0
	case len(failed) > 0 || len(running) > 0:
		v.seen.failed = true
		for _, name := range failed {
			v.AddFailure(name, res.Message(name))
		}
		// The binary ended while these tests ran, before they reported:
		// one of them, or what it started, ended it (see confirm).
		addDied(&v.Mutant, res, running)
		if len(running) > 0 {
			v.Output = res.Output
		}
	default:
		var missing []string
		for _, name := range expected {
			if t := res.Tests[name]; t == nil || t.Outcome == "" {
				missing = append(missing, name)
			}
		}
		switch {
		case len(missing) == len(expected) && len(expected) > 0:
			v.seen.crash, v.Reason = crashBeforeTests, fmt.Sprintf("the test binary %s before any test ran", res.Ended())
		case len(missing) > 0:
			v.seen.crash, v.Reason = crashBetweenTests, fmt.Sprintf("the test binary %s between tests: %d of %d never ran, %s first",
				res.Ended(), len(missing), len(expected), missing[0])
		case !passed(res):
			v.seen.crash, v.Reason = crashAfterPass, fmt.Sprintf("the test binary %s after every test passed", res.Ended())
		case base != nil && base.Finished && !res.Finished:
			v.seen.crash = crashUnfinished
			v.Reason = "the test binary reported that every test passed and exited 0, but the testing package never finished its run: the code under test wrote the report, and ended the binary"
		default:
			if v.SkippedTests = skippedNow(res, base); len(v.SkippedTests) > 0 {
				v.seen.skipped = true
				v.Reason = fmt.Sprintf("no test failed, but %s that passed without the mutant skipped under it", text.Count(len(v.SkippedTests), "test", "tests"))
			}
			return
		}
		v.Output = res.Output
	}
}

// addDied adds the tests of res that were running when its binary died to
// r's failures and to r.Running.
func addDied(r *report.Mutant, res *gotest.Result, running []string) {
	for _, name := range running {
		r.AddFailure(name, diedMessage(res, name))
		r.Running = append(r.Running, name)
	}
}

// diedMessage is the failure of test name, running when res's binary
// ended: what it printed, and how the binary ended.
func diedMessage(res *gotest.Result, name string) string {
	msg := fmt.Sprintf("the test binary %s while this test ran", res.Ended())
	if own := res.Message(name); own != "" {
		msg = own + "\n" + msg
	}
	return msg
}

// skippedNow returns, sorted, the tests that skipped in res and passed in
// base.
func skippedNow(res, base *gotest.Result) []string {
	if base == nil {
		return nil
	}
	var names []string
	for _, name := range res.Names() {
		if t := base.Tests[name]; t != nil && t.Outcome == gotest.Pass && res.Tests[name].Outcome == gotest.Skip {
			names = append(names, name)
		}
	}
	return names
}

// passed reports whether a run passed as a whole: the binary said PASS and
// exited 0, and no test failed or was cut short.
func passed(res *gotest.Result) bool {
	return res.Passed && res.ExitCode == 0 && !res.TimedOut && len(res.Failed()) == 0 && len(res.Unfinished()) == 0
}

// describe says in a few words what became of a mutant, for its progress
// line; of one whose failing tests are an answer to predict, not by how
// many tests it was killed.
func describe(r report.Mutant, answer bool) string {
	switch {
	case r.Status == report.Killed && answer:
		return "killed"
	case r.Status == report.Killed:
		return fmt.Sprintf("killed by %d %s", len(r.FailedTests), text.Plural(len(r.FailedTests), "test", "tests"))
	case r.Status == report.Crashed, r.Status == report.Timeout, r.Status == report.OutOfMemory:
		return fmt.Sprintf("%s: %s", r.Status, r.Reason)
	case r.Status == report.Flaky && r.Reason != "":
		return "flaky: " + r.Reason
	case r.Status == report.Flaky:
		return fmt.Sprintf("flaky: no failure reproduced (%s)", strings.Join(r.FlakyTests, ", "))
	case r.Status == report.Survived && len(r.FlakyTests) > 0 && r.Reason != "":
		return "survived: " + r.Reason
	}
	return string(r.Status)
}
