package harness

import (
	"context"
	"fmt"
	"github.com/fencelab/fencelab/internal/text"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencelab/fencelab/internal/report"
)

// limitFor returns the limit of one mutant's test run: the configured one,
// or TimeoutFactor times the baseline's test run plus TimeoutSlack.
func limitFor(cfg Config, baseline time.Duration) time.Duration {
	if cfg.Timeout > 0 {
		return cfg.Timeout
	}
	return TimeoutFactor*baseline + TimeoutSlack
}

// limitOf returns the limit of an early-kill run of some of the tests:
// TimeoutFactor times their baseline durations plus TimeoutSlack, at most
// limit. A hang in a test that takes milliseconds is stopped in seconds,
// not at the limit of the whole suite.
func limitOf(tests []string, durations map[string]float64, limit time.Duration) time.Duration {
	var sum float64
	for _, t := range tests {
		sum += durations[t]
	}
	ms := time.Duration(math.Round(sum*1000)) * time.Millisecond
	return min(limit, TimeoutFactor*ms+TimeoutSlack)
}

// runMutants runs every prepared mutant, cfg.Jobs at a time, and returns
// the report with the mutants in the order of cfg.Mutants. The first
// harness error cancels the mutants still running.
func runMutants(ctx context.Context, cfg Config, p *Prepared, b *Baseline) (*report.Report, error) {
	start := time.Now()
	limit := limitFor(cfg, b.Wall)
	if sb := b.switched; sb != nil && sb.err != nil {
		return nil, sb.err
	}
	pr := cfg.Progress
	total := len(p.Applied)
	pr.Phase("running %d %s (limit %s each)", total, text.Plural(total, "mutant", "mutants"), limit.Round(time.Second))

	results := make([]report.Mutant, total)
	k := newKillers()
	jobs := max(cfg.Jobs, 1)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	var (
		mu   sync.Mutex
		done int
		// suspects are the mutants that ran since the tree was last found
		// unchanged: any of them may have changed it.
		suspects []string
	)
	for i, a := range p.Applied {
		g.Go(func() error {
			mu.Lock()
			suspects = append(suspects, a.Mutant.ID)
			mu.Unlock()
			r, err := runMutant(gctx, cfg, p, b, a, filepath.Join(p.tmp, "mutant", strconv.Itoa(i)), limit, k)
			if err != nil {
				return fmt.Errorf("mutant %s: %w", a.Mutant.ID, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if err := p.checkTree(naming("mutant", "mutants", suspects)); err != nil {
				return err
			}
			suspects = slices.DeleteFunc(suspects, func(id string) bool { return id == a.Mutant.ID })
			results[i] = r
			done++
			pr.Printf("[%d/%d] %s: %s (%.1fs)", done, total, a.Mutant.ID, describe(r), r.Seconds)
			pr.Status("%d/%d done", done, total)
			return nil
		})
	}
	err := g.Wait()
	pr.Done()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return &report.Report{
		Module:     p.Target.Module,
		Package:    p.Target.Rel,
		GoVersion:  p.goEnv["GOVERSION"],
		Mode:       string(cfg.mode()),
		Jobs:       jobs,
		Limit:      limit.Seconds(),
		Baseline:   report.Baseline{Tests: len(b.Result.Tests), Seconds: b.Wall.Seconds(), TestNames: b.Result.Names()},
		Mutants:    results,
		FlakyTests: b.refs.flakyTests(),
		Summary:    report.Summarize(results),
		Seconds:    (b.Wall + time.Since(start)).Seconds(),
	}, nil
}

// naming returns "mutant a" or "mutants a, b".
func naming(one, many string, ids []string) string {
	return text.Plural(len(ids), one, many) + " " + strings.Join(ids, ", ")
}
