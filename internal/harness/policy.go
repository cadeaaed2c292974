package harness

import "time"

// policy holds every count and factor by which the harness runs a test
// again, retries a run, and trusts a result: each is said once, here, and
// a run carries the one value (Options.policy; tests set their own). The
// limits those runs have are in limits.go.
type policy struct {
	// CoverPasses is how many times coverage runs each test alone: twice,
	// so that a test that is flaky when it runs alone is found, and named
	// rather than trusted. A test that fails in every one of them runs
	// CoverRecheck times more: one that fails every time needs the tests
	// before it, one that passes once is flaky (a test that fails 4 runs
	// in 10 alone fails all 6 with a chance of 0.4%, where 2 of 2 had
	// 16%).
	CoverPasses, CoverRecheck int
	// TrustPasses is how many runs without any mutant, in the groupings
	// in which it failed under a mutant, a test must pass, and TrustRuns
	// how many more of them the first to need it makes at most, before
	// those failures make it a killer (see references.trust).
	TrustPasses, TrustRuns int
	// RefRetryFactor is how much longer a run of the reference that
	// reached its limit gets the second time.
	RefRetryFactor time.Duration
	// SettleHangs is how many tests hanging alone settle tries before it
	// stops (see mutantRun.settle).
	SettleHangs int
	// TCEBudget is the time that trivial compiler equivalence may take,
	// by its estimate, in a run that is not -full.
	TCEBudget time.Duration
	// CoverPays decides whether a run of catalog mutants alone measures
	// coverage, so that each runs only the tests that reach its site (a
	// run with generated mutants measures it anyway): when the suite's
	// runs for every catalog mutant would take more than CoverPays times
	// what coverage costs (see coveragePays). Below that, coverage and
	// the confirmations in groupings of their own cost more than they
	// save: on lease (8 mutants, 99 tests of 1 s in all) the catalog ran
	// in 18.7 s narrowed, 13.1 s on the whole suite. 0 always narrows.
	CoverPays float64
}

// defaultPolicy is the policy of every run but a test's.
var defaultPolicy = policy{
	CoverPasses:    2,
	CoverRecheck:   4,
	TrustPasses:    5,
	TrustRuns:      3,
	RefRetryFactor: 4,
	SettleHangs:    8,
	TCEBudget:      time.Minute,
	CoverPays:      3,
}

// policy returns the run's policy.
func (opt Options) policy() *policy {
	if opt.pol != nil {
		return opt.pol
	}
	return &defaultPolicy
}
