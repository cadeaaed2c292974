package harness

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
)

// confirm keeps, of v's failing tests, those whose failure reproduces, and
// moves the others to v.FlakyTests. A test that failed under the mutant is
// confirmed when it fails again under the mutant and passes without it:
// first each top-level test alone, in a process of its own, against the
// reference alone; a test that does not fail alone, or fails alone without
// the mutant too (it needs the tests before it), is tried again in the
// grouping it failed in, group, against the reference in the same grouping.
// A test that was only running when the binary died is confirmed alone or
// not at all: run with the others, it would die again whoever caused it.
// Those that pass alone were bystanders, and are dropped; if all were, and
// the binary dies again in the grouping, the mutant crashed, detected but
// by no test. A test known to be flaky without any mutant is never
// confirmed, nor one whose failure did not reproduce in an earlier attempt
// at the same mutant (m.flaky).
func (m *mutantRun) confirm(ctx context.Context, v *report.Mutant, group []string) error {
	byTop := map[string][]string{}
	for _, name := range v.FailedTests {
		top := topLevel(name)
		byTop[top] = append(byTop[top], name)
	}
	died := map[string]bool{} // running when the binary died, with no outcome
	if v.Status == report.Killed {
		for _, name := range v.Running {
			died[name] = true
		}
	}
	confirmed := map[string]bool{}
	var again, bystanders []string
	for _, top := range slices.Sorted(maps.Keys(byTop)) {
		if m.b.refs.isFlaky(top) || m.flaky[top] {
			continue
		}
		lim := m.limitsOf([]string{top})
		alone, _, err := m.execMutant(ctx, m.args([]string{top}, false), lim)
		if err != nil {
			return err
		}
		v.TestSeconds += alone.Wall
		topArgs := m.args([]string{top}, false)
		ref, err := m.b.refs.run(ctx, m.ref, m.refEnv, topArgs, lim.wall)
		if err != nil {
			return err
		}
		for _, name := range byTop[top] {
			res, ref, args := alone, ref, topArgs
			if t := alone.Tests[name]; name != top && (died[name] || t != nil && t.Outcome == "") {
				// A subtest running when the binary died may be a
				// bystander of a sibling's crash: alone means without
				// its siblings.
				args = []string{runPath(name)}
				if res, _, err = m.execMutant(ctx, args, lim); err != nil {
					return err
				}
				v.TestSeconds += res.Wall
				if ref, err = m.b.refs.run(ctx, m.ref, m.refEnv, args, lim.wall); err != nil {
					return err
				}
			}
			reproduced := passedTest(ref, top) && failedIn(res, name)
			if reproduced {
				trusted, err := m.b.refs.trusted(ctx, m.ref, m.refEnv, args, top, lim.wall)
				if err != nil {
					return err
				}
				if !trusted {
					continue // flaky alone without the mutant: no killer
				}
			}
			switch {
			case reproduced:
				confirmed[name] = true
			case died[name]:
				bystanders = append(bystanders, name)
			default:
				again = append(again, name)
			}
		}
	}
	if (len(again) > 0 || len(bystanders) > 0 && len(confirmed) == 0) && len(group) > 1 {
		lim := m.limitsOf(group)
		res, _, err := m.execMutant(ctx, m.args(group, false), lim)
		if err != nil {
			return err
		}
		v.TestSeconds += res.Wall
		// A run of its own, now, not one that another mutant's
		// confirmation or the baseline made earlier: what the tests meet
		// now, beside this run (another run's process, a port), they
		// meet in both.
		ref, err := m.b.refs.fresh(ctx, m.ref, m.refEnv, m.args(group, false), lim.wall)
		if err != nil {
			return err
		}
		for _, name := range again {
			if passedTest(ref, topLevel(name)) && failedIn(res, name) {
				confirmed[name] = true
			}
		}
		if len(confirmed) == 0 && len(again) == 0 && !passed(res) && len(res.Failed()) == 0 && passed(ref) {
			v.Status, v.Running = report.Crashed, res.Unfinished()
			v.Reason = fmt.Sprintf("the test binary %s while %s ran, and again when run again; none of them fails alone", res.Ended(), strings.Join(bystanders, ", "))
			v.Output = res.Output
		}
	}
	failed, failures := []string{}, []report.Failure{}
	for i, name := range v.FailedTests {
		switch {
		case confirmed[name]:
			failed, failures = append(failed, name), append(failures, v.Failures[i])
		case !slices.Contains(bystanders, name):
			v.FlakyTests = append(v.FlakyTests, name)
		}
	}
	v.FailedTests, v.Failures = failed, failures
	slices.Sort(v.FlakyTests)
	return nil
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

	mu    sync.Mutex
	runs  map[string]*refRun // by binary and flags
	flaky map[string]bool
}

type refRun struct {
	done chan struct{}
	res  *gotest.Result
	err  error
}

// refRetryFactor is how much longer a run of the reference that reached
// its limit gets the second time.
const refRetryFactor = 4

func newReferences(p *prepared, cfg config) *references {
	return &references{p: p, cfg: cfg, runs: map[string]*refRun{}, flaky: map[string]bool{}}
}

func refKey(bin string, args []string) string {
	return bin + "\x00" + strings.Join(args, "\x00")
}

// set records res as the run of bin with args.
func (rs *references) set(bin string, args []string, res *gotest.Result) {
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

// trustRuns is how many more times a test runs alone without the mutant,
// once in a mutate run, when its failure alone under a mutant would first
// make it a killer: its passing alone is trusted only if it passes each
// time. A test that fails alone by chance (one that compares two readings
// of the clock, say) would otherwise kill every mutant under which it
// failed twice, as often as the reference's one run alone had passed.
const trustRuns = 3

// trusted reports whether the reference's pass of test top, run alone
// with args, holds: the first to ask runs it trustRuns more times, and a
// failure in any makes top flaky for the rest of the mutate run; a run
// stopped at its limit (made four times longer) says nothing either way.
func (rs *references) trusted(ctx context.Context, bin string, env, args []string, top string, limit time.Duration) (bool, error) {
	_, err := rs.once(ctx, refKey(bin, args)+"\x00trusted", func(r *refRun) {
		for range trustRuns {
			res, err := rs.exec(ctx, bin, env, args, refRetryFactor*limit)
			if r.err = err; err != nil {
				return
			}
			if t := res.Tests[top]; t != nil && t.Outcome == gotest.Fail && !res.TimedOut {
				rs.setFlaky(top)
				return
			}
		}
	})
	if err != nil {
		return false, err
	}
	return !rs.isFlaky(top), nil
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
// shared with no one.
func (rs *references) fresh(ctx context.Context, bin string, env, args []string, limit time.Duration) (*gotest.Result, error) {
	res, err := rs.exec(ctx, bin, env, args, limit)
	if err == nil && res.TimedOut && !res.OverMemory {
		// The reference passed these tests in the baseline: stopped at
		// its limit, it was slowed down, not stuck. A run that says
		// nothing cannot confirm or refute a failure.
		res, err = rs.exec(ctx, bin, env, args, refRetryFactor*limit)
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

// exec runs bin with no mutant active, in the references' directory.
func (rs *references) exec(ctx context.Context, bin string, env, args []string, limit time.Duration) (*gotest.Result, error) {
	return rs.p.exec(ctx, rs.cfg, bin, filepath.Join(rs.p.tmp, "reference"), env, args, limits{wall: limit}, nil)
}
