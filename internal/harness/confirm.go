package harness

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/sandbox"
)

// confirm keeps, of v's failing tests, those whose failure reproduces, and
// moves the others to v.FlakyTests. Evidence comes in groups first: the
// top-level tests that failed in res, the run of ran, run together under
// the mutant (res itself, when it ran just them: a run of one test is
// that test alone), must fail again, and run together without it (a run
// of the reference, shared by every mutant that asks for it) must pass;
// and each such test must be trusted (see references.trust). Those the
// group does not confirm go one at a time: each top-level test alone, in
// a process of its own, against the reference alone; a test that does not
// fail alone, or fails alone without the mutant too (it needs the tests
// before it), is tried again in the grouping it failed in, group, against
// the reference in the same grouping. A test that was only running when
// the binary died is confirmed alone or not at all: run with the others,
// it would die again whoever caused it. Those that pass alone were
// bystanders, and are dropped; if all were, and the binary dies again in
// the grouping, the mutant crashed, detected but by no test. A test known
// to be flaky without any mutant is never confirmed, nor one whose
// failure did not reproduce in an earlier attempt at the same mutant
// (m.flaky).
func (m *mutantRun) confirm(ctx context.Context, v *verdict, group []string, res *gotest.Result, ran []string) error {
	c := &confirmation{m: m, v: v, ran: ran, byTop: map[string][]string{}, died: map[string]bool{}}
	for _, name := range v.FailedTests {
		if top := topLevel(name); !m.b.refs.isFlaky(top) && !m.flaky[top] {
			c.byTop[top] = append(c.byTop[top], name)
		}
	}
	if v.Status == report.Killed {
		for _, name := range v.Running {
			c.died[name] = true
		}
	}
	aloneRun, err := c.together(ctx, res)
	if err != nil {
		return err
	}
	for _, top := range slices.Sorted(maps.Keys(c.byTop)) {
		if slices.ContainsFunc(c.byTop[top], func(name string) bool { return !c.confirmed[name] }) {
			if err := c.alone(ctx, top, aloneRun[top]); err != nil {
				return err
			}
		}
	}
	if (len(c.again) > 0 || len(c.bystanders) > 0 && len(c.confirmed) == 0) && len(group) > 1 {
		if err := c.inGrouping(ctx, group); err != nil {
			return err
		}
	}
	c.keep()
	return nil
}

// confirmation is the confirmation of one mutant's failing tests.
type confirmation struct {
	m     *mutantRun
	v     *verdict
	ran   []string            // the tests of the run they failed in
	byTop map[string][]string // the failing tests to confirm, by top-level test
	died  map[string]bool     // running when the binary died, with no outcome

	confirmed  map[string]bool
	again      []string // to try in the grouping they failed in
	bystanders []string // running when the binary died, and passing alone
}

// together confirms the failing tests that the group confirms: their
// top-level tests run together under the mutant, and without it. The run
// under the mutant is res when res, a run of c.ran, ran those tests and no
// other: a failure in a run of one test is its failure alone. A test that
// was running when the binary died is left to be confirmed alone.
// aloneRun holds the run under the mutant of a group of one test: that
// test's run alone.
func (c *confirmation) together(ctx context.Context, res *gotest.Result) (aloneRun map[string]*gotest.Result, err error) {
	m := c.m
	c.confirmed, aloneRun = map[string]bool{}, map[string]*gotest.Result{}
	var tops []string
	for _, top := range slices.Sorted(maps.Keys(c.byTop)) {
		if !slices.ContainsFunc(c.byTop[top], func(name string) bool { return c.died[name] }) {
			tops = append(tops, top)
		}
	}
	if len(tops) == 0 {
		return aloneRun, nil
	}
	lim := m.limitsOf(tops)
	args := m.args(tops, false)
	if !slices.Equal(sortedCopy(c.ran), tops) || res.TimedOut {
		if res, _, err = m.execMutant(ctx, args, lim); err != nil {
			return nil, err
		}
		c.v.TestSeconds += res.Wall
	}
	if len(tops) == 1 {
		aloneRun[tops[0]] = res
	}
	ref, err := m.b.refs.run(ctx, m.ref, m.refEnv, args, lim.wall)
	if err != nil {
		return nil, err
	}
	var candidates []string
	for _, top := range tops {
		if passedTest(ref, top) && slices.ContainsFunc(c.byTop[top], func(name string) bool { return failedIn(res, name) }) {
			candidates = append(candidates, top)
		}
	}
	trusted, err := m.b.refs.trust(ctx, m.ref, m.refEnv, args, m.args(c.ran, false), candidates, lim.wall)
	if err != nil {
		return nil, err
	}
	for _, top := range candidates {
		for _, name := range c.byTop[top] {
			if trusted[top] && failedIn(res, name) {
				c.confirmed[name] = true
			}
		}
	}
	return aloneRun, nil
}

// alone confirms the failing tests of top that the group did not: top
// alone under the mutant (run, unless the group's run was of top alone)
// against the reference alone; a subtest running when the binary died
// alone, without its siblings.
func (c *confirmation) alone(ctx context.Context, top string, run *gotest.Result) error {
	m := c.m
	lim := m.limitsOf([]string{top})
	topArgs := m.args([]string{top}, false)
	var err error
	if run == nil {
		if run, _, err = m.execMutant(ctx, topArgs, lim); err != nil {
			return err
		}
		c.v.TestSeconds += run.Wall
	}
	topRef, err := m.b.refs.run(ctx, m.ref, m.refEnv, topArgs, lim.wall)
	if err != nil {
		return err
	}
	for _, name := range c.byTop[top] {
		if c.confirmed[name] {
			continue
		}
		res, ref, args := run, topRef, topArgs
		if t := run.Tests[name]; name != top && (c.died[name] || t != nil && t.Outcome == "") {
			// A subtest running when the binary died may be a bystander
			// of a sibling's crash: alone means without its siblings.
			args = []string{runPath(name)}
			if res, _, err = m.execMutant(ctx, args, lim); err != nil {
				return err
			}
			c.v.TestSeconds += res.Wall
			if ref, err = m.b.refs.run(ctx, m.ref, m.refEnv, args, lim.wall); err != nil {
				return err
			}
		}
		reproduced := passedTest(ref, top) && failedIn(res, name)
		if reproduced {
			trusted, err := m.b.refs.trust(ctx, m.ref, m.refEnv, args, m.args(c.ran, false), []string{top}, lim.wall)
			if err != nil {
				return err
			}
			if !trusted[top] {
				continue // flaky without the mutant: no killer
			}
		}
		switch {
		case reproduced:
			c.confirmed[name] = true
		case c.died[name]:
			c.bystanders = append(c.bystanders, name)
		default:
			c.again = append(c.again, name)
		}
	}
	return nil
}

// inGrouping tries the tests that did not fail alone again in group, the
// grouping they failed in, under the mutant and against the reference in
// the same grouping; when the binary dies again there and none of its
// tests fails alone, the mutant crashed, detected but by no test.
func (c *confirmation) inGrouping(ctx context.Context, group []string) error {
	m := c.m
	lim := m.limitsOf(group)
	res, _, err := m.execMutant(ctx, m.args(group, false), lim)
	if err != nil {
		return err
	}
	c.v.TestSeconds += res.Wall
	// A run of its own, now, not one that another mutant's confirmation
	// or the baseline made earlier: what the tests meet now, beside this
	// run, they meet in both.
	ref, err := m.b.refs.fresh(ctx, m.ref, m.refEnv, m.args(group, false), lim.wall)
	if err != nil {
		return err
	}
	for _, name := range c.again {
		if passedTest(ref, topLevel(name)) && failedIn(res, name) {
			c.confirmed[name] = true
		}
	}
	if len(c.confirmed) == 0 && len(c.again) == 0 && !passed(res) && len(res.Failed()) == 0 && passed(ref) {
		v := c.v
		v.seen.crash, v.Running = crashBystanders, res.Unfinished()
		v.Reason = fmt.Sprintf("the test binary %s while %s ran, and again when run again; none of them fails alone", res.Ended(), strings.Join(c.bystanders, ", "))
		v.Output = res.Output
		v.decide()
	}
	return nil
}

// keep keeps the confirmed failures as v's, and moves the others, but the
// bystanders, to its flaky tests.
func (c *confirmation) keep() {
	v := c.v
	failed, failures := []string{}, []report.Failure{}
	for i, name := range v.FailedTests {
		switch {
		case c.confirmed[name]:
			failed, failures = append(failed, name), append(failures, v.Failures[i])
		case !slices.Contains(c.bystanders, name):
			v.FlakyTests = append(v.FlakyTests, name)
		}
	}
	v.FailedTests, v.Failures = failed, failures
	slices.Sort(v.FlakyTests)
	v.seen.failed = len(failed) > 0
	v.decide()
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// topLevel returns the top-level test of a test or subtest's name.
func topLevel(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
}

// runPath returns the -test.run flag that runs one test or subtest, and
// none of its siblings: each level of the name matched whole.
func runPath(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return "-test.run=" + strings.Join(parts, "/")
}

// failedIn reports whether test name failed in res, or was running when
// its binary ended.
func failedIn(res *gotest.Result, name string) bool {
	t := res.Tests[name]
	return t != nil && (t.Outcome == gotest.Fail || t.Outcome == "")
}

// passedTest reports whether the top-level test passed in res (its
// subtests with it), in a run that ended well.
func passedTest(res *gotest.Result, top string) bool {
	t := res.Tests[top]
	return t != nil && t.Outcome == gotest.Pass && !res.TimedOut && res.Signal == ""
}

// references are the runs of the reference (a binary with no mutant
// active) that confirmations compare with: each distinct run happens once
// in a mutate run, whichever mutant asks first, and the others wait for
// it. flaky holds the top-level tests that passed and failed in runs of
// the reference with the same flags (coverage runs each test alone twice):
// a failure of theirs is never confirmed.
type references struct {
	p   *prepared
	cfg config

	mu     sync.Mutex
	runs   map[string]*refRun // by binary and flags
	flaky  map[string]bool
	passes map[string]map[string]int // by the flags of a run: top-level test: runs of the reference it passed

	cached map[string]map[string]bool // by binary: what the cache says trust holds
}

type refRun struct {
	done chan struct{}
	res  *gotest.Result
	err  error
}

func newReferences(p *prepared, cfg config) *references {
	return &references{p: p, cfg: cfg, runs: map[string]*refRun{}, flaky: map[string]bool{},
		passes: map[string]map[string]int{}, cached: map[string]map[string]bool{}}
}

func refKey(bin string, args []string) string {
	return bin + "\x00" + strings.Join(args, "\x00")
}

// set records res as the run of bin with args, and counts its passes.
func (rs *references) set(bin string, args []string, res *gotest.Result) {
	rs.count(bin, args, res)
	rs.record(bin, args, res)
}

// record records res as the run of bin with args.
func (rs *references) record(bin string, args []string, res *gotest.Result) {
	r := &refRun{done: make(chan struct{}), res: res}
	close(r.done)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.runs[refKey(bin, args)] = r
}

// setFlaky records that test is flaky without any mutant.
func (rs *references) setFlaky(test string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.flaky[test] = true
}

func (rs *references) isFlaky(test string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.flaky[test]
}

// flakyTests returns the tests known to be flaky without any mutant,
// sorted.
func (rs *references) flakyTests() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Sorted(maps.Keys(rs.flaky))
}

// A test that fails by chance in a grouping (one that compares two
// readings of the clock, or fails alone and passes in the package's order,
// say) would kill every mutant under which it failed twice there, as often
// as the reference's one run had passed, but for trust: it must have
// passed policy.TrustPasses runs without any mutant in the groupings in
// which it failed under a mutant. Every run of the reference with the same
// flags counts, whoever made it: the baseline and the switched build's run
// of every test, the run that the evidence is compared with, coverage's
// runs alone.

// trust returns, of tops, the top-level tests that may kill when their
// failures reproduce in the grouping of args, after failing in the
// grouping of first: each has passed in TrustPasses runs of the reference
// with no mutant, with args or first, or passed so in an earlier mutate
// run of the same binary (the cache keeps that). While some are short of
// it, bin runs with env and args up to TrustRuns times more (with a limit
// RefRetryFactor times limit, and once more with a longer one if the
// machine slowed it past that: see fresh): one that fails in such a run
// is flaky for the rest of the mutate run, and kills nothing; a run
// stopped at its limit says nothing either way.
func (rs *references) trust(ctx context.Context, bin string, env, args, first, tops []string, limit time.Duration) (map[string]bool, error) {
	group, firstGroup := groupKey(args), groupKey(first)
	pol := rs.cfg.policy()
	trusted := map[string]bool{}
	for run := 0; ; run++ {
		var short []string
		rs.mu.Lock()
		for _, top := range tops {
			passes := rs.passes[group][top]
			if firstGroup != group {
				passes += rs.passes[firstGroup][top]
			}
			switch {
			case rs.flaky[top]:
			case passes >= pol.TrustPasses || rs.cachedTrust(bin)[group+"\x00"+top]:
				trusted[top] = true
			default:
				short = append(short, top)
			}
		}
		rs.mu.Unlock()
		if len(short) == 0 || run == pol.TrustRuns {
			break
		}
		// A run stopped at its wall limit was slowed by the machine: it
		// runs again (fresh), for a run that says nothing leaves a
		// killer short of its passes, and load would decide its verdict.
		res, err := rs.fresh(ctx, bin, env, args, pol.RefRetryFactor*limit)
		if err != nil {
			return nil, err
		}
		for _, top := range short {
			if t := res.Tests[top]; t != nil && t.Outcome == gotest.Fail && !res.TimedOut {
				rs.setFlaky(top)
			}
		}
	}
	rs.keepTrust(bin, group, trusted)
	return trusted, nil
}

// count adds the top-level tests that passed in res, a run of bin with no
// mutant active and args, to their passes in that grouping: those that
// args ran.
func (rs *references) count(bin string, args []string, res *gotest.Result) {
	if res == nil {
		return
	}
	var only *regexp.Regexp
	for _, arg := range args {
		if pattern, ok := strings.CutPrefix(arg, "-test.run="); ok {
			first, _, _ := strings.Cut(pattern, "/") // runPath's top level
			only, _ = regexp.Compile(first)
		}
	}
	group := groupKey(args)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.passes[group] == nil {
		rs.passes[group] = map[string]int{}
	}
	for _, top := range res.TopLevel() {
		if passedTest(res, top) && (only == nil || only.MatchString(top)) {
			rs.passes[group][top]++
		}
	}
}

// fewestPasses returns how many runs with args, of the reference with no
// mutant, every test they ran has passed: the passes of the test that has
// the fewest in that grouping.
func (rs *references) fewestPasses(args []string) int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	passes := rs.passes[groupKey(args)]
	if len(passes) == 0 {
		return 0
	}
	return slices.Min(slices.Collect(maps.Values(passes)))
}

// testsOf names, for a person, the tests that a run with args runs: those
// its -test.run pattern (runOnly's or runPath's) names, or every test.
func testsOf(args []string) string {
	for _, arg := range args {
		if pattern, ok := strings.CutPrefix(arg, "-test.run="); ok {
			pattern = strings.TrimSuffix(strings.TrimPrefix(pattern, "^(?:"), ")$")
			return strings.NewReplacer("|", ", ", "^", "", "$", "", `\`, "").Replace(pattern)
		}
	}
	return "every test"
}

// groupKey names the grouping of a run with args: which tests run
// together, in source order; whether the run stops at the first failure
// does not change it.
func groupKey(args []string) string {
	return strings.Join(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "-test.failfast" }), " ")
}

// cachedTrust returns the tests the cache says passed often enough in
// earlier mutate runs of bin (none with reduced isolation, which keeps no
// cache, or with -no-cache, which trusts nothing it did not see). rs.mu
// is held.
func (rs *references) cachedTrust(bin string) map[string]bool {
	if t, ok := rs.cached[bin]; ok {
		return t
	}
	t := map[string]bool{}
	if sum := rs.p.bins.sum(bin); sum != "" && !rs.cfg.reduced && !rs.cfg.NoCache {
		t = cache.LoadTrusted(trustKey(sum, rs.cfg.tier))
	}
	rs.cached[bin] = t
	return t
}

// trustKey is the key of the trust that runs of the binary of content sum
// earned in sandboxes of tier: a test that passes behind one sandbox's
// walls may fail behind another's (see sandboxKey).
func trustKey(sum string, tier sandbox.Tier) string {
	return sum + "-" + strings.ReplaceAll(sandboxKey(tier), " ", "-")
}

// keepTrust keeps, in the cache, the tests trusted as killers for bin in
// the grouping of group, the flags of its runs.
func (rs *references) keepTrust(bin, group string, trusted map[string]bool) {
	sum := rs.p.bins.sum(bin)
	if sum == "" || rs.cfg.reduced || rs.cfg.Blind || len(trusted) == 0 {
		return
	}
	var keys []string
	for top := range trusted {
		keys = append(keys, group+"\x00"+top)
	}
	slices.Sort(keys)
	cache.StoreTrusted(trustKey(sum, rs.cfg.tier), keys) // a cache it cannot write is no error
}

// known returns the result of bin with args, if it has run to the end
// already; nil if it has not (see run).
func (rs *references) known(bin string, args []string) *gotest.Result {
	rs.mu.Lock()
	r, ok := rs.runs[refKey(bin, args)]
	rs.mu.Unlock()
	if !ok {
		return nil
	}
	select {
	case <-r.done:
		if r.err != nil {
			return nil
		}
		return r.res
	default:
		return nil
	}
}

// run returns the result of bin, with env and args, with no mutant active:
// run once, by the first to ask.
func (rs *references) run(ctx context.Context, bin string, env, args []string, limit time.Duration) (*gotest.Result, error) {
	r, err := rs.once(ctx, refKey(bin, args), func(r *refRun) {
		r.res, r.err = rs.fresh(ctx, bin, env, args, limit)
	})
	if err != nil {
		return nil, err
	}
	return r.res, nil
}

// fresh runs bin, with env and args, with no mutant active, now: a run
// shared with no one, whose passes count. The reference passed these tests
// in the baseline: stopped at its wall limit, it was slowed down, not
// stuck, and runs again (runReference); a run that says nothing cannot
// confirm or refute a failure.
func (rs *references) fresh(ctx context.Context, bin string, env, args []string, limit time.Duration) (*gotest.Result, error) {
	res, err := runReference(ctx, rs.cfg, rs.p, "the reference's run of "+testsOf(args), bin, env, args, limits{wall: limit}, nil)
	if err == nil {
		rs.count(bin, args, res)
	}
	return res, err
}

// once returns the entry of key, done by the first to ask, who fills it
// in with do; the others wait for it. Its error is the entry's, or the
// context's while waiting.
func (rs *references) once(ctx context.Context, key string, do func(r *refRun)) (*refRun, error) {
	rs.mu.Lock()
	r, ok := rs.runs[key]
	if !ok {
		r = &refRun{done: make(chan struct{})}
		rs.runs[key] = r
		rs.mu.Unlock()
		do(r)
		close(r.done)
		return r, r.err
	}
	rs.mu.Unlock()
	select {
	case <-r.done:
		return r, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
