package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/aymanbagabas/go-udiff"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/exercise"
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
func reportCmd(ctx context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "[flags]", reportSummary)
	var f reportFlags
	f.catalog = fs.String("mutants", "", "the catalog `file` whose report section says what to generate (default: the module's "+exercise.Catalog+")")
	f.pkg = fs.String("pkg", "", "the `package` to mutate, as go names it here (default: the one the catalog names)")
	f.out = fs.String("o", "", "the document to rewrite instead of the report section's `file`")
	f.results = fs.String("results", "", "use this `file` of mutate run -json (of the same mutants) instead of running")
	f.check = fs.Bool("check", false, "write nothing; exit 1 and print the difference if the file is out of date")
	f.rf.Register(fs)
	if err := command.ParseFlagsOnly(fs, args); err != nil {
		return err
	}
	if err := f.rf.Check(); err != nil {
		return err
	}
	d, err := loadReportDoc(*f.catalog)
	if err != nil {
		return err
	}
	in, err := d.input(ctx, c, &f)
	if err != nil {
		return err
	}
	return d.rewrite(c, &f, in)
}

// reportFlags are the flags of report.
type reportFlags struct {
	catalog, pkg, out, results *string
	check                      *bool
	rf                         command.RunFlags
}

// reportDoc is a catalog with a report section, and the module it is in.
type reportDoc struct {
	root, catalogPath string
	cat               *exercise.File
}

// loadReportDoc loads the catalog at path (the module's, if ""), which
// must have a report section.
func loadReportDoc(path string) (*reportDoc, error) {
	root, err := exercise.FindRoot(".")
	if err != nil {
		return nil, err
	}
	if path == "" {
		path = filepath.Join(root, filepath.FromSlash(exercise.Catalog))
	}
	cat, err := exercise.LoadFile(path)
	if err != nil {
		return nil, err
	}
	if cat.Report == nil {
		return nil, fmt.Errorf("%s has no report section: name the document to regenerate (go tool mutate help report)", path)
	}
	return &reportDoc{root: root, catalogPath: path, cat: cat}, nil
}

// inRoot returns p, a path of the report section, from the module root.
func (d *reportDoc) inRoot(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.root, filepath.FromSlash(p))
}

// input runs the catalog and the report section's mutants files (or reads
// the run of -results) and returns what the document's blocks show.
func (d *reportDoc) input(ctx context.Context, c *command.Call, f *reportFlags) (reportdoc.Input, error) {
	paths := []string{d.catalogPath}
	for _, p := range d.cat.Report.Mutants {
		paths = append(paths, d.inRoot(p))
	}
	sel := command.Selection{Files: paths, Pkg: *f.pkg}
	pr := progress.New(c.Stderr, f.rf.Quiet)
	plan, err := c.SelectPlan(ctx, &sel, pr)
	if err != nil {
		return reportdoc.Input{}, err
	}
	all := plan.Units[0].All
	var rep *report.Report
	if *f.results != "" {
		if rep, err = report.ReadFile(*f.results); err != nil {
			return reportdoc.Input{}, err
		}
		if got, want := rep.IDs(), mutation.IDs(all); !slices.Equal(got, want) {
			return reportdoc.Input{}, fmt.Errorf("%s holds mutants %v, want those of the catalog and its report's files, %v", *f.results, got, want)
		}
	} else if rep, err = c.Eng.Run(ctx, plan, f.rf.Options(c, pr)); err != nil {
		return reportdoc.Input{}, err
	}
	if err := predict.Comparable(rep); err != nil {
		return reportdoc.Input{}, err
	}
	n := len(d.cat.Mutants)
	in := reportdoc.Input{
		Report: rep, Catalog: all[:n], Experiments: all[n:], ExperimentFiles: d.cat.Report.Mutants,
		Diffs: map[string]string{},
	}
	for _, m := range rep.Mutants {
		in.Diffs[m.ID] = m.Diff
	}
	if d.cat.Report.Predictions != "" {
		// The prediction file covers the catalog: compare it with that part.
		catRep := *rep
		catRep.Mutants = rep.Mutants[:n]
		pf, err := predict.Load(d.inRoot(d.cat.Report.Predictions), predict.Known{Mutants: mutation.IDs(in.Catalog), Tests: rep.Baseline.TestNames}, false)
		if err != nil {
			return reportdoc.Input{}, err
		}
		in.Predictions, in.Score = d.cat.Report.Predictions, predict.Compare(pf, &catRep, predict.CreditExact)
	}
	return in, nil
}

// rewrite rewrites the document's generated blocks from in, or with
// -check says how they differ (exit 1).
func (d *reportDoc) rewrite(c *command.Call, f *reportFlags, in reportdoc.Input) error {
	doc, path := d.cat.Report.File, d.inRoot(d.cat.Report.File)
	if *f.out != "" {
		doc, path = *f.out, *f.out
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
		fmt.Fprintf(c.Stderr, "mutate: %s is up to date\n", doc)
		return nil
	case *f.check:
		fmt.Fprint(c.Stdout, udiff.Unified("a/"+doc, "b/"+doc, string(old), string(updated)))
		hint := command.Selection{Pkg: *f.pkg}
		if *f.catalog != "" {
			hint.Files = command.Files{*f.catalog}
		}
		fmt.Fprintf(c.Stderr, "mutate report: %s is out of date: run %s and commit it\n", doc, c.Command(&hint, "report"))
		return command.Answer(1)
	}
	if err := os.WriteFile(path, updated, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(c.Stderr, "mutate: rewrote the generated parts of %s\n", doc)
	return nil
}
