package harness

import (
	"context"
	"errors"
	"maps"
	"runtime"
	"slices"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// Run runs the plan's mutants, package by package, and returns the report
// of the whole run, finished: in a run of a pattern the packages' reports
// qualified by package and joined; each mutant at its place in the whole
// run when the plan is a shard; and what each mutant stands for
// (contract, rationale, seed and diff). A plan with no mutant to run (-diff
// or -shard left none) gives a report with none.
func Run(ctx context.Context, plan *exercise.Plan, opt Options) (*report.Report, error) {
	if opt.Mode != "" {
		if _, err := ParseMode(string(opt.Mode)); err != nil {
			return nil, err
		}
	}
	if opt.First != nil && (!opt.NoCache || opt.Full) {
		// The cache answers for mutants one by one, and -full judges
		// equivalents and duplicates before any run: a first stage from
		// either would not be asked about.
		return nil, errors.New("harness: Options.First needs NoCache, and no Full")
	}
	if err := resolveIsolation(&opt); err != nil {
		return nil, err
	}
	opt.clock = newPhaseClock(opt.Started)
	if opt.reduced {
		defer guardCache(opt.Progress)()
	}
	var (
		parts  []*report.Report
		notRun []report.NotRun
		stop   error // an interrupt
	)
	for _, u := range plan.Units {
		if len(u.Applied) == 0 {
			continue
		}
		rep, err := runUnit(ctx, plan, u, opt)
		if rep != nil {
			parts = append(parts, rep) // with ErrInterrupted, what finished
		}
		switch {
		case err == nil:
			continue
		case ctx.Err() != nil || errors.Is(err, ErrInterrupted):
			stop = ErrInterrupted
		case plan.Multi:
			// One package that cannot run does not end the pattern.
			opt.Progress.Printf("%s: not run: %s", u.Target.Rel, text.FirstLine(err.Error()))
			notRun = append(notRun, report.NotRun{Package: u.Target.Rel, Reason: err.Error()})
			continue
		default:
			return nil, err
		}
		break
	}
	if stop != nil && len(parts) == 0 {
		return nil, stop
	}
	var rep *report.Report
	switch {
	case plan.Multi:
		rep = report.Join(plan.Package, parts)
		rep.NotRun = notRun
	case len(parts) == 1:
		rep = parts[0]
	default:
		rep = &report.Report{Package: plan.Package, Mode: opt.mode(), Jobs: max(opt.Jobs, 1), Mutants: []report.Mutant{}}
		if len(plan.Units) > 0 && plan.Units[0].Target != nil {
			rep.Module = plan.Units[0].Target.Module
		}
	}
	rep.Shard = plan.Shard
	rep.Seconds, rep.Phases = opt.clock.stop()
	if cpu, ok := opt.clock.cpuSince(); ok {
		rep.CPUSeconds, rep.CPUs = cpu.Seconds(), runtime.NumCPU()
	}
	rep.Efficiency = efficiency(rep.Mutants)
	rep.Subsume()
	if stop != nil {
		rep.Interrupted = true
		return rep, stop
	}
	return rep, nil
}

// efficiency is the share of the time of the mutants that ran spent in
// the runs that decided their verdicts (see report.Mutant.DecidingSeconds).
func efficiency(ms []report.Mutant) float64 {
	var deciding, all float64
	for _, m := range ms {
		if m.DecidingSeconds > 0 {
			deciding += m.DecidingSeconds
			all += m.Seconds
		}
	}
	if all == 0 {
		return 0
	}
	return deciding / all
}

// runUnit runs the mutants of one package of the plan: against its own
// tests, or against the tests of each package of the pattern that uses
// it, one after the other, their verdicts combined (see combine).
func runUnit(ctx context.Context, plan *exercise.Plan, u *exercise.Unit, opt Options) (*report.Report, error) {
	if len(u.Testers) == 0 {
		return runTester(ctx, plan, u, opt, nil)
	}
	var reps []*report.Report
	for _, t := range u.Testers {
		opt.Progress.Printf("%s: its mutants against the tests of %s", u.Target.Rel, t.Rel)
		rep, err := runTester(ctx, plan, u, opt, t)
		if err != nil {
			return nil, err
		}
		reps = append(reps, rep)
	}
	return combine(reps), nil
}

// combine returns the report of one package's mutants from the runs of
// several packages' tests: each mutant's most telling verdict (equivalent
// over killed over timeout over crashed over the rest), its failing tests
// those of every run with that verdict; the tests of every run.
func combine(reps []*report.Report) *report.Report {
	out := *reps[0]
	out.Mutants = slices.Clone(out.Mutants)
	names := map[string]bool{}
	for _, r := range reps {
		for _, n := range r.Baseline.TestNames {
			names[n] = true
		}
	}
	at := map[string]int{}
	for i, m := range out.Mutants {
		at[m.ID] = i
	}
	for _, r := range reps[1:] {
		out.Seconds += r.Seconds
		out.Baseline.Seconds += r.Baseline.Seconds
		out.Limit, out.MemoryLimit = max(out.Limit, r.Limit), max(out.MemoryLimit, r.MemoryLimit)
		out.Cached = out.Cached && r.Cached
		out.FlakyTests = append(out.FlakyTests, r.FlakyTests...)
		for _, m := range r.Mutants {
			i, ok := at[m.ID]
			if !ok {
				// It ran against these tests only (another run left it
				// out: see Options.First).
				at[m.ID] = len(out.Mutants)
				out.Mutants = append(out.Mutants, m)
				continue
			}
			o := &out.Mutants[i]
			switch {
			case m.Status.MoreTelling(o.Status):
				*o = m
			case m.Status == o.Status && m.Status == report.Killed:
				o.FailedTests = append(o.FailedTests, m.FailedTests...)
				o.Failures = append(o.Failures, m.Failures...)
			}
			if m.CoveredBy != nil {
				o.CoveredBy = append(o.CoveredBy, m.CoveredBy...)
			}
		}
	}
	out.Baseline.TestNames = slices.Sorted(maps.Keys(names))
	out.Baseline.Tests = len(out.Baseline.TestNames)
	return &out
}

// runTester runs the mutants of u against the tests of tester (nil: its
// own).
func runTester(ctx context.Context, plan *exercise.Plan, u *exercise.Unit, opt Options, tester *exercise.Target) (*report.Report, error) {
	cfg := config{Options: opt, tester: tester}
	for _, a := range u.Applied {
		cfg.Mutants = append(cfg.Mutants, a.Mutant)
	}
	p, err := prepare(ctx, u, cfg)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	rep, err := p.run(ctx, cfg)
	if rep == nil {
		return nil, err
	}
	byID := map[string]int{}
	for i, a := range u.Applied {
		byID[a.Mutant.ID] = i
	}
	for i := range rep.Mutants {
		m := &rep.Mutants[i]
		a := u.Applied[byID[m.ID]]
		m.Contract, m.Rationale, m.Seed = a.Mutant.Contract, a.Mutant.Rationale, a.Mutant.Seed
		m.Points = a.Mutant.Points
		if plan.Shard != nil {
			m.Ordinal = u.Ordinals[byID[m.ID]]
		}
	}
	if plan.Multi {
		rep.Qualify()
		if tester != nil {
			rep.QualifyTests(u.Target.Rel, tester.Rel)
		}
	}
	return rep, err
}

// TestNames returns the names of the tests of the unmutated suite of the
// plan's package, every subtest included: from the cache when an
// unchanged tree ran, otherwise from a run of the baseline.
func TestNames(ctx context.Context, plan *exercise.Plan, opt Options) ([]string, error) {
	if len(plan.Units) != 1 {
		return nil, errors.New("the names of the tests of a pattern's packages: name one package")
	}
	if err := resolveIsolation(&opt); err != nil {
		return nil, err
	}
	if opt.reduced {
		defer guardCache(opt.Progress)()
	}
	u := plan.Units[0]
	cfg := config{Options: opt}
	for _, a := range u.Applied {
		cfg.Mutants = append(cfg.Mutants, a.Mutant)
	}
	p, err := prepare(ctx, u, cfg)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.testNames(ctx, cfg)
}
