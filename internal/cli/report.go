package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/aymanbagabas/go-udiff"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/reportdoc"
	"github.com/fencelab/fencelab/internal/text"
)

var reportSummary = `Regenerate the generated blocks of a report document from a run of a catalog
(the module's, or the -mutants FILE) and the files its report section names:

  report:
    file: REPORT.md                        # the document, from the module root
    mutants: [mutants/more.yaml]           # more mutants, run beside the catalog
    predictions: predictions/model.yaml    # a prediction file to score

The blocks lie between <!-- BEGIN mutate report: NAME --> and
<!-- END mutate report: NAME -->; the prose around them is left as it is.

` + text.Wrap("With -check the difference is printed. Exit codes: "+report.ExitHelp("report"), 78, "")

// reportCmd regenerates the generated blocks of a report document.
func reportCmd(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags]", reportSummary)
	catalog := fs.String("mutants", "", "the catalog `file` whose report section says what to generate (default: the module's "+exercise.Catalog+")")
	pkg := fs.String("pkg", "", "the `package` to mutate, as go names it here (default: the one the catalog names)")
	out := fs.String("o", "", "the document to rewrite instead of the report section's `file`")
	results := fs.String("results", "", "use this `file` of mutate run -json (of the same mutants) instead of running")
	checkOnly := fs.Bool("check", false, "write nothing; exit 1 and print the difference if the file is out of date")
	var rf runFlags
	rf.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return err
	}
	root, err := exercise.FindRoot(".")
	if err != nil {
		return err
	}
	catalogPath := *catalog
	if catalogPath == "" {
		catalogPath = filepath.Join(root, filepath.FromSlash(exercise.Catalog))
	}
	cat, err := exercise.LoadFile(catalogPath)
	if err != nil {
		return err
	}
	if cat.Report == nil {
		return fmt.Errorf("%s has no report section: name the document to regenerate (go tool mutate help report)", catalogPath)
	}
	inRoot := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, filepath.FromSlash(p))
	}
	paths := []string{catalogPath}
	for _, p := range cat.Report.Mutants {
		paths = append(paths, inRoot(p))
	}
	sel := selection{files: paths, pkg: *pkg}
	pr := progress.New(c.stderr, rf.quiet)
	plan, err := c.selectPlan(ctx, &sel, pr)
	if err != nil {
		return err
	}
	all := plan.Units[0].All
	var rep *report.Report
	if *results != "" {
		if rep, err = report.ReadFile(*results); err != nil {
			return err
		}
		if got, want := rep.IDs(), mutation.IDs(all); !slices.Equal(got, want) {
			return fmt.Errorf("%s holds mutants %v, want those of the catalog and its report's files, %v", *results, got, want)
		}
	} else if rep, err = harness.Run(ctx, plan, rf.options(c, pr)); err != nil {
		return err
	}
	if err := predict.Comparable(rep); err != nil {
		return err
	}

	n := len(cat.Mutants)
	in := reportdoc.Input{
		Report: rep, Catalog: all[:n], Experiments: all[n:], ExperimentFiles: cat.Report.Mutants,
		Diffs: map[string]string{},
	}
	for _, m := range rep.Mutants {
		in.Diffs[m.ID] = m.Diff
	}
	if cat.Report.Predictions != "" {
		// The prediction file covers the catalog: compare it with that part.
		catRep := *rep
		catRep.Mutants = rep.Mutants[:n]
		pf, err := predict.Load(inRoot(cat.Report.Predictions), predict.Known{Mutants: mutation.IDs(in.Catalog), Tests: rep.Baseline.TestNames}, false)
		if err != nil {
			return err
		}
		in.Predictions, in.Score = cat.Report.Predictions, predict.Compare(pf, &catRep, predict.CreditExact)
	}

	doc := cat.Report.File
	if *out != "" {
		doc = *out
	}
	path := inRoot(doc)
	if *out != "" {
		path = *out
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := reportdoc.Rewrite(old, reportdoc.Blocks(in))
	if err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	switch {
	case bytes.Equal(updated, old):
		fmt.Fprintf(c.stderr, "mutate: %s is up to date\n", doc)
		return nil
	case *checkOnly:
		fmt.Fprint(c.stdout, udiff.Unified("a/"+doc, "b/"+doc, string(old), string(updated)))
		hint := selection{pkg: *pkg}
		if *catalog != "" {
			hint.files = files{*catalog}
		}
		fmt.Fprintf(c.stderr, "mutate report: %s is out of date: run %s and commit it\n", doc, c.command(&hint, "report"))
		return verdict(1)
	}
	if err := os.WriteFile(path, updated, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "mutate: rewrote the generated parts of %s\n", doc)
	return nil
}
