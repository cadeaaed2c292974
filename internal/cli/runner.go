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
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/mutants"
)

// runFlags are the flags of every command that runs mutants.
type runFlags struct {
	jobs    int
	timeout time.Duration
	mode    string
	noCache bool
}

func (rf *runFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&rf.jobs, "j", runtime.NumCPU(), "run `n` mutants at the same time")
	fs.DurationVar(&rf.timeout, "timeout", 0, fmt.Sprintf("limit for one mutant's test run (default: %d× the baseline, at least %s)", harness.TimeoutFactor, harness.MinTimeout))
	fs.StringVar(&rf.mode, "mode", harness.ModeSwitch, "`switch`: one build holds every mutant; overlay: one build per mutant")
	fs.BoolVar(&rf.noCache, "no-cache", false, "run even if the results of an unchanged tree are cached")
}

func (rf *runFlags) check() error {
	if rf.jobs < 1 {
		return fmt.Errorf("-j %d: want at least 1", rf.jobs)
	}
	if rf.timeout < 0 {
		return fmt.Errorf("-timeout %s: want a positive duration", rf.timeout)
	}
	if rf.mode != harness.ModeSwitch && rf.mode != harness.ModeOverlay {
		return fmt.Errorf("-mode %s: want switch or overlay", rf.mode)
	}
	return nil
}

func (rf *runFlags) config(dir, pkg string, ms []*mutants.Mutant, progress io.Writer) harness.Config {
	return harness.Config{Dir: dir, Package: pkg, Mutants: ms, Mode: rf.mode, Jobs: rf.jobs, Timeout: rf.timeout, Progress: progress}
}

// cached looks the run of cfg up in the cache. It returns the key to store
// a fresh result under ("" when the cache cannot be used) and the cached
// report, if any.
func (rf *runFlags) cached(ctx context.Context, cfg harness.Config, p *harness.Prepared, stderr io.Writer) (string, *report.Report) {
	key, err := rf.key(ctx, cfg, p)
	if err != nil {
		fmt.Fprintf(stderr, "mutate: not using the cache: %v\n", err)
		return "", nil
	}
	if rf.noCache {
		return key, nil
	}
	if rep, ok := cache.Load(key); ok {
		fmt.Fprintf(stderr, "mutate: results from the cache: the sources, tests and mutants are unchanged since that run (-no-cache runs again)\n")
		return key, rep
	}
	return key, nil
}

func (rf *runFlags) key(ctx context.Context, cfg harness.Config, p *harness.Prepared) (string, error) {
	flags := map[string]string{"pkg": p.Target.Rel, "mode": rf.mode, "timeout": rf.timeout.String()}
	in, err := cache.Collect(ctx, cfg.Go, p.Target.ModuleDir, p.Target.Rel, cfg.Mutants, flags)
	if err != nil {
		return "", err
	}
	return in.Key(), nil
}

// store keeps a fresh report under key, unless the tree changed while it
// ran: go read the sources after the key was made, so the results might be
// those of the edited tree. A cache that cannot be written is no error.
func (rf *runFlags) store(ctx context.Context, cfg harness.Config, p *harness.Prepared, key string, rep *report.Report, stderr io.Writer) {
	if key == "" {
		return
	}
	if now, err := rf.key(ctx, cfg, p); err != nil || now != key {
		fmt.Fprintf(stderr, "mutate: not caching the results: the sources changed during the run\n")
		return
	}
	if err := cache.Store(key, rep); err != nil {
		fmt.Fprintf(stderr, "mutate: not caching the results: %v\n", err)
	}
}

// runAll returns the report of the mutants of cfg, from the cache or from
// a run.
func (rf *runFlags) runAll(ctx context.Context, cfg harness.Config, p *harness.Prepared, stderr io.Writer) (*report.Report, error) {
	key, rep := rf.cached(ctx, cfg, p, stderr)
	if rep != nil {
		return rep, nil
	}
	rep, err := harness.Run(ctx, cfg, p)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	rf.store(ctx, cfg, p, key, rep, stderr)
	return rep, nil
}
