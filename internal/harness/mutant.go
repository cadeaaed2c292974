package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// mutantRun is what the runs of one mutant need: which binary runs it, in
// which environment, which tests, and what it is compared with.
type mutantRun struct {
	cfg   config
	p     *prepared
	b     *Baseline
	a     *mutation.Applied
	limit time.Duration
	k     *killers

	bin string   // the mutant's test binary
	env []string // with which the binary runs as the mutant
	// ref is the binary, and its environment, that runs the reference:
	// the same switched build with no mutant active, or the plain build.
	ref    string
	refEnv []string
	tests  []string // the top-level tests it runs
	// fast: a generated mutant without -full, run the early-kill way.
	fast bool
	// flaky holds the top-level tests whose failures did not reproduce
	// in an earlier attempt at this mutant: they never kill it.
	flaky map[string]bool
}

// runMutant runs the suite against one mutant: the switched binary with
// the mutant active, or a build of its own, made under dir.
//
// A generated mutant (unless cfg.Full) runs only the tests that reach its
// site, none when none does (not-covered), and stops at its first failing
// test, trying first the tests that killed its neighbours, then the
// fastest (see killers.phases): the speed of PIT. If none fails, its
// covering tests run once more together, in source order in one process,
// as go test runs them, before it is called survived. A catalog mutant,
// when the run measured coverage (see needsCoverage) and not every test
// must run (see everyTest), runs the tests that reach its site, together
// and to the end, as the gate and predictions need: a test that never reaches the
// site runs exactly as it does without the mutant, so its verdict and
// failing tests are the full suite's. A mutant whose site coverage cannot
// see (a constant, a package-level variable, a function replaced whole
// outside the switched build) runs every test, as every catalog mutant
// of a run without coverage does.
//
// Every failing test is confirmed (see mutantRun.confirm): a failure that
// does not reproduce is flaky, named, and no kill. A mutant whose only
// failures were flaky runs once more, a generated one with those tests
// last, so that one failing first again cannot stop the run before the
// others; if again no failure is confirmed, it is flaky.
func (s *scheduler) runMutant(ctx context.Context, a *mutation.Applied, dir string) (r report.Mutant, err error) {
	cfg, p, b, limit, k := s.cfg, s.p, s.b, s.limit, s.k
	r = newResult(p, a)
	start := time.Now()
	defer func() { r.Seconds = time.Since(start).Seconds() }()
	if msgs, ok := b.invalid[a.Mutant.ID]; ok {
		r.Status, r.Output = decide(evidence{unbuilt: true}), msgs
		return r, nil
	}
	m := &mutantRun{cfg: cfg, p: p, b: b, a: a, limit: limit, k: k,
		tests: b.Result.TopLevel(), fast: a.Mutant.Generated() && !cfg.Full}
	covered, known := true, false
	if c := b.coverage; c != nil && c.knows(a.Mutant.ID) {
		known = true
		r.CoveredBy = c.of(a.Mutant.ID)
		covered = len(r.CoveredBy) > 0
		if !cfg.everyTest() {
			m.tests = r.CoveredBy
		}
	}
	if sb := b.switched; sb.switched(a.Mutant.ID) {
		r.Build = ModeSwitch
		m.bin, m.env = sb.bin, sb.env(a.Mutant.ID)
		m.ref, m.refEnv = sb.bin, sb.env("")
	}
	if !cfg.everyTest() && !covered {
		r.Status, r.Reason = decide(evidence{unreached: true}), "no test reaches its site"
		return r, nil
	}
	// With outcomes kept from an earlier run (see reuse.go), only the
	// tests whose functions changed run; none, and no build either, when
	// none did.
	o, rerun, reusing := m.kept()
	if reusing && len(rerun) == 0 {
		return m.withOutcomes(r, o, newVerdict(), nil), nil
	}
	if m.bin == "" {
		bin, err := p.build(ctx, cfg, dir, map[string][]byte{a.File: a.Mutated}, false)
		var be *gotest.BuildError
		if errors.As(err, &be) {
			r.Status, r.Output = decide(evidence{unbuilt: true}), be.Output
			return r, nil
		}
		if err != nil {
			return r, err
		}
		m.bin, m.ref = bin, b.plain
	}

	if reusing {
		if v, ok, err := m.attemptReusing(ctx, o, rerun); err != nil || ok {
			return m.withOutcomes(r, o, v, rerun), err
		}
	}
	v, unconfirmed, err := m.attempt(ctx)
	if err != nil {
		return r, err
	}
	if unconfirmed {
		if v, err = m.again(ctx, v); err != nil {
			return r, err
		}
	}
	switch {
	case m.fast && v.Status == report.Killed:
		k.record(a.Mutant.Target, a.Line, v.FailedTests)
	case v.Status == report.Survived && known && !covered:
		// Every test ran, and none reaches the site.
		v.seen.unreached, v.Reason = true, "no test reaches its site"
		v.decide()
	case v.Status == report.Survived && a.Mutant.Generated() && !known && v.Reason == "":
		v.Reason = "whether a test reaches its site is not known: " + b.noCoverage
	}
	return withRun(r, v), nil
}

// withRun returns r, a mutant's result before it ran, with what its runs
// decided (v): its status, failing tests and their evidence, and times.
func withRun(r report.Mutant, v verdict) report.Mutant {
	r.Status, r.FailedTests, r.Failures, r.FlakyTests = v.Status, v.FailedTests, v.Failures, v.FlakyTests
	r.Reason, r.Running, r.Output, r.Partial, r.SkippedTests = v.Reason, v.Running, v.Output, v.Partial, v.SkippedTests
	r.SpinsAlone = v.SpinsAlone && v.Status == report.Timeout
	r.TestSeconds, r.FirstFailureOnly, r.DecidingSeconds = v.TestSeconds, v.FirstFailureOnly, v.DecidingSeconds
	return r
}

// again runs the mutant's tests once more, whole, after an attempt (v)
// whose only failures were flaky, and returns the verdict the two bear. A
// test whose failure did not reproduce is flaky for this mutant: failing
// again, and even reproducing then, it is still no killer.
func (m *mutantRun) again(ctx context.Context, v verdict) (verdict, error) {
	m.flaky = map[string]bool{}
	for _, name := range v.FlakyTests {
		m.flaky[topLevel(name)] = true
	}
	again, stillUnconfirmed, err := m.attempt(ctx)
	if err != nil {
		return again, err
	}
	first, second := v.FlakyTests, again.FlakyTests
	again.FlakyTests = union(first, second)
	again.TestSeconds += v.TestSeconds
	switch {
	case stillUnconfirmed:
		again.seen.unconfirmed, again.Reason = true, m.flakyReason(first, second)
		again.decide()
	case again.Status == report.Survived:
		// Two outcomes: tests failed in the first run and did not fail
		// again, and the second run passed. The verdict is the one the
		// evidence bears, with what was seen.
		again.Reason = m.flakyReason(first, second) + "; a second run of the same tests passed"
		if slices.ContainsFunc(first, func(name string) bool { return !m.b.refs.isFlaky(topLevel(name)) }) {
			again.Reason += ": its outcome changes from run to run (the suite's own randomness, or the machine's load)"
		}
	}
	return again, nil
}

// flakyReason says why no failure of a mutant counts, from the tests
// whose failures did not count in its first run and in its second: a test
// that both passed and failed with no mutant active in this run is no
// evidence; one that failed in both runs never reproduced alone or in its
// grouping; one that failed in one run did not fail again.
func (m *mutantRun) flakyReason(first, second []string) string {
	var without, twice, once []string
	for _, name := range union(first, second) {
		switch {
		case m.b.refs.isFlaky(topLevel(name)):
			without = append(without, name)
		case slices.Contains(first, name) && slices.Contains(second, name):
			twice = append(twice, name)
		default:
			once = append(once, name)
		}
	}
	var parts []string
	if len(without) > 0 {
		parts = append(parts, strings.Join(without, ", ")+" both passed and failed with no mutant active in this run, so "+text.Plural(len(without), "its", "their")+" failures are no evidence")
	}
	if len(twice) > 0 {
		parts = append(parts, strings.Join(twice, ", ")+" failed in both runs under it, and no failure reproduced without the other tests or failed only under the mutant")
	}
	if len(once) > 0 {
		parts = append(parts, strings.Join(once, ", ")+" failed in one run under it, and not when run again")
	}
	return strings.Join(parts, "; ")
}

// newResult returns the result of a's run, before it ran.
func newResult(p *prepared, a *mutation.Applied) report.Mutant {
	return report.Mutant{
		ID: a.Mutant.ID, Step: a.Mutant.Step, Title: a.Mutant.Title, Target: a.Mutant.Target, Kind: a.Mutant.Kind, Operator: a.Mutant.Operator,
		File: p.Target.RelFile(a), Line: a.Line, FailedTests: []string{}, Failures: []report.Failure{},
		Location: &report.Location{
			Start: report.Position{Line: a.Start.Line, Column: a.Start.Column},
			End:   report.Position{Line: a.End.Line, Column: a.End.Column},
		},
		Replacement: a.Replacement,
		Diff:        a.Diff(p.Target.RelFile(a)),
		Build:       ModeOverlay,
	}
}

// attempt runs the mutant's tests (by phases, for an early kill) and
// confirms what failed. unconfirmed says that tests failed and none was
// confirmed.
func (m *mutantRun) attempt(ctx context.Context) (v verdict, unconfirmed bool, err error) {
	v = newVerdict()
	phases := [][]string{m.tests}
	var durations map[string]float64
	if m.fast {
		durations = m.b.durations()
		// In the run once more, a test whose failure did not reproduce
		// runs after the others: failing first again, it would stop the
		// run (failfast) before a test whose failure reproduces. Which of
		// the two fails first can depend on the machine's load.
		others := slices.DeleteFunc(slices.Clone(m.tests), func(t string) bool { return m.flaky[t] })
		if len(others) > 0 && len(others) < len(m.tests) {
			phases = append(m.k.phases(m.a.Mutant.Target, m.a.Line, others, durations), m.tests)
		} else {
			phases = m.k.phases(m.a.Mutant.Target, m.a.Line, m.tests, durations)
		}
	}
	// group is the grouping the tests failed in; failing that run, and
	// ran the tests it ran.
	group := m.tests
	var failing *gotest.Result
	var ran []string
	for _, phase := range phases {
		res, lim, err := m.execMutant(ctx, m.args(phase, m.fast), m.limitsOf(phase))
		if err != nil {
			return v, false, err
		}
		v.TestSeconds += res.Wall
		v.SkippedTests = nil
		classify(&v, res, m.b.Result, phase, lim)
		v.DecidingSeconds = res.Wall
		// A test that skips under the mutant detects nothing: the next
		// phases may still kill it, and whether it is skipped is decided
		// on all its tests, as a run of every test decides it.
		if v.Status != report.Survived && v.Status != report.Skipped {
			group, failing, ran = phase, res, phase
			v.FirstFailureOnly = m.fast && v.Status == report.Killed
			switch {
			case !m.fast && v.Status == report.Killed:
				err = m.complete(ctx, &v, res, phase)
			case !m.fast && v.Partial && v.Status == report.Timeout:
				err = m.settle(ctx, &v, res, phase, lim)
			}
			if err != nil {
				return v, false, err
			}
			break
		}
	}
	if len(v.FailedTests) == 0 {
		return v, false, nil
	}
	if err := m.confirm(ctx, &v, group, failing, ran); err != nil {
		return v, false, err
	}
	if len(v.FailedTests) > 0 || v.Status == report.Crashed {
		return v, false, nil
	}
	if v.Status == report.Timeout || v.Status == report.OutOfMemory {
		// It hangs, or hoards; no failure before it was stopped is
		// confirmed.
		v.Partial = false
		return v, false, nil
	}
	return v, true, nil
}

// complete runs, after a run whose binary died (res), the tests of
// expected that never started, until each has an outcome, and adds their
// failures to v: a crash in one test does not hide what the tests after
// it would have said, and the failing set is whole. A run that dies again
// is completed the same way; one in which no test reports at all ends it.
func (m *mutantRun) complete(ctx context.Context, v *verdict, res *gotest.Result, expected []string) error {
	for range len(expected) {
		var missing []string
		for _, name := range expected {
			if t := res.Tests[name]; t == nil {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 || res.TimedOut {
			break
		}
		next, _, err := m.execMutant(ctx, m.args(missing, false), m.limitsOf(missing))
		if err != nil {
			return err
		}
		v.TestSeconds += next.Wall
		reported := false
		for _, name := range next.Names() {
			switch t := next.Tests[name]; t.Outcome {
			case gotest.Fail:
				v.AddFailure(name, next.Message(name))
			case "":
				addDied(&v.Mutant, next, []string{name})
			}
			reported = true
		}
		if !reported {
			break
		}
		res, expected = next, missing
	}
	sortFailures(&v.Mutant)
	return nil
}

// settle gives, after a run of every test stopped at its limit (res) when
// some had failed, each test that had not reported a verdict of its own:
// run alone within its own limit, a test that fails joins v's failures (to
// be confirmed like the others), one stopped again hangs (v.Running), one
// that passes was only held up. A test that failed before the limit runs
// alone too, first: one that does not finish alone (it failed only after waiting
// longer than its own limit, as a lock's timeout) hangs, and leaves the
// failing set; the others keep their failures, confirmed as usual. Which
// tests fail before the limit depends on how fast the others ran, and so
// on the machine's load; what each test does alone does not. The failing
// set is then whole: v stays a timeout if
// a test hangs alone, and is killed if none does (the run as a whole was
// only slower than its limit). A mutant that hangs policy.SettleHangs tests
// alone hangs most of the suite: the tests after those are not tried, and
// the set stays partial.
func (m *mutantRun) settle(ctx context.Context, v *verdict, res *gotest.Result, expected []string, lim limits) error {
	var failed, pending, hung []string
	for _, top := range expected {
		switch t := res.Tests[top]; {
		case t == nil || t.Outcome == "":
			pending = append(pending, top)
		case t.Outcome == gotest.Fail:
			failed = append(failed, top)
		}
	}
	pending = append(failed, pending...) // the failures are settled first
	for len(pending) > 0 && len(hung) < m.cfg.policy().SettleHangs {
		top := pending[0]
		alone, _, err := m.execMutant(ctx, m.args([]string{top}, false), m.limitsOf([]string{top}))
		if err != nil {
			return err
		}
		pending = pending[1:]
		v.TestSeconds += alone.Wall
		if alone.TimedOut {
			hung = append(hung, top)
			v.Failures = slices.DeleteFunc(v.Failures, func(f report.Failure) bool { return topLevel(f.Test) == top })
			continue
		}
		if t := res.Tests[top]; t != nil && t.Outcome == gotest.Fail {
			continue // its failure stands, to be confirmed
		}
		for _, name := range alone.Failed() {
			v.AddFailure(name, alone.Message(name))
		}
		for _, name := range alone.Unfinished() {
			v.AddFailure(name, diedMessage(alone, name))
		}
	}
	reason := fmt.Sprintf("%s; run alone, %s did not finish within %s", lim.stopped(res),
		strings.Join(hung, ", "), text.Plural(len(hung), "its own limit", "their own limits"))
	switch {
	case len(pending) > 0:
		v.Running = slices.Concat(hung, res.Unfinished())
		v.Reason = fmt.Sprintf("%s; %s not tried alone", reason, text.Count(len(pending), "other test", "others"))
	case len(hung) == 0:
		// The run as a whole was only slower than its limit.
		v.Reason, v.Running, v.Partial = "", nil, false
		v.seen.stop, v.seen.failed = noStop, len(v.FailedTests) > 0
		v.decide()
	default:
		v.Reason, v.Running, v.Partial = reason, hung, false
	}
	sortFailures(&v.Mutant)
	return nil
}

// sortFailures sorts v's failing tests, and their failures with them.
func sortFailures(v *report.Mutant) {
	slices.SortFunc(v.Failures, func(a, b report.Failure) int { return strings.Compare(a.Test, b.Test) })
	v.Failures = slices.CompactFunc(v.Failures, func(a, b report.Failure) bool { return a.Test == b.Test })
	v.FailedTests = v.FailedTests[:0]
	for _, f := range v.Failures {
		v.FailedTests = append(v.FailedTests, f.Test)
	}
	slices.Sort(v.Running)
	v.Running = slices.Compact(v.Running)
}

// args returns the flags of a run of tests: only them, unless they are the
// whole suite, and with failfast, stopped at the first that fails.
func (m *mutantRun) args(tests []string, failfast bool) []string {
	var args []string
	if len(tests) < len(m.b.Result.TopLevel()) {
		args = append(args, runOnly(tests))
	}
	if failfast {
		args = append(args, "-test.failfast")
	}
	return args
}

// execMutant runs the mutant's test binary within lim. A run stopped at
// its CPU limit is held against the reference's run of the same tests:
// if that one asks for more (see cpuNeed: what the baseline's durations
// do not show, the binary's start, a set-up done once by the first test
// that needs it), the mutant runs again with that limit. When the
// reference's run of these tests is known already (another mutant's
// needed it), the mutant starts with its limit: the same verdict, without
// the run that would be stopped short. A run stopped at its wall limit
// while tests were still reporting runs once more with twice the limit.
// It returns the result and the limits it ran with.
func (m *mutantRun) execMutant(ctx context.Context, args []string, lim limits) (*gotest.Result, limits, error) {
	if ref := m.b.refs.known(m.ref, args); lim.cpu > 0 && ref != nil {
		if need := cpuNeed(ref); need == 0 || need > lim.cpu {
			lim.cpu = need
		}
	}
	res, err := m.p.exec(ctx, m.cfg, m.bin, m.env, args, lim, nil)
	if err != nil {
		return nil, lim, err
	}
	if res.OverCPU {
		ref, err := m.b.refs.run(ctx, m.ref, m.refEnv, args, lim.wall)
		if err != nil {
			return nil, lim, err
		}
		if need := cpuNeed(ref); need == 0 || need > lim.cpu {
			lim.cpu = need
			if res, err = m.p.exec(ctx, m.cfg, m.bin, m.env, args, lim, nil); err != nil {
				return nil, lim, err
			}
		}
	}
	switch {
	case stoppedByWall(res) && len(res.Failed()) == 0 && res.Idle < lim.wall.Seconds()/2:
		// Tests were still reporting near the limit: the run looks slow
		// (a loaded machine) rather than hung. Once more, with twice the
		// time; a hang is confirmed by that run alone.
		lim.wall *= 2
	case stoppedByWall(res) && lim.cpu > 0 && res.CPU >= res.Wall/4:
		// It was computing, not waiting, when the wall limit stopped it:
		// the machine's load slowed it. Its CPU or memory limit, which
		// no load moves, decides: once more with a wall limit far
		// above, so that a loop that allocates is out-of-memory, or a
		// timeout at its CPU limit, on a quiet machine and a loaded one
		// alike.
		lim.wall *= m.cfg.policy().RefRetryFactor
	default:
		return res, lim, nil
	}
	res, err = m.p.exec(ctx, m.cfg, m.bin, m.env, args, lim, nil)
	return res, lim, err
}

// union returns the sorted names of a and b, each once.
func union(a, b []string) []string {
	u := slices.Concat(a, b)
	slices.Sort(u)
	return slices.Compact(u)
}
