package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/text"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// runMutant runs the suite against one mutant: the switched binary with
// the mutant active, or a build of its own, made under dir.
//
// A generated mutant (unless cfg.Full) runs only the tests that reach its
// site, none when none does (not-covered), and stops at its first failing
// test, trying first the tests that killed its neighbours, then the
// fastest (see killers.phases): the speed of PIT, on PIT's assumption that
// a test does not depend on what the tests before it did. A catalog mutant
// runs every test to the end, as the gate and predictions need: its
// verdict and failing tests are exactly the full suite's (and when the run
// has coverage, a survivor that no test reaches is called not-covered).
func runMutant(ctx context.Context, cfg Config, p *Prepared, b *Baseline, a *mutation.Applied, dir string, limit time.Duration, k *killers) (report.Mutant, error) {
	r := report.Mutant{
		ID: a.Mutant.ID, Step: a.Mutant.Step, Title: a.Mutant.Title, Target: a.Mutant.Target, Kind: string(a.Mutant.Kind), Operator: string(a.Mutant.Operator),
		File: p.RelFile(a), Line: a.Line, FailedTests: []string{}, Failures: []report.Failure{},
		Location: &report.Location{
			Start: report.Position{Line: a.Start.Line, Column: a.Start.Column},
			End:   report.Position{Line: a.End.Line, Column: a.End.Column},
		},
		Replacement: a.Replacement,
		Diff:        a.Diff(p.RelFile(a)),
		Build:       string(ModeOverlay),
	}
	start := time.Now()
	if msgs, ok := b.invalid[a.Mutant.ID]; ok {
		r.Status, r.Output = report.BuildFailed, msgs
		r.Seconds = time.Since(start).Seconds()
		return r, nil
	}
	all := b.Result.TopLevel()
	tests := all
	fast := a.Mutant.Operator != "" && !cfg.Full
	bin, env := "", []string(nil)
	covered := true
	if sb := b.switched; sb.switched(a.Mutant.ID) {
		r.Build = string(ModeSwitch)
		bin, env = sb.bin, []string{mutation.SwitchEnv + "=" + a.Mutant.ID}
		if b.coverage != nil {
			r.CoveredBy = b.coverage.of(a.Mutant.ID)
			covered = len(r.CoveredBy) > 0
			if fast {
				tests = r.CoveredBy
			}
		}
		if fast && !covered {
			r.Status, r.Reason = report.NotCovered, "no test reaches its site"
			r.Seconds = time.Since(start).Seconds()
			return r, nil
		}
	} else {
		var err error
		bin, err = p.build(ctx, cfg, dir, map[string][]byte{a.File: a.Mutated}, false)
		var be *gotest.BuildError
		if errors.As(err, &be) {
			r.Status, r.Output = report.BuildFailed, be.Output
			r.Seconds = time.Since(start).Seconds()
			return r, nil
		}
		if err != nil {
			return r, err
		}
	}
	phases := [][]string{tests}
	var durations map[string]float64
	if fast {
		durations = b.durations()
		phases = k.phases(a.Mutant.Target, tests, durations)
	}
	for i, phase := range phases {
		var args []string
		if len(phase) < len(all) {
			args = append(args, runOnly(phase))
		}
		phaseLimit := limit
		if fast {
			args = append(args, "-test.failfast")
			if cfg.Timeout == 0 {
				phaseLimit = limitOf(phase, durations, limit)
			}
		}
		res, runLimit, err := execMutant(ctx, cfg, p, bin, dir, env, args, phaseLimit)
		if err != nil {
			return r, err
		}
		r.TestSeconds += res.Wall
		classify(&r, res, phase, runLimit)
		if r.Status != report.Survived || i == len(phases)-1 {
			break
		}
	}
	r.Seconds = time.Since(start).Seconds()
	switch {
	case fast && r.Status == report.Killed:
		r.FirstFailureOnly = true
		k.record(a.Mutant.Target, r.FailedTests)
	case !covered && r.Status == report.Survived:
		// Every test ran, and none reaches the site.
		r.Status, r.Reason = report.NotCovered, "no test reaches its site"
	}
	return r, nil
}

// execMutant runs a mutant's test binary with the limit, and once more with
// twice the limit when tests were still reporting near it; it returns the
// result and the limit it ran with.
func execMutant(ctx context.Context, cfg Config, p *Prepared, bin, dir string, env, args []string, limit time.Duration) (*gotest.Result, time.Duration, error) {
	res, err := p.exec(ctx, cfg, bin, dir, env, args, limit, nil)
	if err != nil {
		return nil, limit, err
	}
	if res.TimedOut && len(res.Failed()) == 0 && res.Idle < limit.Seconds()/2 {
		// Tests were still reporting near the limit: the run looks slow
		// (a loaded machine) rather than hung. Once more, with twice the
		// time; a hang is confirmed by that run alone.
		limit *= 2
		if res, err = p.exec(ctx, cfg, bin, dir, env, args, limit, nil); err != nil {
			return nil, limit, err
		}
	}
	return res, limit, nil
}

// classify sets r's verdict from res, the run of the test binary with the
// mutant active, by the evidence rule: a mutant is killed only by a test
// that failed, or that was running when the binary died; it survives only
// if every top-level test of the baseline (expected) reported and none
// failed; a run that ends otherwise, with no test to blame, crashed. Any
// test that failed before a hang kills the mutant.
func classify(r *report.Mutant, res *gotest.Result, expected []string, limit time.Duration) {
	failed, running := res.Failed(), res.Unfinished()
	switch {
	case len(failed) > 0:
		r.Status = report.Killed
		for _, name := range failed {
			r.AddFailure(name, res.Message(name))
		}
		if res.TimedOut {
			r.Reason = fmt.Sprintf("after these failed, stopped at the limit of %s", limit.Round(time.Millisecond))
			r.Running = running
		}
	case res.TimedOut:
		r.Status, r.Running = report.Timeout, running
		r.Reason = fmt.Sprintf("stopped at the limit of %s", limit.Round(time.Millisecond))
		if len(running) > 0 {
			r.Reason += " while " + strings.Join(running, ", ") + " ran"
		}
	case len(running) > 0:
		// The binary ended while these tests ran, before they reported.
		r.Status = report.Killed
		for _, name := range running {
			msg := fmt.Sprintf("the test binary %s while this test ran", res.Ended())
			if own := res.Message(name); own != "" {
				msg = own + "\n" + msg
			}
			r.AddFailure(name, msg)
		}
		r.Output = res.Output
	default:
		var missing []string
		for _, name := range expected {
			if t := res.Tests[name]; t == nil || t.Outcome == "" {
				missing = append(missing, name)
			}
		}
		switch {
		case len(missing) == len(expected) && len(expected) > 0:
			r.Status, r.Reason = report.Crashed, fmt.Sprintf("the test binary %s before any test ran", res.Ended())
		case len(missing) > 0:
			r.Status, r.Reason = report.Crashed, fmt.Sprintf("the test binary %s between tests: %d of %d never ran, %s first",
				res.Ended(), len(missing), len(expected), missing[0])
		case !passed(res):
			r.Status, r.Reason = report.Crashed, fmt.Sprintf("the test binary %s after every test passed", res.Ended())
		default:
			r.Status = report.Survived
			return
		}
		r.Output = res.Output
	}
}

// passed reports whether a run passed as a whole: the binary said PASS and
// exited 0, and no test failed or was cut short.
func passed(res *gotest.Result) bool {
	return res.Passed && res.ExitCode == 0 && !res.TimedOut && len(res.Failed()) == 0 && len(res.Unfinished()) == 0
}

func describe(r report.Mutant) string {
	switch r.Status {
	case report.Killed:
		return fmt.Sprintf("killed by %d %s", len(r.FailedTests), text.Plural(len(r.FailedTests), "test", "tests"))
	case report.Crashed, report.Timeout:
		return fmt.Sprintf("%s: %s", r.Status, r.Reason)
	}
	return string(r.Status)
}
