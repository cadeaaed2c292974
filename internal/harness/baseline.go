package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/text"
)

// BaselineError is returned when the unmutated suite does not pass: no
// mutant can be judged against a red or flaky baseline.
type BaselineError struct {
	Package    string
	Flaky      bool  // the two runs disagreed
	TimedOut   bool  // the first run did not end within its limit
	OverMemory int64 // the first run held more than this memory limit, in bytes
	// NeedsNetwork says that the failing tests, run again on their own,
	// passed with the host's network and failed without it: the
	// sandboxes do not give it without -network.
	NeedsNetwork bool
	// Seen is what each run showed, in order ("the whole suite: failed
	// TestX"), and the machine's load then: the evidence a cause is
	// named from, and nothing else.
	Seen     []string
	NoTests  bool              // the suite passed, but no test ran
	Failed   []string          // tests that failed in the first run
	Messages map[string]string // their messages, and those of Unfinished
	// Unfinished are the tests of the first run that had started and not
	// finished when its binary ended (a crash, an exit, a limit).
	Unfinished  []string
	Ended       string // how the first run's binary ended: "exited with status 2"
	Output      string // what the test binary printed outside any test
	BuildOutput string // when the package does not build
	// BuildCostly says which limit of a blind run's build stopped the
	// build of the package (see gotest.BuildLimits).
	BuildCostly string
}

func (e *BaselineError) Error() string {
	var b strings.Builder
	switch {
	case e.BuildCostly != "":
		fmt.Fprintf(&b, "the build of the unmutated package %s was stopped at its limit: %s", e.Package, e.BuildCostly)
	case e.BuildOutput != "":
		fmt.Fprintf(&b, "the unmutated package %s does not build:\n%s", e.Package, strings.TrimRight(e.BuildOutput, "\n"))
	case e.NoTests:
		fmt.Fprintf(&b, "no test of %s ran: with no test, no mutant could ever be killed", e.Package)
	case e.OverMemory > 0:
		fmt.Fprintf(&b, "the unmutated suite of %s held more memory than its limit, %s; raise -memory. Running when it was stopped:", e.Package, text.Bytes(e.OverMemory))
	case e.TimedOut:
		fmt.Fprintf(&b, "the unmutated suite of %s did not finish within its limit; raise -timeout or fix the hang. Running when it was stopped:", e.Package)
	case e.Flaky:
		fmt.Fprintf(&b, "the unmutated suite of %s is flaky: it failed, then passed or failed differently when run again; no mutant can be judged against it. Failed the first time:", e.Package)
	default:
		fmt.Fprintf(&b, "the unmutated suite of %s fails, twice; fix it before running mutants. Failed:", e.Package)
	}
	for _, name := range e.Failed {
		fmt.Fprintf(&b, "\n  %s", name)
		if msg := e.Messages[name]; msg != "" {
			fmt.Fprintf(&b, "\n%s", text.Indent(msg, "      "))
		}
	}
	if len(e.Failed) == 0 && e.Output != "" && e.BuildOutput == "" {
		fmt.Fprintf(&b, " no test, but the test binary said:\n%s", text.Indent(e.Output, "      "))
	}
	if len(e.Seen) > 0 {
		b.WriteString("\nSeen:")
		for _, s := range e.Seen {
			fmt.Fprintf(&b, "\n  %s", s)
		}
	}
	if e.NeedsNetwork {
		b.WriteString("\nAlone, they passed with the host's network and failed without it: each test binary has a network of its own, with only a loopback interface; -network lets them use the host's.")
	}
	return b.String()
}

// Baseline is a passing run of the unmutated suite, and in switch mode the
// switched build made while it ran.
type Baseline struct {
	Result   *gotest.Result
	Wall     time.Duration // of the test binary's run, without its build
	plain    string        // the unmutated test binary
	switched *switchedBuild
	// refs are the runs of the reference that confirm the mutants'
	// failures (see mutantRun.confirm).
	refs *references
	// invalid holds, by id, the compiler's messages for each mutant that
	// is not valid Go on its own: build-failed in either mode.
	invalid map[string]string
	// coverage says which tests reach each switched mutant's site; nil
	// when it is not measured, and noCoverage says why.
	coverage   *coverage
	noCoverage string
}

// runBaseline builds and runs the unmutated suite, and runs it once more
// if it fails, to tell a red suite from a flaky one; either is a
// *BaselineError. In switch mode it builds the switched test binary at the
// same time, runs it with no mutant active beside the baseline, checks
// that it passes alike, and measures coverage with it.
func runBaseline(ctx context.Context, cfg config, p *prepared) (*Baseline, error) {
	bin, sb, invalid, err := buildAll(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	res, err := runReferences(ctx, cfg, p, bin, sb)
	if err != nil {
		return nil, err
	}
	pr := cfg.Progress
	pr.Printf("baseline %s: %s passed (%.1fs)", p.Target.Rel, text.Count(len(res.Tests), "test", "tests"), res.Wall)
	// The memory limit of the runs to come follows from what the
	// reference held.
	peak := res.PeakMemory
	if sb != nil && sb.inactive != nil {
		peak = max(peak, sb.inactive.PeakMemory)
	}
	p.memory = memoryLimit(cfg.Options, peak)
	b := &Baseline{Result: res, Wall: seconds(res.Wall), plain: bin, switched: sb, invalid: invalid, refs: newReferences(p, cfg)}
	// The baseline is the plain build's run of the whole suite.
	b.refs.set(bin, nil, res)
	if sb != nil && sb.err == nil {
		sayExcluded(pr, p, sb, invalid)
		differs, err := checkSwitched(ctx, cfg, p, b)
		if err != nil {
			return nil, err
		}
		if differs != nil {
			// Its results could not be trusted: the mutants are built
			// one by one instead, and the run goes on.
			pr.Printf("%v; so every mutant gets a build of its own (as with -mode=overlay), and coverage comes from the reference built with -cover", differs)
			b.switched = nil
		} else if sb.inactive != nil {
			// The switched build's run with no mutant active is a run of
			// the reference: it counts, for trust, as the baseline does.
			b.refs.set(sb.bin, nil, sb.inactive)
		}
	}
	if err := b.trustEveryTest(ctx, cfg, p); err != nil {
		return nil, err
	}
	if !needsCoverage(cfg, p, b) {
		return b, nil
	}
	if sb := b.switched; sb != nil && sb.err == nil && sb.bin != "" {
		// The switched binary's runs alone are the reference's runs
		// alone, for the confirmations.
		// Each counts as a pass of the reference alone, for trust.
		onRun := func(test string, res *gotest.Result) { b.refs.count(sb.bin, []string{runOnly([]string{test})}, res) }
		onAlone := func(test string, res *gotest.Result) { b.refs.record(sb.bin, []string{runOnly([]string{test})}, res) }
		b.noCoverage = "its site cannot be marked in the switched build"
		b.coverage, err = runCoverage(ctx, cfg, p, b, switchedProbe(cfg, p, b), sb.sw.Marked(), onRun, onAlone)
	} else {
		b.noCoverage = "its site is in no block of code that Go's coverage counts"
		b.coverage, err = referenceCoverage(ctx, cfg, p, b)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// trustEveryTest runs every test without a mutant, as the mutants' runs
// of every test will run them, when some mutant will (a catalog's, or
// -full): a failure under a mutant there, that reproduces in a run of the
// failing tests together, is then trusted (see references.trust) with the
// passes of the baseline, of the switched build with no mutant active, of
// these runs and of the one it is compared with, without more runs of its
// own. It runs every test once, or, when more such mutants will run than
// it takes, as often as that needs, the runs side by side: each mutant's
// killers would otherwise need a run of their own.
func (b *Baseline) trustEveryTest(ctx context.Context, cfg config, p *prepared) error {
	whole := 0
	for _, a := range p.Applied {
		if _, reusing := cfg.reuse.get(a.Mutant.ID); !reusing && (cfg.Full || !a.Mutant.Generated()) {
			whole++
		}
	}
	if whole == 0 {
		return nil
	}
	bin, env := b.plain, []string(nil)
	if sb := b.switched; sb != nil && sb.err == nil && sb.bin != "" {
		bin, env = sb.bin, sb.env("")
	}
	runs := 1
	if need := cfg.policy().TrustPasses - 1 - b.refs.fewestPasses(nil); need > 1 && whole > need {
		runs = need
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(cfg.Jobs, 1))
	for range runs {
		g.Go(func() error {
			_, err := b.refs.fresh(gctx, bin, env, nil, limitFor(cfg, b.Wall))
			return err
		})
	}
	return g.Wait()
}

// buildAll builds the unmutated test binary and, in switch mode, the
// switched one, while the run is set up and the mutants are type-checked:
// the switched build starts after the type check, and leaves out the
// mutants that are not valid Go on their own (invalid: such a mutant never
// runs, in either mode).
func buildAll(ctx context.Context, cfg config, p *prepared) (bin string, sb *switchedBuild, invalid map[string]string, err error) {
	pr := cfg.Progress
	switching := cfg.mode() == ModeSwitch
	if switching {
		cfg.phase("build", "building the test binary, and the switched build of %s", text.Count(len(p.Applied), "mutant", "mutants"))
	} else {
		cfg.phase("build", "building the test binary")
	}
	var (
		wg       sync.WaitGroup
		buildErr error
		setUpErr error
	)
	plain := make(chan struct{})
	wg.Go(func() {
		defer close(plain)
		bin, buildErr = p.build(ctx, cfg, filepath.Join(p.tmp, "baseline"), nil, true)
	})
	wg.Go(func() { setUpErr = p.setUp(ctx, cfg) })
	invalid = p.typeCheck(ctx, cfg)
	for _, a := range p.Applied {
		if msgs, ok := invalid[a.Mutant.ID]; ok && !a.Mutant.Generated() {
			pr.Printf("%s: not valid Go on its own: %s", a.Mutant.ID, text.FirstLine(msgs))
		}
	}
	if switching {
		if cfg.Blind {
			// A blind run's builds are -trimpath ones, which Go's build
			// cache may not hold yet (a grader's first file): two builds
			// side by side would each compile the standard library and
			// the package's dependencies. The second finds them cached.
			<-plain
		}
		wg.Go(func() { sb = buildSwitched(ctx, cfg, p, invalid) })
	}
	wg.Wait()
	if root := keptRoot(); root != "" {
		gotest.TrimKept(root, keptBinaries) // a cache it cannot trim is no error
	}
	switch {
	case ctx.Err() != nil:
		return "", nil, nil, ctx.Err()
	case setUpErr != nil:
		return "", nil, nil, setUpErr
	case buildErr != nil:
		var be *gotest.BuildError
		if errors.As(buildErr, &be) {
			return "", nil, nil, &BaselineError{Package: p.Target.Rel, BuildOutput: be.Output, BuildCostly: be.Costly}
		}
		return "", nil, nil, fmt.Errorf("baseline: %w", buildErr)
	}
	return bin, sb, invalid, nil
}

// runReferences runs the unmutated suite (see baseline) and, beside it,
// the switched build with no mutant active, and checks the source tree.
func runReferences(ctx context.Context, cfg config, p *prepared, bin string, sb *switchedBuild) (*gotest.Result, error) {
	cfg.phase("baseline", "baseline %s", p.Target.Rel)
	var wg sync.WaitGroup
	if sb != nil && sb.err == nil && sb.bin != "" {
		// No limit is derived yet: the baseline's own applies.
		wg.Go(func() { sb.inactive, sb.err = runInactive(ctx, cfg, p, sb, baselineTimeout(cfg)) })
	}
	res, err := baseline(ctx, cfg, p, bin)
	wg.Wait()
	switch {
	case err != nil:
		return nil, err
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	if err := p.checkTree("the baseline"); err != nil {
		return nil, err
	}
	return res, nil
}

// checkSwitched compares the switched build's run with no mutant active
// with the baseline (see checkInactive). If they differ, the same binary
// runs again: passing then, the suite is flaky (a *BaselineError);
// failing again, the switching changed what the reference does, and
// differs says how.
func checkSwitched(ctx context.Context, cfg config, p *prepared, b *Baseline) (differs, err error) {
	sb := b.switched
	if differs = checkInactive(cfg, b); differs == nil || sb.inactive == nil {
		return nil, nil
	}
	first := sb.inactive
	if sb.inactive, err = runInactive(ctx, cfg, p, sb, baselineTimeout(cfg)); err != nil {
		return nil, err
	}
	if checkInactive(cfg, b) == nil {
		return nil, flakyError(p.Target.Rel, first)
	}
	return differs, nil
}

// flakyError describes a suite that failed in res and passed when run
// again.
func flakyError(pkg string, res *gotest.Result) *BaselineError {
	e := &BaselineError{Package: pkg, Flaky: true, Failed: res.Failed(), Unfinished: res.Unfinished(), Ended: res.Ended(),
		Messages: map[string]string{}, Output: res.Output}
	for _, name := range slices.Concat(e.Failed, e.Unfinished) {
		e.Messages[name] = res.Message(name)
	}
	return e
}

// baseline runs the unmutated test binary, and once more if it fails.
func baseline(ctx context.Context, cfg config, p *prepared, bin string) (*gotest.Result, error) {
	done := 0
	count := func(e gotest.Event) {
		if e.Test != "" && (e.Action == gotest.Pass || e.Action == gotest.Fail || e.Action == gotest.Skip) {
			done++
			cfg.Progress.Status("%d %s done", done, text.Plural(done, "test", "tests"))
		}
	}
	run := func() (*gotest.Result, error) {
		res, err := runReference(ctx, cfg, p, "the baseline", bin, nil, nil, limits{wall: baselineTimeout(cfg)}, count)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		return res, nil
	}
	res, err := run()
	if err != nil {
		return nil, err
	}
	if res.TimedOut {
		e := &BaselineError{Package: p.Target.Rel, TimedOut: true, Failed: res.Unfinished()}
		if res.OverMemory {
			e.OverMemory = p.memory
		}
		return nil, e
	}
	if passed(res) {
		if len(res.TopLevel()) == 0 {
			return nil, &BaselineError{Package: p.Target.Rel, NoTests: true}
		}
		return res, nil
	}
	done = 0
	again, err := run()
	if err != nil {
		return nil, err
	}
	e := flakyError(p.Target.Rel, res)
	e.Seen = []string{seen("the whole suite", res), seen("the whole suite, again", again)}
	e.Flaky = passed(again) || !slices.Equal(again.Failed(), e.Failed)
	if !e.Flaky && p.tier != "" && !cfg.Network && len(e.Failed) > 0 {
		// Red in a sandbox: is it for want of the network? Only if the
		// failing tests, on their own, fail without it and pass with it.
		alone := []string{runOnly(topLevels(e.Failed))}
		without, err := runReference(ctx, cfg, p, "the baseline's failing tests on their own", bin, nil, alone, limits{wall: baselineTimeout(cfg)}, nil)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		net := cfg
		net.Network = true
		withNet, err := runReference(ctx, net, p, "the baseline's failing tests on their own, with the host's network", bin, nil, alone, limits{wall: baselineTimeout(cfg)}, nil)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		e.Seen = append(e.Seen, seen("the failing tests on their own", without), seen("the failing tests on their own, with the host's network", withNet))
		switch {
		case passed(without):
			e.Flaky = true // the whole suite's runs failed them; on their own they pass
		case passed(withNet):
			e.NeedsNetwork = true
		}
	}
	if e.Flaky {
		if load := loadAverage(); load != "" {
			e.Seen = append(e.Seen, load)
		}
	}
	return nil, e
}

// seen says what a run of the reference showed: it passed, which tests
// failed, or how it ended.
func seen(what string, res *gotest.Result) string {
	switch failed := res.Failed(); {
	case passed(res):
		return what + ": passed"
	case len(failed) > 0:
		return what + ": failed " + strings.Join(failed, ", ")
	}
	return what + ": " + res.Ended()
}

// loadAverage returns the machine's load over the last minute, and its
// CPUs, as /proc/loadavg says: "" where there is none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	one, _, _ := strings.Cut(string(data), " ")
	return fmt.Sprintf("the machine's load then: %s over the last minute, on %d CPUs", one, runtime.NumCPU())
}

// topLevels returns the top-level tests of names, each once, in order.
func topLevels(names []string) []string {
	var tops []string
	for _, name := range names {
		if top := topLevel(name); !slices.Contains(tops, top) {
			tops = append(tops, top)
		}
	}
	return tops
}

func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second))
}

// sayExcluded says which valid mutants the switched build could not take
// (each gets a build of its own), and why: each one when they are few.
func sayExcluded(pr *progress.Reporter, p *prepared, sb *switchedBuild, invalid map[string]string) {
	var own []string
	for _, a := range p.Applied {
		if why, ok := sb.sw.Excluded[a.Mutant.ID]; ok && invalid[a.Mutant.ID] == "" {
			what := a.Mutant.Operator
			if what == "" {
				what = mutation.Operator(a.Mutant.Kind)
			}
			own = append(own, fmt.Sprintf("%s (%s at %s:%d) gets a build of its own: %s", a.Mutant.ID, what, p.Target.RelFile(a), a.Line, why))
		}
	}
	const each = 5
	if len(own) > each {
		pr.Printf("switched build: %d of %d mutants in it; %d get a build of their own each, such as", len(sb.sw.Included), len(sb.sw.Included)+len(own), len(own))
		own = own[:3]
	}
	for _, line := range own {
		pr.Printf("%s", line)
	}
	if sb.sw.Generic {
		pr.Printf("switched build: a value whose type has a type parameter is switched by a generic helper; the helper file sets go1.21 by its //go:build line")
	}
}
