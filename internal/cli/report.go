package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/aymanbagabas/go-udiff"

	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/reportdoc"
	"github.com/fencelab/fencelab/mutants"
)

// errOutOfDate is returned by report -check when the file differs.
var errOutOfDate = errors.New("out of date")

// reportCmd regenerates the generated blocks of REPORT.md from a run of
// the catalog and the experiments.
func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("report", "[flags]", `Regenerate the generated blocks of REPORT.md from a run of the catalog and the
experiments. Exit codes: 0 the file was rewritten or is up to date; 1 with
-check, the file is out of date; 2 an error.`, stderr)
	out := fs.String("o", "REPORT.md", "the report `file`; a relative path is relative to the module root")
	expFile := fs.String("experiments", "mutants/experiments.yaml", "the experiments' mutants `file`, relative to the module root")
	predFile := fs.String("predictions", "predictions/example.yaml", "the prediction `file` to score, relative to the module root")
	results := fs.String("results", "", "use this `file` of mutate run -json (catalog and experiments) instead of running")
	checkOnly := fs.Bool("check", false, "write nothing; exit 1 and print the difference if the file is out of date")
	var rf runFlags
	rf.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return exitError, err
	}
	if err := rf.check(); err != nil {
		return exitError, err
	}
	t, err := harness.FindTarget(ctx, harness.Config{Package: "./lease"})
	if err != nil {
		return exitError, err
	}
	root := t.ModuleDir
	inRoot := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	exps, err := mutants.LoadFile(inRoot(*expFile))
	if err != nil {
		return exitError, err
	}
	catalog := mutants.Catalog()
	all, err := mutants.Combine(catalog, exps)
	if err != nil {
		return exitError, err
	}
	cfg := rf.config(root, t.Rel, all, stderr)
	p, err := harness.Prepare(ctx, cfg)
	if err != nil {
		return exitError, err
	}
	defer p.Close()
	var rep *report.Report
	if *results != "" {
		if rep, err = report.ReadFile(*results); err != nil {
			return exitError, err
		}
		if got, want := mutantIDs(rep), idsOf(all); !slices.Equal(got, want) {
			return exitError, fmt.Errorf("%s holds mutants %v, want the catalog and the experiments %v", *results, got, want)
		}
	} else if rep, err = rf.runAll(ctx, cfg, p); err != nil {
		return exitError, err
	}
	if err := predict.Comparable(rep); err != nil {
		return exitError, err
	}

	// The prediction file covers the catalog: compare it with that part.
	catRep := *rep
	catRep.Mutants = rep.Mutants[:len(catalog)]
	pf, err := predict.Load(inRoot(*predFile), predict.Known{Mutants: idsOf(catalog), Tests: rep.Baseline.TestNames}, false)
	if err != nil {
		return exitError, err
	}
	score := predict.Compare(pf, &catRep)
	diffs := map[string]string{}
	for _, a := range p.Applied {
		diffs[a.Mutant.ID] = a.Diff(p.RelFile(a))
	}
	blocks := reportdoc.Blocks(reportdoc.Input{
		Report: rep, Catalog: catalog, Experiments: exps, Diffs: diffs,
		Predictions: filepath.ToSlash(*predFile), Score: score,
	})

	path := inRoot(*out)
	old, err := os.ReadFile(path)
	if err != nil {
		return exitError, err
	}
	doc, err := reportdoc.Rewrite(old, blocks)
	if err != nil {
		return exitError, fmt.Errorf("%s: %w", *out, err)
	}
	switch {
	case bytes.Equal(doc, old):
		fmt.Fprintf(stderr, "mutate: %s is up to date\n", *out)
		return exitOK, nil
	case *checkOnly:
		fmt.Fprint(stdout, udiff.Unified("a/"+*out, "b/"+*out, string(old), string(doc)))
		return exitDiffers, fmt.Errorf("%s is %w: run make report (go tool mutate report) and commit it", *out, errOutOfDate)
	}
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		return exitError, err
	}
	fmt.Fprintf(stderr, "mutate: rewrote the generated parts of %s\n", *out)
	return exitOK, nil
}
