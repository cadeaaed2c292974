package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// tceResult is what trivial compiler equivalence found among some of a
// package's mutants, by index into its Applied mutants.
type tceResult struct {
	equivalent map[int]bool // compiles to the reference's code
	twin       map[int]int  // compiles to the code of an earlier mutant, its twin
	info       *report.TCE
}

// tce compiles the package with each generated mutant at the indexes in
// which, and compares what the compiler emits (Papadakis et al., "Trivial
// Compiler Equivalence: A Large Scale Empirical Study of a Simple, Fast
// and Effective Equivalent Mutant Detection Technique", ICSE 2015): a
// mutant whose code is the reference's cannot be told from it by any
// test (equivalent), and mutants with the same code cannot be told from
// each other (duplicates of the first). Only the package itself is
// compiled, through an overlay, never linked; the code compared is the
// text of every function and data symbol without positions or DWARF, so
// that a mutant which only moves lines compiles to the same code.
//
// Mutants of generic code are not compiled: generic code is compiled
// where it is instantiated, which may be in the tests alone. A mutant
// that does not compile alone is left to its run. It returns nil when
// there is nothing to compare, or the reference does not compile.
func (p *prepared) tce(ctx context.Context, cfg config, which []int) (*tceResult, error) {
	var todo []int
	for _, i := range which {
		if a := p.Applied[i]; a.Mutant.Generated() && !a.Generic {
			todo = append(todo, i)
		}
	}
	if cfg.NoTCE || len(todo) == 0 {
		return nil, nil
	}
	start := time.Now()
	pr := cfg.Progress
	cfg.phase("equivalence", "compiling %s to find those the compiler makes equivalent (-no-tce skips it)", text.Count(len(todo), "generated mutant", "generated mutants"))
	ref, ok, err := p.tceReference(ctx, cfg, len(todo))
	if !ok || err != nil {
		pr.Done()
		return nil, err
	}
	sums, err := p.codeSums(ctx, cfg, todo)
	pr.Done()
	if err != nil {
		return nil, err
	}
	res := &tceResult{equivalent: map[int]bool{}, twin: map[int]int{}}
	first := map[string]int{}
	for k, i := range todo {
		switch sum := sums[k]; {
		case sum == "":
		case sum == ref:
			res.equivalent[i] = true
		default:
			if j, ok := first[sum]; ok {
				res.twin[i] = j
			} else {
				first[sum] = i
			}
		}
	}
	res.info = &report.TCE{Compiled: len(todo), Equivalent: len(res.equivalent), Duplicates: len(res.twin), Seconds: time.Since(start).Seconds()}
	pr.Printf("trivial compiler equivalence: %d equivalent to the reference, %s (%.1fs)", res.info.Equivalent, text.Count(res.info.Duplicates, "duplicate", "duplicates"), res.info.Seconds)
	return res, nil
}

// tceReference sets up the compiler and compiles the reference, and
// returns the hash of its code; ok is false, and the progress says why,
// when the package does not compile alone, or when compiling n mutants
// would take more than policy.TCEBudget in a run that stops at the first
// failure.
func (p *prepared) tceReference(ctx context.Context, cfg config, n int) (ref string, ok bool, err error) {
	// The compiler itself, when the package is Go files alone; else go
	// build, which does the same with more work per compile.
	comp, err := gotest.NewCompiler(ctx, "", p.Target.ModuleDir, p.Target.Rel, filepath.Join(p.tmp, "tce"))
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		comp = nil
	}
	p.compiler = comp
	refStart := time.Now()
	ref, err = p.codeSum(ctx, cfg, filepath.Join(p.tmp, "tce", "reference"), nil)
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		cfg.Progress.Printf("no trivial compiler equivalence: the package does not compile alone")
		return "", false, nil
	}
	// A run that stops at each mutant's first failing test is for a
	// score: there, compiling every mutant of a large package can cost
	// many times the run itself, and is left out past a budget. A full
	// run (an exercise being written) always compiles them.
	if est := time.Since(refStart) * time.Duration(n) / time.Duration(max(cfg.Jobs, 1)); !cfg.Full && est > cfg.policy().TCEBudget {
		cfg.Progress.Printf("no trivial compiler equivalence: %s of %.1fs each would take about %s, more than the %s it may take in a run that stops at the first failure (-full runs it)",
			text.Count(n, "compile", "compiles"), time.Since(refStart).Seconds(), est.Round(time.Second), cfg.policy().TCEBudget)
		return "", false, nil
	}
	return ref, true, nil
}

// codeSums compiles the mutants at the indexes todo, cfg.Jobs at a time,
// and returns the hash of each one's code, in order ("" for one that does
// not compile).
func (p *prepared) codeSums(ctx context.Context, cfg config, todo []int) ([]string, error) {
	sums := make([]string, len(todo))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(cfg.Jobs, 1))
	for k, i := range todo {
		g.Go(func() error {
			a := p.Applied[i]
			sum, err := p.codeSum(gctx, cfg, filepath.Join(p.tmp, "tce", strconv.Itoa(i)), map[string][]byte{a.File: a.Mutated})
			if gctx.Err() != nil {
				return gctx.Err()
			}
			if err == nil {
				sums[k] = sum
			}
			return nil
		})
	}
	return sums, g.Wait()
}

// codeSum compiles the package with files overlaid (none for the
// reference) in dir and returns the hash of its code (see normalizeCode).
func (p *prepared) codeSum(ctx context.Context, cfg config, dir string, files map[string][]byte) (string, error) {
	if p.compiler != nil {
		asm, err := p.compiler.Assembly(ctx, dir, files)
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(normalizeCode(asm))
		return hex.EncodeToString(sum[:]), nil
	}
	env, err := tempEnv(dir)
	if err != nil {
		return "", err
	}
	var flags []string
	if len(files) > 0 {
		overlay, err := writeOverlay(filepath.Join(dir, "src"), files)
		if err != nil {
			return "", err
		}
		flags = append(flags, "-overlay="+overlay)
	}
	c := gotest.Compile{Dir: p.Target.ModuleDir, Package: p.Target.Rel, Flags: flags, Env: env}
	asm, err := c.Assembly(ctx)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(normalizeCode(asm))
	return hex.EncodeToString(sum[:]), nil
}

// position is a source position in the compiler's listing:
// "(lease.go:85)", "(<autogenerated>:1)".
var position = regexp.MustCompile(`\([^()\n]*:\d+\)`)

// normalizeCode returns the compiler's listing without what changes when
// code only moves: the positions of instructions, and the symbols of
// debugging information (their headers say SDWARF; -dwarf=false leaves
// few). The "# package" line goes too.
func normalizeCode(asm []byte) []byte {
	var out bytes.Buffer
	skip := false
	for line := range bytes.Lines(asm) {
		switch {
		case bytes.HasPrefix(line, []byte("# ")):
			continue
		case len(line) > 0 && line[0] != '\t' && line[0] != ' ':
			// A symbol's header: its name, kind, size and flags.
			skip = bytes.Contains(line, []byte(" SDWARF"))
		}
		if !skip {
			out.Write(position.ReplaceAll(line, nil))
		}
	}
	return out.Bytes()
}

// apply gives each equivalent mutant its result, and returns the indexes
// that still need a run and the duplicates, by index, with their twins'.
func (t *tceResult) apply(p *prepared, results []report.Mutant, missing []int) (run []int, dups map[int]int) {
	if t == nil {
		return missing, nil
	}
	for _, i := range missing {
		switch j, dup := t.twin[i]; {
		case t.equivalent[i]:
			results[i] = newResult(p, p.Applied[i])
			results[i].Status, results[i].Reason = decide(evidence{equivalent: true}), "it compiles to the reference's code"
		case dup:
			results[i] = newResult(p, p.Applied[i])
			if dups == nil {
				dups = map[int]int{}
			}
			dups[i] = j
		default:
			run = append(run, i)
		}
	}
	return run, dups
}

// settle gives the mutants compiled after their runs what t found: an
// equivalent mutant's run (a survivor's, or a flaky one's) is no verdict
// on it, and a duplicate takes its twin's verdict, as it would have
// without a run.
func (t *tceResult) settle(p *prepared, results []report.Mutant) {
	if t == nil {
		return
	}
	for i := range t.equivalent {
		results[i] = newResult(p, p.Applied[i])
		results[i].Status, results[i].Reason = decide(evidence{equivalent: true}), "it compiles to the reference's code"
	}
	for i, j := range t.twin {
		results[i] = duplicate(results[i], results[j])
	}
}

// report returns what t did, for the report; nil for nothing.
func (t *tceResult) report() *report.TCE {
	if t == nil {
		return nil
	}
	return t.info
}

// duplicate returns the result of mutant m, a duplicate of twin: twin's
// verdict, m's identity.
func duplicate(m, twin report.Mutant) report.Mutant {
	v := twin
	v.ID, v.Package, v.Ordinal, v.Step, v.Title, v.Target, v.Kind, v.Operator = m.ID, m.Package, m.Ordinal, m.Step, m.Title, m.Target, m.Kind, m.Operator
	v.File, v.Line, v.Location, v.Replacement, v.Diff = m.File, m.Line, m.Location, m.Replacement, m.Diff
	v.Seconds, v.TestSeconds, v.DuplicateOf = 0, 0, twin.ID
	return v
}
