package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/internal/text"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// ErrInterrupted is returned when the run's context is done: a signal
// stopped it. Every process it started is gone and every temporary file
// removed by then.
var ErrInterrupted = errors.New("interrupted; temporary files removed, the source tree is unchanged")

// run returns the report of cfg's mutants on p. Each mutant's result
// comes from the cache when an unchanged tree ran it with the same
// settings, in any company; the others run (the baseline, then
// cfg.AfterBaseline, then each of them), and are cached unless the tree
// changed meanwhile.
func (p *prepared) run(ctx context.Context, cfg config) (*report.Report, error) {
	keys := p.keys(ctx, cfg)
	results, missing, prior := p.cached(cfg, keys.runs)
	if len(missing) > 0 {
		results, missing, prior = p.cachedElsewhere(cfg, keys, results, missing, prior)
	}
	if len(missing) == 0 {
		cfg.Progress.Printf("results from the cache: the sources, tests and mutants are unchanged since they ran (-no-cache runs again)")
		return p.answered(cfg, prior, results, nil, true)
	}
	if err := cfg.mayRun(); err != nil {
		return nil, err
	}
	if n := len(results) - len(missing); n > 0 {
		cfg.Progress.Printf("%d of %d mutants from the cache; running %s", n, len(results), text.Count(len(missing), "mutant", "mutants"))
	}
	start := time.Now()
	// A -full run compiles every mutant first: duplicates need no run,
	// and subsumption counts them. A run that stops at the first failure
	// compiles only the mutants no test killed, after their runs: a
	// killed mutant cannot be equivalent, and most are killed.
	var tce *tceResult
	var err error
	if cfg.Full {
		if tce, err = p.tce(ctx, cfg, missing); err != nil {
			return nil, interrupted(ctx, err)
		}
	}
	missing, dups := tce.apply(p, results, missing)
	if len(missing) == 0 && prior != nil {
		// Every mutant left was equivalent, or cached.
		rep, err := p.answered(cfg, prior, results, tce, false)
		if rep != nil {
			rep.Seconds = time.Since(start).Seconds()
		}
		return rep, err
	}
	p.withTests(cfg, &keys)
	ru := p.loadReuse(cfg, keys, missing)
	rep, results, err := p.runMissing(ctx, cfg, results, missing, dups, ru)
	if err != nil {
		return nil, err
	}
	if !rep.Interrupted && !cfg.Full {
		var alive []int
		for _, i := range missing { // nothing was compiled before
			if results[i].ID != "" && results[i].Status != report.Killed {
				alive = append(alive, i)
			}
		}
		if tce, err = p.tce(ctx, cfg, alive); err != nil {
			return nil, interrupted(ctx, err)
		}
		tce.settle(p, results)
	}
	rep.TCE = tce.report()
	if rep.TCE != nil {
		rep.Seconds += rep.TCE.Seconds
	}
	// The cache keeps the equivalents and duplicates too; a mutant that
	// did not run (see Options.First) is in neither.
	rep.Mutants = slices.DeleteFunc(results, func(m report.Mutant) bool { return m.ID == "" })
	if p.store(cfg, keys, rep) && !cfg.Full {
		ran := map[string]bool{}
		for _, i := range missing {
			ran[p.Applied[i].Mutant.ID] = true
		}
		p.storeReuse(keys, rep, ran, ru)
	}
	dropInvalid(cfg, rep)
	if rep.Interrupted {
		return rep, ErrInterrupted
	}
	return rep, nil
}

// answered returns the report of a run that ran no mutant: prior's, with
// results (from the cache, or equivalent), after calling cfg.AfterBaseline
// with prior's tests.
func (p *prepared) answered(cfg config, prior *report.Report, results []report.Mutant, tce *tceResult, cached bool) (*report.Report, error) {
	if cfg.AfterBaseline != nil {
		if err := cfg.AfterBaseline(prior.Baseline.TestNames); err != nil {
			return nil, err
		}
	}
	rep := *prior
	rep.Mutants, rep.Cached, rep.Dropped, rep.Interrupted = results, cached, nil, false
	if tce != nil {
		rep.TCE = tce.report()
	}
	dropInvalid(cfg, &rep)
	return &rep, nil
}

// runMissing runs the baseline and the mutants at the indexes missing of
// results, and returns results with them filled in (a mutant interrupted
// before it finished is left out), and each duplicate of dups (index: the
// index of its twin) with its twin's verdict.
func (p *prepared) runMissing(ctx context.Context, cfg config, results []report.Mutant, missing []int, dups map[int]int, ru *reuse) (*report.Report, []report.Mutant, error) {
	// Only the mutants the cache lacks run, and are built.
	sub, subCfg := p.subset(cfg, missing)
	subCfg.reuse = ru
	b, err := runBaseline(ctx, subCfg, sub)
	if err != nil {
		return nil, nil, interrupted(ctx, err)
	}
	ru.pick(b.durations())
	if cfg.AfterBaseline != nil {
		if err := cfg.AfterBaseline(b.Result.Names()); err != nil {
			return nil, nil, err
		}
	}
	rep, err := runMutants(ctx, subCfg, sub, b)
	if err != nil {
		return nil, nil, interrupted(ctx, err)
	}
	for i, j := range missing {
		results[j] = rep.Mutants[i] // no ID: interrupted before it finished
	}
	for i, j := range dups {
		if results[j].ID == "" {
			results[i] = report.Mutant{}
		} else {
			results[i] = duplicate(results[i], results[j])
		}
	}
	if rep.Interrupted {
		results = slices.DeleteFunc(results, func(m report.Mutant) bool { return m.ID == "" })
	}
	return rep, results, nil
}

// dropInvalid drops the generated mutants of rep that are not valid Go,
// and says so.
func dropInvalid(cfg config, rep *report.Report) {
	rep.DropInvalidGenerated()
	n := len(rep.Dropped)
	if n == 0 {
		return
	}
	var ids []string
	for _, d := range rep.Dropped[:min(n, 5)] {
		ids = append(ids, d.ID)
	}
	if n > 5 {
		ids = append(ids, fmt.Sprintf("and %d more", n-5))
	}
	cfg.Progress.Printf("dropped %s that %s not valid Go (-json lists %s with the reason): %s",
		text.Count(n, "generated mutant", "generated mutants"), text.Plural(n, "is", "are"), text.Plural(n, "it", "them"), strings.Join(ids, ", "))
}

// subset returns p and cfg with only the mutants at the indexes in which.
func (p *prepared) subset(cfg config, which []int) (*prepared, config) {
	if len(which) == len(p.Applied) {
		return p, cfg
	}
	sub := *p
	sub.Applied, cfg.Mutants = nil, nil
	for _, i := range which {
		sub.Applied = append(sub.Applied, p.Applied[i])
		cfg.Mutants = append(cfg.Mutants, p.Applied[i].Mutant)
	}
	return &sub, cfg
}

// testNames returns the names of the tests of the unmutated suite, every
// subtest included: from the cache when an unchanged tree ran, otherwise
// from a run of the baseline.
func (p *prepared) testNames(ctx context.Context, cfg config) ([]string, error) {
	key := p.keys(ctx, cfg).baseline
	if !cfg.NoCache && key != "" {
		if b, ok := cache.LoadBaseline(key); ok {
			return b.TestNames, nil
		}
	}
	if err := cfg.mayRun(); err != nil {
		return nil, err
	}
	cfg.Mode = ModeOverlay // the plain binary is all it needs
	b, err := runBaseline(ctx, cfg, p)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	names := b.Result.Names()
	if key != "" {
		cache.StoreBaseline(key, report.Baseline{Tests: len(names), Seconds: b.Wall.Seconds(), TestNames: names})
	}
	return names, nil
}

// interrupted turns the error of a cancelled run into ErrInterrupted.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return err
}

// treeKeys are the cache keys of the tree of the target: with the settings
// of cfg's runs of mutants, and of its baseline alone; "" when the cache
// cannot be used. All come from one look at the tree, in.
type treeKeys struct {
	in             cache.Inputs
	runs, baseline string
	// others are the keys of the runs with the same settings in
	// sandboxes of the other tiers (those of every tier, when none is
	// available here).
	others map[sandbox.Tier]string
	// tests is the key of the runs' tree but the functions of its
	// tests, which tested holds the keys of (see reuse.go); "" and nil
	// when they cannot be read.
	tests  string
	tested *testKeys
}

// keys returns the cache keys of the tree of the target as it is now.
func (p *prepared) keys(ctx context.Context, cfg config) treeKeys {
	if cfg.reduced || cfg.Blind {
		// What runs without sandboxes decides is not kept, nor what a
		// learner's file decides in a copy of the module: no run reads
		// it.
		return treeKeys{}
	}
	// go list's answer for the tester tells the packages whose files are
	// in the key, unless its tests import more than it does.
	dirs, _ := p.tester.ModuleDirs(p.goEnv["GOROOT"], p.goEnv["GOWORK"] != "" && p.goEnv["GOWORK"] != "off")
	in, err := cache.Collect(ctx, "", p.Target.ModuleDir, p.tester.Rel, dirs, p.goEnv, map[string]string{"pkg": p.Target.Rel, "tester": p.tester.Rel})
	if err != nil {
		if ctx.Err() == nil { // an interrupt says so itself
			cfg.Progress.Printf("not using the cache: %v", err)
		}
		return treeKeys{}
	}
	return p.keysOf(cfg, in)
}

// withTests adds to k the keys of the tests' functions and of the tree but
// them (see reuse.go), which only a run that runs mutants needs; k is
// unchanged when they cannot be read.
func (p *prepared) withTests(cfg config, k *treeKeys) {
	if k.runs == "" {
		return
	}
	if tested, err := readTestKeys(p.Target.ModuleDir, p.tester.Dir); err == nil {
		k.tested = tested
		k.tests = p.testsKey(cfg, k.in, tested)
	}
}

func (p *prepared) keysOf(cfg config, in cache.Inputs) treeKeys {
	k := treeKeys{in: in, baseline: in.Key(), others: map[sandbox.Tier]string{}}
	for _, tier := range sandbox.Tiers {
		in.Flags = p.flags(cfg, tier)
		if tier == cmp.Or(cfg.tier, cfg.forced) {
			k.runs = in.Key()
		} else {
			k.others[tier] = in.Key()
		}
	}
	return k
}

// flags are the settings of cfg's runs in sandboxes of tier that the
// cache's keys hold.
func (p *prepared) flags(cfg config, tier sandbox.Tier) map[string]string {
	return map[string]string{"pkg": p.Target.Rel, "tester": p.tester.Rel, "mode": string(cfg.mode()), "timeout": cfg.Timeout.String(), "full": strconv.FormatBool(cfg.Full), "tce": strconv.FormatBool(!cfg.NoTCE),
		"memory": strconv.FormatInt(cfg.Memory, 10), "network": strconv.FormatBool(cfg.Network), "binds": strings.Join(cfg.Binds, "\x00"),
		"sandbox": sandboxKey(tier)}
}

// testsKey is the key of the runs' tree of in, but the functions of the
// tests that tested holds the keys of: their files are left out, and what
// the tests share is in instead.
func (p *prepared) testsKey(cfg config, in cache.Inputs, tested *testKeys) string {
	in.Files = maps.Clone(in.Files)
	for _, f := range tested.files {
		delete(in.Files, f)
	}
	in.Flags = p.flags(cfg, cmp.Or(cfg.tier, cfg.forced))
	in.Flags["tests shared"] = tested.shared
	return in.Key()
}

// sandboxKey is what the cache's key holds of the sandboxes a run's test
// binaries run in: verdicts reached in sandboxes of different walls are
// kept apart, as a test may pass behind one and fail behind the other.
// Namespaces give it a private /tmp and a loopback network, Landlock
// neither; and Landlock's walls grow with its ABI (a unix socket of the
// run's own, from ABI 9).
func sandboxKey(tier sandbox.Tier) string {
	if tier == sandbox.Landlock {
		return fmt.Sprintf("%s abi %d", tier, sandbox.LandlockABI())
	}
	return string(tier)
}

// cachedElsewhere returns what the cache holds for the tree of keys from
// runs in sandboxes of another tier, when it holds every mutant: the
// results, when none can be made here and the run did not ask for a tier
// (they need none to be read); otherwise what cached found (results,
// missing, prior), saying why a run in sandboxes of another tier does not
// answer this one.
func (p *prepared) cachedElsewhere(cfg config, keys treeKeys, results []report.Mutant, missing []int, prior *report.Report) ([]report.Mutant, []int, *report.Report) {
	for _, tier := range sandbox.Tiers {
		key, ok := keys.others[tier]
		if !ok {
			continue
		}
		r, m, pr := p.cached(cfg, key)
		if len(m) > 0 {
			continue
		}
		if cfg.tier == "" && cfg.forced == "" {
			cfg.Progress.Printf("results of %s sandboxes, from the cache: none can be made here, and none is needed to read them", tier)
			return r, m, pr
		}
		cfg.Progress.Printf("the cache holds these results from %s sandboxes, which this run in %s sandboxes does not take: their walls differ, and a verdict may too (docs/internals.md, The cache)", tier, cmp.Or(cfg.tier, cfg.forced))
		break
	}
	return results, missing, prior
}

// cached returns the result of each of p's mutants that the cache holds
// for the tree of key, the indexes of those it does not, and the run that
// the cached results go with.
func (p *prepared) cached(cfg config, key string) (results []report.Mutant, missing []int, prior *report.Report) {
	results = make([]report.Mutant, len(p.Applied))
	prior, ok := cache.LoadRun(key)
	for i, a := range p.Applied {
		m, found := report.Mutant{}, false
		if ok && !cfg.NoCache && key != "" {
			m, found = cache.LoadMutant(cache.MutantKey(key, a.Mutant))
		}
		if found {
			results[i] = m
		} else {
			missing = append(missing, i)
		}
	}
	return results, missing, prior
}

// store keeps the results of a fresh run under the keys made before it ran,
// each mutant's on its own, and its baseline under the baseline's key,
// unless the tree changed since the keys were made: go read the sources
// after that, so the results might be those of an edited tree. A cache
// that cannot be written is no error. It reports whether it kept them.
func (p *prepared) store(cfg config, keys treeKeys, rep *report.Report) bool {
	key := keys.runs
	if key == "" {
		return false
	}
	if now, err := keys.in.Rehash(); err != nil || p.keysOf(cfg, now).runs != key {
		cfg.Progress.Printf("not caching the results: the sources changed during the run")
		return false
	}
	if err := cache.StoreRun(key, rep); err != nil {
		cfg.Progress.Printf("not caching the results: %v", err)
		return false
	}
	byID := map[string]*mutation.Mutant{}
	for _, a := range p.Applied {
		byID[a.Mutant.ID] = a.Mutant
	}
	for _, m := range rep.Mutants {
		cache.StoreMutant(cache.MutantKey(key, byID[m.ID]), m)
	}
	cache.StoreBaseline(keys.baseline, rep.Baseline)
	return true
}

// guardCache takes the state of the cache directory before test binaries
// run without sandboxes, and returns the function that, once they have
// run, removes every file of it that is new or written since: they ran as
// the user, who may write there, and no later run may read what they
// wrote. (Such a run writes nothing there itself.)
func guardCache(pr *progress.Reporter) func() {
	snap, err := cache.Take()
	if err != nil {
		pr.Printf("the cache cannot be checked after the run: %v", err)
		return func() {}
	}
	return func() {
		removed, err := snap.Clean()
		if err != nil {
			pr.Printf("the cache changed while test binaries ran without sandboxes, and could not be cleaned: %v", err)
		}
		if n := len(removed); n > 0 {
			shown := removed[:min(n, 5)]
			pr.Printf("the cache changed while test binaries ran without sandboxes: removed %s (%s)", text.Count(n, "file", "files"), strings.Join(shown, ", "))
		}
	}
}
