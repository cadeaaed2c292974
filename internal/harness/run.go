package harness

import (
	"context"
	"errors"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// ErrInterrupted is returned when the run's context is done: a signal
// stopped it. Every process it started is gone and every temporary file
// removed by then.
var ErrInterrupted = errors.New("interrupted; temporary files removed, the source tree is unchanged")

// Run returns the report of cfg's mutants on p: from the cache when an
// unchanged tree ran with the same mutants and settings, otherwise from a
// run (the baseline, cfg.AfterBaseline, then every mutant), which is
// cached unless the tree changed meanwhile.
func (p *Prepared) Run(ctx context.Context, cfg Config) (*report.Report, error) {
	key := p.key(ctx, cfg, cfg.Mutants)
	if rep, ok := p.cached(cfg, key); ok {
		if cfg.AfterBaseline != nil {
			if err := cfg.AfterBaseline(rep.Baseline.TestNames); err != nil {
				return nil, err
			}
		}
		return rep, nil
	}
	b, err := runBaseline(ctx, cfg, p)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	if cfg.AfterBaseline != nil {
		if err := cfg.AfterBaseline(b.Result.Names()); err != nil {
			return nil, err
		}
	}
	rep, err := runMutants(ctx, cfg, p, b)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	p.store(ctx, cfg, key, rep)
	return rep, nil
}

// TestNames returns the names of the tests of the unmutated suite, every
// subtest included: from the cache when an unchanged tree ran, otherwise
// from a run of the baseline.
func (p *Prepared) TestNames(ctx context.Context, cfg Config) ([]string, error) {
	key := p.key(ctx, cfg, nil)
	if !cfg.NoCache && key != "" {
		if b, ok := cache.LoadBaseline(key); ok {
			return b.TestNames, nil
		}
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

// key returns the cache key of a run of ms on the target, or of its
// baseline alone with no mutants; "" when the cache cannot be used.
func (p *Prepared) key(ctx context.Context, cfg Config, ms []*mutation.Mutant) string {
	flags := map[string]string{"pkg": p.Target.Rel}
	if len(ms) > 0 {
		flags["mode"], flags["timeout"] = string(cfg.mode()), cfg.Timeout.String()
	}
	in, err := cache.Collect(ctx, cfg.Go, p.Target.ModuleDir, p.Target.Rel, ms, flags)
	if err != nil {
		cfg.Progress.Printf("not using the cache: %v", err)
		return ""
	}
	return in.Key()
}

// cached returns the report stored under key, unless cfg says to run.
func (p *Prepared) cached(cfg Config, key string) (*report.Report, bool) {
	if cfg.NoCache || key == "" {
		return nil, false
	}
	rep, ok := cache.Load(key)
	if ok {
		cfg.Progress.Printf("results from the cache: the sources, tests and mutants are unchanged since that run (-no-cache runs again)")
	}
	return rep, ok
}

// store keeps a fresh report under key, and its baseline under the
// baseline's key, unless the tree changed since the key was made: go read
// the sources after that, so the results might be those of an edited tree.
// A cache that cannot be written is no error.
func (p *Prepared) store(ctx context.Context, cfg Config, key string, rep *report.Report) {
	if key == "" {
		return
	}
	if now := p.key(ctx, cfg, cfg.Mutants); now != key {
		cfg.Progress.Printf("not caching the results: the sources changed during the run")
		return
	}
	if err := cache.Store(key, rep); err != nil {
		cfg.Progress.Printf("not caching the results: %v", err)
	}
	if base := p.key(ctx, cfg, nil); base != "" {
		cache.StoreBaseline(base, rep.Baseline)
	}
}
