package harness

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
)

// events parses test2json events, one per line, into a result that ended
// as exit and signal say.
func events(t *testing.T, exit int, signal string, lines ...string) *gotest.Result {
	t.Helper()
	res, err := gotest.Parse(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	res.ExitCode, res.Signal = exit, signal
	return res
}

func ev(action, test, output string) string {
	data, _ := json.Marshal(gotest.Event{Action: action, Test: test, Output: output})
	return string(data)
}

// The evidence rule, on canned runs of a suite whose baseline ran TestA
// and TestB.
func TestClassify_EvidenceRule(t *testing.T) {
	expected := []string{"TestA", "TestB"}
	passA := []string{ev("run", "TestA", ""), ev("pass", "TestA", "")}
	tests := []struct {
		name     string
		res      *gotest.Result
		timedOut bool
		status   report.Status
		failed   []string
		reason   string
		message  string // of the first failure
	}{
		{"AFailedTestKills", events(t, 1, "", append(passA,
			ev("run", "TestB", ""), ev("output", "TestB", "    b_test.go:3: got 1, want 2\n"), ev("fail", "TestB", ""), ev("fail", "", ""))...),
			false, report.Killed, []string{"TestB"}, "", "b_test.go:3: got 1, want 2"},
		{"EveryTestPassedSurvives", events(t, 0, "", append(passA, ev("run", "TestB", ""), ev("pass", "TestB", ""), ev("pass", "", ""))...),
			false, report.Survived, nil, "", ""},
		{"AFakeTimeoutLineIsOnlyOutput", events(t, 0, "", append(passA, ev("run", "TestB", ""),
			ev("output", "TestB", "panic: test timed out after 1s\n"), ev("pass", "TestB", ""), ev("pass", "", ""))...),
			false, report.Survived, nil, "", ""},
		{"ExitAtInitCrashed", events(t, 0, ""), false, report.Crashed, nil, "the test binary exited with status 0 before any test ran", ""},
		{"NoTestFilesIsNoKill", events(t, 0, "", ev("output", "", "testing: warning: no tests to run\n"), ev("pass", "", "")),
			false, report.Crashed, nil, "the test binary exited with status 0 before any test ran", ""},
		{"ExitBetweenTestsCrashed", events(t, 1, "", passA...),
			false, report.Crashed, nil, "the test binary exited with status 1 between tests: 1 of 2 never ran, TestB first", ""},
		{"FailingAfterEveryTestPassedCrashed", events(t, 1, "", append(passA, ev("run", "TestB", ""), ev("pass", "TestB", ""), ev("fail", "", ""))...),
			false, report.Crashed, nil, "the test binary exited with status 1 after every test passed", ""},
		{"DyingWhileATestRunsKillsItNamed", events(t, -1, "segmentation fault", append(passA, ev("run", "TestB", ""))...),
			false, report.Killed, []string{"TestB"}, "", "the test binary was killed by signal segmentation fault while this test ran"},
		{"HangIsATimeout", events(t, -1, "killed", append(passA, ev("run", "TestB", ""))...),
			true, report.Timeout, nil, "stopped at the limit of 5s while TestB ran", ""},
		{"AFailureBeforeAHangIsAPartialTimeout", events(t, -1, "killed", ev("run", "TestA", ""), ev("fail", "TestA", ""), ev("run", "TestB", "")),
			true, report.Timeout, []string{"TestA"}, "stopped at the limit of 5s while TestB ran", ""},
		{"SpinningIsATimeoutAtTheCPULimit", overCPU(events(t, -1, "killed", append(passA, ev("run", "TestB", ""))...)),
			true, report.Timeout, nil, "stopped at the limit of 1.5s of CPU time while TestB ran", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.TimedOut = tc.timedOut
			v := newVerdict()
			classify(&v, tc.res, nil, expected, limits{wall: 5 * time.Second, cpu: 1500 * time.Millisecond})
			r := v.Mutant
			if r.Status != tc.status || !slices.Equal(r.FailedTests, append([]string{}, tc.failed...)) || r.Reason != tc.reason {
				t.Fatalf("classify() = %s %v %q; want %s %v %q", r.Status, r.FailedTests, r.Reason, tc.status, tc.failed, tc.reason)
			}
			if r.FailedTests == nil || r.Failures == nil {
				t.Fatalf("FailedTests, Failures = %v, %v; want lists, never nil", r.FailedTests, r.Failures)
			}
			if want := tc.timedOut && len(tc.failed) > 0; r.Partial != want {
				t.Errorf("Partial = %v, want %v", r.Partial, want)
			}
			if tc.message != "" && r.Failures[0].Message != tc.message {
				t.Errorf("message = %q, want %q", r.Failures[0].Message, tc.message)
			}
		})
	}
}

// An early-kill run of some tests is stopped at TimeoutFactor times their
// baseline time plus the slack, never later than the whole suite's limit.
// overCPU returns res, stopped at its CPU limit.
func overCPU(res *gotest.Result) *gotest.Result {
	res.OverCPU = true
	return res
}

// What the code under test can fake is never a kill nor a survival: an
// outcome of a test that is not running, a second outcome, or a report of
// every test passed by a binary whose testing package never finished (it
// did in the baseline). A test that passed in the baseline and skips under
// the mutant keeps it from surviving.
func TestClassify_ForgeriesAndSkips(t *testing.T) {
	expected := []string{"TestA", "TestB"}
	base := events(t, 0, "", ev("run", "TestA", ""), ev("pass", "TestA", ""), ev("run", "TestB", ""), ev("pass", "TestB", ""), ev("pass", "", ""))
	base.Finished = true
	passAB := []string{ev("run", "TestA", ""), ev("pass", "TestA", ""), ev("run", "TestB", ""), ev("pass", "TestB", "")}
	tests := []struct {
		name     string
		res      *gotest.Result
		finished bool
		status   report.Status
		reason   string
		skipped  []string
	}{
		{"AFailOfATestNotRunning", events(t, 0, "", ev("run", "TestA", ""), ev("fail", "TestB", ""), ev("pass", "TestA", ""), ev("run", "TestB", ""), ev("pass", "TestB", ""), ev("pass", "", "")),
			true, report.Crashed, "the test binary printed a report that the testing package cannot have written (a fail of TestB, which had not started, was reported): the code under test wrote test framing", nil},
		{"AFailAfterAPass", events(t, 1, "", ev("run", "TestA", ""), ev("pass", "TestA", ""), ev("fail", "TestA", ""), ev("run", "TestB", ""), ev("pass", "TestB", ""), ev("fail", "", "")),
			true, report.Crashed, "the test binary printed a report that the testing package cannot have written (a fail of TestA was reported after its pass): the code under test wrote test framing", nil},
		{"APassThatNeverFinished", events(t, 0, "", append(passAB, ev("pass", "", ""))...),
			false, report.Crashed, "the test binary reported that every test passed and exited 0, but the testing package never finished its run: the code under test wrote the report, and ended the binary", nil},
		{"ASkipIsNoSurvival", events(t, 0, "", ev("run", "TestA", ""), ev("pass", "TestA", ""), ev("run", "TestB", ""), ev("skip", "TestB", ""), ev("pass", "", "")),
			true, report.Skipped, "no test failed, but 1 test that passed without the mutant skipped under it", []string{"TestB"}},
		{"EveryTestPassedSurvives", events(t, 0, "", append(passAB, ev("pass", "", ""))...),
			true, report.Survived, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.Finished = tc.finished
			v := newVerdict()
			classify(&v, tc.res, base, expected, limits{wall: 5 * time.Second})
			r := v.Mutant
			if r.Status != tc.status || r.Reason != tc.reason || !slices.Equal(r.SkippedTests, tc.skipped) || len(r.FailedTests) != 0 {
				t.Fatalf("classify() = %s %q, skipped %v, failed %v; want %s %q, skipped %v, none failed", r.Status, r.Reason, r.SkippedTests, r.FailedTests, tc.status, tc.reason, tc.skipped)
			}
		})
	}
}
