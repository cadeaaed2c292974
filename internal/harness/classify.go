package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/mutants"
)

// runMutant runs the suite against one mutant: the switched binary with
// the mutant active, or a build of its own, made under dir.
func runMutant(ctx context.Context, cfg Config, p *Prepared, sb *switchedBuild, a *mutants.Applied, dir string, limit time.Duration) (report.Mutant, error) {
	r := report.Mutant{
		ID: a.Mutant.ID, Step: a.Mutant.Step, Title: a.Mutant.Title, Target: a.Mutant.Target,
		File: p.RelFile(a), Line: a.Line, FailedTests: []string{}, Failures: []report.Failure{},
		Build: string(ModeOverlay),
	}
	start := time.Now()
	bin, env := "", []string(nil)
	if sb.switched(a.Mutant.ID) {
		r.Build = string(ModeSwitch)
		bin, env = sb.bin, []string{mutants.SwitchEnv + "=" + a.Mutant.ID}
	} else {
		var err error
		bin, err = p.build(ctx, cfg, dir, map[string][]byte{a.File: a.Mutated})
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
	res, err := p.exec(ctx, cfg, bin, dir, env, limit, nil)
	if err != nil {
		return r, err
	}
	r.Seconds, r.TestSeconds = time.Since(start).Seconds(), res.Wall
	classify(&r, res)
	return r, nil
}

// classify sets r's status and failed tests from res, the run of the test
// binary with the mutant active.
func classify(r *report.Mutant, res *gotest.Result) {
	failed := res.Failed()
	if len(failed) == 0 {
		// The binary stopped inside these tests (os.Exit, a crash).
		failed = res.Unfinished()
	}
	switch {
	case res.TimedOut:
		r.Status = report.Timeout
	case passed(res):
		r.Status = report.Survived
	default:
		r.Status = report.Killed
		r.FailedTests = failed
		for _, name := range failed {
			r.Failures = append(r.Failures, report.Failure{Test: name, Message: res.Message(name)})
		}
		if len(failed) == 0 {
			r.Output = res.Output
		}
	}
}

func describe(r report.Mutant) string {
	if r.Status != report.Killed {
		return r.Status
	}
	switch n := len(r.FailedTests); n {
	case 0:
		return "killed (the test binary failed)"
	case 1:
		return "killed by 1 test"
	default:
		return fmt.Sprintf("killed by %d tests", n)
	}
}
