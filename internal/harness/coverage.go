package harness

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/text"
)

// coverage is which top-level tests reach the site of each switched
// mutant. It comes from the switched build itself, run with no mutant
// active, one top-level test per process, twice: every site that the
// process reaches, while the package initializes or while the test (and
// whatever it starts) runs, records its id. A test that never reaches a
// site runs exactly as it would with the mutant active, so only the tests
// that reach it need to run.
type coverage struct {
	known   map[string]bool     // the mutants whose sites record their ids
	reached map[string][]string // mutant id: the tests that reach its site, sorted
	// everywhere are the tests whose reach is unknown: they did not pass
	// when run alone. They run for every mutant. A flaky test (it both
	// passed and failed) runs for what it reached when it passed.
	everywhere []string
}

// needsCoverage reports whether a run needs coverage: some mutant runs
// only the tests that reach its site. A generated mutant does (unless
// every mutant runs every test: see everyTest), and so does a catalog's
// in the same run, or when coverage pays for a catalog alone (see
// coveragePays). With -full, coverage only tells a generated survivor
// that no test reaches (not-covered).
func needsCoverage(cfg config, p *prepared, b *Baseline) bool {
	generated := slices.ContainsFunc(p.Applied, func(a *mutation.Applied) bool { return a.Mutant.Generated() })
	if generated || cfg.everyTest() {
		return generated
	}
	return coveragePays(cfg, len(p.Applied), b)
}

// coveragePays reports whether n catalog mutants, each running the whole
// suite (as long as the baseline's run of it), would take more than
// policy.CoverPays times what coverage costs: each test alone,
// CoverPasses times, each run paying its test's time and what a run pays
// beside its tests (a process, a sandbox, the package's init: what the
// baseline's run took beyond its tests, or the CPU before its first
// test, at least minRunCost). The saving can be no more than the
// suite's time for each mutant.
func coveragePays(cfg config, n int, b *Baseline) bool {
	pol := cfg.policy()
	var tests float64
	durations := b.durations()
	for _, d := range durations {
		tests += d
	}
	// Tests that run in parallel take more, summed, than the run.
	fixed := max(b.Result.Wall-tests, b.Result.StartCPU, minRunCost)
	alone := tests + float64(len(durations))*fixed
	return pol.CoverPays == 0 || float64(n)*b.Result.Wall > pol.CoverPays*float64(pol.CoverPasses)*alone
}

// minRunCost is the least a run of a test binary costs beside its tests,
// in seconds: a process started in a sandbox of its own.
const minRunCost = 0.02

// knows reports whether coverage says which tests reach mutant id.
func (c *coverage) knows(id string) bool { return c.known[id] }

// of returns the tests that reach the site of mutant id.
func (c *coverage) of(id string) []string {
	if len(c.everywhere) == 0 {
		return c.reached[id]
	}
	tests := slices.Concat(c.reached[id], c.everywhere)
	slices.Sort(tests)
	return slices.Compact(tests)
}

// probe runs test alone in dir, with no mutant active, within a wall
// limit, and returns the run and the ids of the mutants whose sites it
// reached.
type probe func(ctx context.Context, test, dir string, limit time.Duration) (*gotest.Result, []string, error)

// switchedProbe is the probe of the switched binary: the sites record
// their ids in the file that mutation.CoverEnv names.
func switchedProbe(cfg config, p *prepared, b *Baseline) probe {
	return func(ctx context.Context, test, dir string, limit time.Duration) (*gotest.Result, []string, error) {
		file := filepath.Join(dir, "reached")
		sb := b.switched
		env := append(sb.env(""), mutation.CoverEnv+"="+file)
		res, err := p.exec(ctx, cfg, sb.bin, env, []string{runOnly([]string{test})}, limits{wall: limit}, nil)
		if err != nil {
			return nil, nil, err
		}
		names, err := readLines(file)
		return res, sb.ids(names), err
	}
}

// runCoverage runs each top-level test of the baseline alone with probe,
// policy.CoverPasses times, cfg.Jobs at a time, and says which of the
// mutants marked it knows the tests that reach. A test that fails every
// time runs policy.CoverRecheck times more: one that passes then is flaky, one that never
// does runs for every mutant. onRun, if set, is given every run of a test
// alone, and onAlone each test's run alone (a failing one if there was
// one), for the confirmations.
func runCoverage(ctx context.Context, cfg config, p *prepared, b *Baseline, run probe, marked []string, onRun, onAlone func(test string, res *gotest.Result)) (*coverage, error) {
	tests := b.Result.TopLevel()
	reach := "reach"
	if len(tests) == 1 {
		reach = "reaches"
	}
	cfg.phase("coverage", "coverage: which of %s %s each of %s", text.Count(len(tests), "test", "tests"), reach, text.Count(len(marked), "mutant", "mutants"))
	cr := &coverRun{cfg: cfg, p: p, b: b, run: run, onRun: onRun}
	probes, err := cr.all(ctx, tests)
	if err != nil {
		return nil, err
	}
	c := &coverage{known: map[string]bool{}, reached: map[string][]string{}}
	for _, id := range marked {
		c.known[id] = true
	}
	for i, test := range tests {
		if err := cr.settle(ctx, c, i, test, &probes[i], onAlone); err != nil {
			return nil, err
		}
	}
	for id := range c.reached {
		slices.Sort(c.reached[id])
		c.reached[id] = slices.Compact(c.reached[id])
	}
	slices.Sort(c.everywhere)
	covered := 0
	for _, id := range marked {
		if len(c.of(id)) > 0 {
			covered++
		}
	}
	cfg.Progress.Printf("coverage: %d of %d mutants reached by some test", covered, len(marked))
	return c, nil
}

// coverRun is the running of coverage's probes.
type coverRun struct {
	cfg   config
	p     *prepared
	b     *Baseline
	run   probe
	onRun func(test string, res *gotest.Result)
}

// probes are the runs of one test alone, and what each reached.
type probes struct {
	results []*gotest.Result
	reached [][]string
}

// one probes test, the i-th, alone, in a directory of its own named name.
func (cr *coverRun) one(ctx context.Context, i int, test, name string) (*gotest.Result, []string, error) {
	dir := filepath.Join(cr.p.tmp, "cover", strconv.Itoa(i), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	limit := coverLimit(cr.cfg, cr.b, test)
	res, ids, err := cr.run(ctx, test, dir, limit)
	if err == nil && stoppedByWall(res) {
		// The reference passed this test in the baseline: stopped at a
		// wall limit, it was slowed down (a loaded machine), not stuck.
		// It runs again with a limit far above, as the reference's runs
		// do (see references.fresh); only a run that ended says
		// anything of the test.
		again := filepath.Join(dir, "again")
		if err := os.MkdirAll(again, 0o755); err != nil {
			return nil, nil, err
		}
		retry := cr.cfg.policy().RefRetryFactor * limit
		cr.cfg.Progress.Printf("coverage: %s, run alone with no mutant, was %s: the machine slowed it; once more, with %s",
			test, limits{wall: limit}.stopped(res), retry)
		res, ids, err = cr.run(ctx, test, again, retry)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("coverage of %s: %w", test, err)
	}
	if cr.onRun != nil {
		cr.onRun(test, res)
	}
	return res, ids, nil
}

// all probes each test CoverPasses times, cfg.Jobs at a time.
func (cr *coverRun) all(ctx context.Context, tests []string) ([]probes, error) {
	passes := cr.cfg.policy().CoverPasses
	out := make([]probes, len(tests))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(cr.cfg.Jobs, 1))
	for i, test := range tests {
		out[i] = probes{results: make([]*gotest.Result, passes), reached: make([][]string, passes)}
		for pass := range passes {
			g.Go(func() (err error) {
				out[i].results[pass], out[i].reached[pass], err = cr.one(gctx, i, test, strconv.Itoa(pass))
				return err
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, ctx.Err()
}

// settle adds what test, the i-th, reached to c, from its probes pr: a
// test that failed every time runs CoverRecheck times more, and one that
// passes then is flaky, one that never does runs for every mutant; a
// flaky test counts what it reached when it passed. onAlone, if set, is
// given its run alone, a failing one if there was one.
func (cr *coverRun) settle(ctx context.Context, c *coverage, i int, test string, pr *probes, onAlone func(test string, res *gotest.Result)) error {
	pol := cr.cfg.policy()
	ok := 0
	for _, res := range pr.results {
		if passedTest(res, test) && passed(res) {
			ok++
		}
	}
	// Failed every time: again, to tell a test that needs others from a
	// flaky one. A run that passes stands for the first.
	for pass := 0; ok == 0 && pass < pol.CoverRecheck; pass++ {
		res, ids, err := cr.one(ctx, i, test, "recheck-"+strconv.Itoa(pass))
		if err != nil {
			return err
		}
		if passedTest(res, test) && passed(res) {
			pr.results[0], pr.reached[0] = res, ids
			ok = 1
		}
	}
	if onAlone != nil {
		alone := pr.results[0]
		for _, res := range pr.results[1:] {
			if !passedTest(res, test) {
				alone = res
			}
		}
		onAlone(test, alone)
	}
	progress := cr.cfg.Progress
	switch ok {
	case 0:
		c.everywhere = append(c.everywhere, test)
		progress.Printf("coverage: %s does not pass when run alone (%s); it runs for every mutant", test, pr.results[0].Ended())
		return nil
	case len(pr.results):
	default:
		cr.b.refs.setFlaky(test)
		progress.Printf("coverage: %s is flaky: it both passed and failed when run alone with no mutant; it runs for the mutants it reaches, and its failures are never counted as kills", test)
	}
	// What it reaches when it passes: a mutant elsewhere can make it fail
	// only by chance.
	for pass, res := range pr.results {
		if passedTest(res, test) && passed(res) {
			for _, id := range pr.reached[pass] {
				c.reached[id] = append(c.reached[id], test)
			}
		}
	}
	return nil
}

// readLines returns the lines of a file that may not exist (no site was
// reached).
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			lines = append(lines, line)
		}
	}
	return slices.Compact(lines), sc.Err()
}

// durations returns how long each top-level test of the baseline took.
func (b *Baseline) durations() map[string]float64 {
	d := map[string]float64{}
	for _, name := range b.Result.TopLevel() {
		d[name] = b.Result.Tests[name].Elapsed
	}
	return d
}

// fastTest is how long a test may take in the baseline to run in the
// phase of the fast ones.
const fastTest = 0.1 // seconds
