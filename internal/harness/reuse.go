package harness

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// Per-test reuse: the learner's loop. A test's outcome under a mutant
// depends on the mutated package and what it depends on, on the run's
// settings, on what the package's tests share (their files' imports,
// helpers, types, package variables, init and TestMain: see testKeys) and
// on the test's own function. A run on a tree that differs from an
// earlier one only in the functions of some tests (the cache's key of the
// tree but those functions, treeKeys.tests, is the same) runs, under each
// catalog mutant whose outcomes were kept, only those tests, new ones
// included, and takes every other test's outcome from the earlier run:
// its failures stand, confirmed then, and it passes again. Its result
// names every failing test, as a run of the whole suite would. StrykerJS's
// incremental mode reuses a mutant's result when its killing test did not
// change (stryker-mutator.io/docs/stryker-js/incremental); mutate keeps
// every failing test of each mutant, so it reuses them test by test.
//
// The risk is a test whose outcome depends on another test's state (the
// order they run in): reused, its outcome is that of the earlier run. A
// sampled check guards it: each run with reuse runs one reused failing
// test of one mutant again, and if it does not fail, that mutant runs
// every test, and the run says so. -full and -no-cache reuse nothing; a
// generated mutant, whose run stops at its first failing test, is never
// reused this way.

// reuse is what a run takes from earlier runs' outcomes: by mutant id.
type reuse struct {
	outcomes map[string]cache.Outcomes
	tested   *testKeys
	// killers are the reused failing tests, each with its mutant.
	killers [][2]string
	// sample is the mutant and the reused failing test of it that runs
	// again (see above); "" when none was picked.
	sampleID, sampleTest string
}

// reusable reports whether a mutant's result, with its failing tests, can
// be reused test by test: a catalog mutant's, killed or survived with
// every test's outcome known, and kept by the cache's rules.
func reusable(m *mutation.Mutant, r report.Mutant) bool {
	return !m.Generated() && r.Cacheable() && !r.FirstFailureOnly && (r.Status == report.Killed || r.Status == report.Survived)
}

// loadReuse returns the outcomes the cache keeps for the mutants at the
// indexes missing, nil if none, and says what it found.
func (p *prepared) loadReuse(cfg config, keys treeKeys, missing []int) *reuse {
	if cfg.NoCache || cfg.Full || cfg.Blind || keys.tests == "" {
		return nil
	}
	ru := &reuse{outcomes: map[string]cache.Outcomes{}, tested: keys.tested}
	var oldest time.Time
	for _, i := range missing {
		m := p.Applied[i].Mutant
		if m.Generated() {
			continue
		}
		o, ok := cache.LoadOutcomes(cache.MutantKey(keys.tests, m))
		if !ok {
			continue
		}
		ru.outcomes[m.ID] = o
		if oldest.IsZero() || o.When.Before(oldest) {
			oldest = o.When
		}
		for _, name := range o.Mutant.FailedTests {
			if top := topLevel(name); ru.unchanged(o, top) {
				ru.killers = append(ru.killers, [2]string{m.ID, top})
			}
		}
	}
	if len(ru.outcomes) == 0 {
		return nil
	}
	cfg.Progress.Printf("%s: the outcomes of the tests whose functions did not change come from the run of %s; the others run again (-full runs every test)",
		text.Count(len(ru.outcomes), "mutant", "mutants"), oldest.Local().Format(time.DateTime))
	return ru
}

// pick picks the sample: a reused failing test of a mutant, at random
// among the fastest quarter of them by durations (the baseline's, by
// top-level test), as it runs and is confirmed again.
func (ru *reuse) pick(durations map[string]float64) {
	if ru == nil || len(ru.killers) == 0 {
		return
	}
	k := slices.Clone(ru.killers)
	slices.SortStableFunc(k, func(a, b [2]string) int { return cmp.Compare(durations[a[1]], durations[b[1]]) })
	pick := k[rand.IntN(max(len(k)/4, 1))]
	ru.sampleID, ru.sampleTest = pick[0], pick[1]
}

// unchanged reports whether test top has the same function as when o was
// kept.
func (ru *reuse) unchanged(o cache.Outcomes, top string) bool {
	key, ok := ru.tested.tests[top]
	return ok && o.Tests[top] == key
}

// rerun returns the tests of tests that run again under the mutant of o:
// those whose functions changed or are new, and the sampled test.
func (ru *reuse) rerun(id string, o cache.Outcomes, tests []string) []string {
	var run []string
	for _, top := range tests {
		if !ru.unchanged(o, top) || id == ru.sampleID && top == ru.sampleTest {
			run = append(run, top)
		}
	}
	return run
}

// merged returns the result of a run of the tests ran under the mutant of
// o (v), with the outcomes o keeps of the tests reused (see reused): their
// failures, and the status they give together.
func merged(o cache.Outcomes, v verdict, reused []string) verdict {
	r := v
	r.Failures = slices.Clone(v.Failures)
	for _, f := range o.Mutant.Failures {
		if slices.Contains(reused, topLevel(f.Test)) {
			r.Failures = append(r.Failures, f)
		}
	}
	sortFailures(&r.Mutant)
	r.seen = evidence{failed: len(r.FailedTests) > 0}
	if r.seen.failed {
		r.Reason = ""
	}
	r.decide()
	return r
}

// storeReuse keeps, for each mutant of rep that ran and whose result
// can be reused test by test, the key of each test's function with its
// result; results merged from earlier outcomes keep the time of the
// oldest.
func (p *prepared) storeReuse(keys treeKeys, rep *report.Report, ran map[string]bool, ru *reuse) {
	if keys.tests == "" {
		return
	}
	tests := map[string]string{}
	for _, top := range topLevels(rep.Baseline.TestNames) {
		tests[top] = keys.tested.tests[top] // "": never unchanged
	}
	byID := map[string]*mutation.Applied{}
	for _, a := range p.Applied {
		byID[a.Mutant.ID] = a
	}
	now := time.Now()
	for _, r := range rep.Mutants {
		a := byID[r.ID]
		if a == nil || !ran[r.ID] || !reusable(a.Mutant, r) {
			continue
		}
		when := now
		if o, ok := ru.get(r.ID); ok && r.Reused > 0 {
			when = o.When
		}
		cache.StoreOutcomes(cache.MutantKey(keys.tests, a.Mutant), cache.Outcomes{Tests: tests, Mutant: r, When: when})
	}
}

// get returns the outcomes kept for mutant id.
func (ru *reuse) get(id string) (cache.Outcomes, bool) {
	if ru == nil {
		return cache.Outcomes{}, false
	}
	o, ok := ru.outcomes[id]
	return o, ok
}

// kept returns the outcomes kept for the mutant, if any (reusing), and the
// tests of its run that run again (see reuse.rerun).
func (m *mutantRun) kept() (o cache.Outcomes, rerun []string, reusing bool) {
	if o, reusing = m.cfg.reuse.get(m.a.Mutant.ID); reusing {
		rerun = m.cfg.reuse.rerun(m.a.Mutant.ID, o, m.tests)
	}
	return o, rerun, reusing
}

// attemptReusing runs the tests rerun under the mutant, and reports
// whether their result can be merged with the outcomes o keeps of the
// others: it can when it is a kill or a survival with every failure
// confirmed, and the sampled test, if it is this mutant's, failed again.
// Otherwise the mutant runs every test, as with no outcomes kept.
func (m *mutantRun) attemptReusing(ctx context.Context, o cache.Outcomes, rerun []string) (verdict, bool, error) {
	all := m.tests
	m.tests = rerun
	defer func() { m.tests = all }()
	v, unconfirmed, err := m.attempt(ctx)
	if err != nil || unconfirmed || v.Status != report.Killed && v.Status != report.Survived {
		return v, false, err
	}
	ru, id := m.cfg.reuse, m.a.Mutant.ID
	sampled := id == ru.sampleID && slices.Contains(rerun, ru.sampleTest)
	if sampled && !slices.ContainsFunc(v.FailedTests, func(name string) bool { return topLevel(name) == ru.sampleTest }) {
		m.cfg.Progress.Printf("%s: %s, whose failure under it was kept from the run of %s, passes now: its outcome depends on more than its function (another test's state, the order of the tests), so every test runs again",
			id, ru.sampleTest, o.When.Local().Format(time.DateTime))
		return v, false, nil
	}
	return v, true, nil
}

// withOutcomes returns r with the result of the run of the tests rerun
// (v) merged with the outcomes o keeps of the others (see merged).
func (m *mutantRun) withOutcomes(r report.Mutant, o cache.Outcomes, v verdict, rerun []string) report.Mutant {
	reused := m.cfg.reuse.reused(o, m.b.Result.TopLevel(), rerun)
	r = withRun(r, merged(o, v, reused))
	r.Reused, r.ReusedFrom = len(reused), o.When
	return r
}

// reused returns the tests of the suite now (tests) whose outcomes under
// the mutant of o are o's: those whose functions did not change and that
// did not run again (rerun). A test whose function changed and did not
// run (it does not reach the mutant's site, by this run's coverage)
// passes; a test o knew that is gone is gone from the result too.
func (ru *reuse) reused(o cache.Outcomes, tests, rerun []string) []string {
	var reused []string
	for _, top := range tests {
		if ru.unchanged(o, top) && !slices.Contains(rerun, top) {
			reused = append(reused, top)
		}
	}
	return reused
}
