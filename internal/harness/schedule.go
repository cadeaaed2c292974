package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/internal/text"
)

// runMutants runs every prepared mutant, cfg.Jobs at a time, and returns
// the report with the mutants in the order of cfg.Mutants. The first
// harness error cancels the mutants still running.
func runMutants(ctx context.Context, cfg config, p *prepared, b *Baseline) (*report.Report, error) {
	start := time.Now()
	limit := limitFor(cfg, b.Wall)
	if sb := b.switched; sb != nil && sb.err != nil {
		return nil, sb.err
	}
	// A generated mutant that is not valid Go is dropped from the
	// report (see dropInvalid): the progress neither shows nor counts it.
	total := 0
	for _, a := range p.Applied {
		if !dropped(b, a) {
			total++
		}
	}
	each := limit.Round(time.Second).String()
	if p.memory > 0 {
		each += " and " + text.Bytes(p.memory) + " of memory"
	}
	cfg.phase("mutants", "running %d %s (limit %s each)", total, text.Plural(total, "mutant", "mutants"), each)
	s := &scheduler{cfg: cfg, p: p, b: b, limit: limit, results: make([]report.Mutant, len(p.Applied)), total: total, k: newKillers(), started: map[string]bool{}}
	var (
		after reference
		err   error
	)
	stages := stagesOf(cfg, p.Applied)
	for k, stage := range stages {
		if k > 0 && cfg.Next != nil && !cfg.Next(newReport(cfg, p, b, s.kept(), limit)) {
			cfg.Progress.Printf("the other %s not run", text.Count(len(stage), "mutant is", "mutants are"))
			after.res, after.err = runReferenceAfter(ctx, cfg, p, b)
			break
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(cfg.Jobs, 1))
		for _, i := range stage {
			g.Go(func() error { return s.run(ctx, gctx, i, p.Applied[i]) })
		}
		if k == len(stages)-1 {
			// The reference's run after the mutants takes the first free
			// slot once every mutant has started: beside the last of
			// them, not after them all. What a mutant's run could leave
			// for it is out of reach of every sandbox already (see
			// referenceAfter).
			g.Go(func() error {
				after.res, after.err = runReferenceAfter(gctx, cfg, p, b)
				return nil // judged once the mutants are done
			})
		}
		if err = g.Wait(); err != nil || ctx.Err() != nil {
			break
		}
	}
	cfg.Progress.Done()
	interrupted := false
	switch {
	case ctx.Err() != nil && s.done > 0:
		// The verdicts that finished are kept, if the reference still
		// passes as it did: they are as good as those of a whole run.
		cfg.Progress.Printf("interrupted: running the reference once more, to keep the %s that finished", text.Count(s.done, "verdict", "verdicts"))
		after, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
		defer cancel()
		if err := referenceAfter(after, cfg, p, b, s.started); err != nil {
			return nil, ctx.Err()
		}
		interrupted = true
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, err
	default:
		if err := judgeReferenceAfter(cfg, p, b, after, s.started); err != nil {
			return nil, err
		}
	}
	rep := newReport(cfg, p, b, s.results, limit)
	rep.Interrupted, rep.Seconds = interrupted, (b.Wall + time.Since(start)).Seconds()
	return rep, nil
}

// scheduler runs the mutants of a package, cfg.Jobs at a time, and checks
// after each that nothing it could reach has changed.
type scheduler struct {
	cfg     config
	p       *prepared
	b       *Baseline
	limit   time.Duration
	results []report.Mutant
	k       *killers

	total int // the mutants the progress counts

	mu    sync.Mutex
	done  int // results kept
	shown int // of them, those the progress counted
	// suspects are the mutants that ran since the tree was last found
	// unchanged: any of them may have changed it.
	suspects []string
	// started are the mutants that began to run.
	started map[string]bool
}

// run runs mutant a, the i-th, with gctx, the group's context, and keeps
// its result unless ctx, the run's, was interrupted while it ran.
func (s *scheduler) run(ctx, gctx context.Context, i int, a *mutation.Applied) error {
	s.mu.Lock()
	s.suspects = append(s.suspects, a.Mutant.ID)
	s.started[a.Mutant.ID] = true
	s.mu.Unlock()
	r, err := s.runMutant(gctx, a, filepath.Join(s.p.tmp, "mutant", strconv.Itoa(i)))
	if err != nil {
		return fmt.Errorf("mutant %s: %w", a.Mutant.ID, err)
	}
	changed := s.p.bins.changed(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.p.checkTree(naming("mutant", "mutants", s.suspects)); err != nil {
		return err
	}
	if len(changed) > 0 {
		return fmt.Errorf("the test %s %s changed while %s ran; no verdict of this run can be trusted (the next run builds %s again)",
			text.Plural(len(changed), "binary", "binaries"), strings.Join(changed, ", "), naming("mutant", "mutants", s.suspects), text.Plural(len(changed), "it", "them"))
	}
	s.suspects = slices.DeleteFunc(s.suspects, func(id string) bool { return id == a.Mutant.ID })
	if gctx.Err() != nil && ctx.Err() != nil {
		return ctx.Err() // interrupted while it ran: not a verdict
	}
	s.results[i] = r
	s.done++
	if dropped(s.b, a) {
		return nil
	}
	s.shown++
	s.cfg.Progress.Printf("[%d/%d] %s: %s (%.1fs)", s.shown, s.total, a.Mutant.ID, describe(r, s.cfg.Answers[a.Mutant.ID]), r.Seconds)
	s.cfg.Progress.Status("%d/%d done", s.shown, s.total)
	return nil
}

// stagesOf returns the indexes of ms in the stages they run in: all at
// once, or, with cfg.First, those it picks, then the others (see
// Options.First). There is always a stage, the last of which runs the
// reference after the mutants; only the one stage of no mutant is empty.
func stagesOf(cfg config, ms []*mutation.Applied) [][]int {
	var first, rest []int
	for i, a := range ms {
		if cfg.First != nil && cfg.First(a.Mutant) {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	stages := slices.DeleteFunc([][]int{first, rest}, func(s []int) bool { return len(s) == 0 })
	if len(stages) == 0 {
		return [][]int{nil}
	}
	return stages
}

// kept returns the results kept so far, in the order of the mutants.
func (s *scheduler) kept() []report.Mutant {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(s.results), func(m report.Mutant) bool { return m.ID == "" })
}

// dropped reports whether a is a generated mutant that is not valid Go:
// the report drops it (see dropInvalid).
func dropped(b *Baseline, a *mutation.Applied) bool {
	_, invalid := b.invalid[a.Mutant.ID]
	return invalid && a.Mutant.Generated()
}

// isolationOf returns the isolation of runs in sandboxes of tier ("":
// none).
func isolationOf(tier sandbox.Tier) report.Isolation {
	return map[sandbox.Tier]report.Isolation{sandbox.Namespaces: report.IsolationNamespaces, sandbox.Landlock: report.IsolationLandlock, "": report.IsolationReduced}[tier]
}

// landlockABIOf returns the Landlock ABI of runs in sandboxes of tier: 0
// unless Landlock's.
func landlockABIOf(tier sandbox.Tier) int {
	if tier != sandbox.Landlock {
		return 0
	}
	return sandbox.LandlockABI()
}

// newReport returns the report of the results of p's mutants.
func newReport(cfg config, p *prepared, b *Baseline, results []report.Mutant, limit time.Duration) *report.Report {
	return &report.Report{
		Module:      p.Target.Module,
		Package:     p.Target.Rel,
		GoVersion:   p.goEnv["GOVERSION"],
		Mode:        cfg.mode(),
		Jobs:        max(cfg.Jobs, 1),
		Limit:       limit.Seconds(),
		MemoryLimit: p.memory,
		Isolation:   isolationOf(p.tier),
		LandlockABI: landlockABIOf(p.tier),
		Binds:       cfg.Binds,
		Baseline:    report.Baseline{Tests: len(b.Result.Tests), Seconds: b.Wall.Seconds(), TestNames: b.Result.Names()},
		Mutants:     results,
		FlakyTests:  b.refs.flakyTests(),
	}
}

// referenceAfter runs the reference once more after the mutants (the
// switched build with no mutant active, or the plain build): it must pass
// as the baseline did, or something that a mutant's run changed (a file
// out of its sandbox, a process left running) has changed what the tests
// see, and no verdict of the run can be trusted. In a whole run it runs
// beside the last mutants (see runMutants); after an interrupt, after
// them.
func referenceAfter(ctx context.Context, cfg config, p *prepared, b *Baseline, started map[string]bool) error {
	var after reference
	after.res, after.err = runReferenceAfter(ctx, cfg, p, b)
	return judgeReferenceAfter(cfg, p, b, after, started)
}

// reference is a run of the reference, or why it could not run.
type reference struct {
	res *gotest.Result
	err error
}

// runReferenceAfter runs the reference for referenceAfter.
func runReferenceAfter(ctx context.Context, cfg config, p *prepared, b *Baseline) (*gotest.Result, error) {
	bin, env := b.plain, []string(nil)
	if sb := b.switched; sb != nil && sb.bin != "" {
		bin, env = sb.bin, sb.env("")
	}
	return runReference(ctx, cfg, p, "the reference's run after the mutants", bin, env, nil, limits{wall: baselineTimeout(cfg)}, nil)
}

// judgeReferenceAfter checks, once the mutants are done, that no test
// binary changed and that after passed as the baseline did; started are
// the ids of the mutants that ran, which an error names.
func judgeReferenceAfter(cfg config, p *prepared, b *Baseline, after reference, started map[string]bool) error {
	cfg.phase("reference", "the reference again, after the mutants")
	if changed := p.bins.changed(true); len(changed) > 0 {
		return fmt.Errorf("the test %s %s changed while the mutants ran; no verdict of this run can be trusted (the next run builds %s again)",
			text.Plural(len(changed), "binary", "binaries"), strings.Join(changed, ", "), text.Plural(len(changed), "it", "them"))
	}
	if after.err != nil {
		return fmt.Errorf("the reference after the mutants: %w", after.err)
	}
	res := after.res
	if passed(res) && slices.Equal(res.Names(), b.Result.Names()) {
		return nil
	}
	e := &ReferenceAfterError{Ended: res.Ended(), Failed: res.Failed(), Messages: map[string]string{}}
	for _, name := range e.Failed {
		e.Messages[name] = res.Message(name)
	}
	for _, name := range b.Result.Names() {
		if t := res.Tests[name]; t == nil || t.Outcome == "" {
			e.Unfinished = append(e.Unfinished, name)
		}
	}
	for _, a := range p.Applied {
		if started[a.Mutant.ID] {
			e.Mutants = append(e.Mutants, a.Mutant.ID)
		}
	}
	return e
}

// ReferenceAfterError is a run of the reference after the mutants that no
// longer passed as the baseline did: a mutant's run changed what the tests
// see (a file out of its sandbox, a process left running), or the suite
// is flaky. No verdict of the run can be trusted.
type ReferenceAfterError struct {
	Ended      string            // how the run ended: "exited with status 1"
	Mutants    []string          // the ids of the mutants that ran
	Failed     []string          // the tests that failed
	Unfinished []string          // the baseline's tests that did not finish
	Messages   map[string]string // the failed tests' messages
}

func (e *ReferenceAfterError) Error() string {
	var why []string
	for _, name := range e.Failed {
		why = append(why, "  failed: "+name)
	}
	for _, name := range e.Unfinished {
		why = append(why, "  did not finish: "+name)
	}
	return fmt.Sprintf("the unmutated suite, run again after the mutants, no longer passes as the baseline did (it %s); one of %s changed what the tests see (a file out of its sandbox, a process left running), or the suite is flaky: no verdict of this run can be trusted:\n%s",
		e.Ended, naming("mutant", "mutants", e.Mutants), strings.Join(why, "\n"))
}

// naming returns "mutant a" or "mutants a, b".
func naming(one, many string, ids []string) string {
	return text.Plural(len(ids), one, many) + " " + strings.Join(ids, ", ")
}
