package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/mutants"
)

// runFlags are the flags of every command that runs mutants.
type runFlags struct {
	jobs    int
	timeout time.Duration
	mode    string
	noCache bool
	quiet   bool
}

func (rf *runFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&rf.jobs, "j", runtime.NumCPU(), "run `n` mutants at the same time")
	fs.DurationVar(&rf.timeout, "timeout", 0, fmt.Sprintf("limit for one mutant's test run (default: %d× the baseline's test run, plus %s)", harness.TimeoutFactor, harness.TimeoutSlack))
	fs.StringVar(&rf.mode, "mode", string(harness.ModeSwitch), "`switch`: one build holds every mutant; overlay: one build per mutant")
	fs.BoolVar(&rf.noCache, "no-cache", false, "run even if the results of an unchanged tree are cached")
	fs.BoolVar(&rf.quiet, "q", false, "print no progress on stderr")
}

func (rf *runFlags) check() error {
	if rf.jobs < 1 {
		return fmt.Errorf("-j %d: want at least 1", rf.jobs)
	}
	if rf.timeout < 0 {
		return fmt.Errorf("-timeout %s: want a positive duration", rf.timeout)
	}
	if _, err := harness.ParseMode(rf.mode); err != nil {
		return fmt.Errorf("-mode %s: want switch or overlay", rf.mode)
	}
	return nil
}

func (rf *runFlags) config(dir, pkg string, ms []*mutants.Mutant, stderr io.Writer) harness.Config {
	return harness.Config{Dir: dir, Package: pkg, Mutants: ms, Mode: harness.Mode(rf.mode), Jobs: rf.jobs, Timeout: rf.timeout,
		Progress: progress.New(stderr, rf.quiet)}
}

// cached looks the run of cfg up in the cache. It returns the key to store
// a fresh result under ("" when the cache cannot be used) and the cached
// report, if any.
func (rf *runFlags) cached(ctx context.Context, cfg harness.Config, p *harness.Prepared) (string, *report.Report) {
	key, err := rf.key(ctx, cfg, p, cfg.Mutants)
	if err != nil {
		cfg.Progress.Printf("not using the cache: %v", err)
		return "", nil
	}
	if rf.noCache {
		return key, nil
	}
	if rep, ok := cache.Load(key); ok {
		cfg.Progress.Printf("results from the cache: the sources, tests and mutants are unchanged since that run (-no-cache runs again)")
		return key, rep
	}
	return key, nil
}

// key returns the cache key of a run of ms; with no mutants, that of the
// baseline alone.
func (rf *runFlags) key(ctx context.Context, cfg harness.Config, p *harness.Prepared, ms []*mutants.Mutant) (string, error) {
	flags := map[string]string{"pkg": p.Target.Rel}
	if len(ms) > 0 {
		flags["mode"], flags["timeout"] = rf.mode, rf.timeout.String()
	}
	in, err := cache.Collect(ctx, cfg.Go, p.Target.ModuleDir, p.Target.Rel, ms, flags)
	if err != nil {
		return "", err
	}
	return in.Key(), nil
}

// store keeps a fresh report under key, and its baseline under the
// baseline's key, unless the tree changed while it ran: go read the
// sources after the key was made, so the results might be those of the
// edited tree. A cache that cannot be written is no error.
func (rf *runFlags) store(ctx context.Context, cfg harness.Config, p *harness.Prepared, key string, rep *report.Report) {
	if key == "" {
		return
	}
	if now, err := rf.key(ctx, cfg, p, cfg.Mutants); err != nil || now != key {
		cfg.Progress.Printf("not caching the results: the sources changed during the run")
		return
	}
	if err := cache.Store(key, rep); err != nil {
		cfg.Progress.Printf("not caching the results: %v", err)
	}
	rf.storeBaseline(ctx, cfg, p, rep.Baseline)
}

// baselineNames returns the names of the tests of the unmutated suite from
// the cache, if it holds a run of the same tree.
func (rf *runFlags) baselineNames(ctx context.Context, cfg harness.Config, p *harness.Prepared) ([]string, bool) {
	if rf.noCache {
		return nil, false
	}
	key, err := rf.key(ctx, cfg, p, nil)
	if err != nil {
		return nil, false
	}
	b, ok := cache.LoadBaseline(key)
	if !ok {
		return nil, false
	}
	return b.TestNames, true
}

// storeBaseline keeps the baseline of a run of an unchanged tree.
func (rf *runFlags) storeBaseline(ctx context.Context, cfg harness.Config, p *harness.Prepared, b report.Baseline) {
	if key, err := rf.key(ctx, cfg, p, nil); err == nil {
		cache.StoreBaseline(key, b)
	}
}

// runAll returns the report of the mutants of cfg, from the cache or from
// a run.
func (rf *runFlags) runAll(ctx context.Context, cfg harness.Config, p *harness.Prepared) (*report.Report, error) {
	key, rep := rf.cached(ctx, cfg, p)
	if rep != nil {
		return rep, nil
	}
	rep, err := harness.Run(ctx, cfg, p)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	rf.store(ctx, cfg, p, key, rep)
	return rep, nil
}
