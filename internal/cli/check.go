package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

var checkSummary = `Validate the prediction FILEs (every problem with its file:line:col; nothing
runs if one is invalid), run the mutants (or read the results of a run with
-results), and show, per mutant, what was predicted, what failed, what was
missed and what was wrong, with a score per file and a class summary.

With -html, the class page: a row per learner and a column per mutant
(exact, differs, not predicted, invalid), per learner precision and recall,
per mutant the share of the class exact and the tests missed most often.
For a class an invalid file does not stop the others: it is a row of
invalid cells, its problems are on the page and on stderr, and the exit
code is 2.

It takes the flags of run that choose the mutants (-mutants, -pkg, -only,
-generate, -diff, -shard); generated mutants run to the end, as with -full.

` + text.Wrap("Exit codes: "+report.ExitHelp("check"), 78, "")

func check(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags] FILE...", checkSummary)
	var sel selection
	sel.register(fs, true)
	var rf runFlags
	rf.register(fs)
	results := fs.String("results", "", "compare with this `file` of mutate run -json instead of running the mutants")
	partial := fs.Bool("partial", false, "allow files that predict only some of the mutants")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	markdown := fs.Bool("markdown", false, "print the comparison as Markdown tables")
	classPage := fs.String("html", "", "also write the class page to `file`: learners × mutants, as HTML")
	var out outputs
	fs.StringVar(&out.stryker, "stryker", "", "also write the run to `file` as JSON in the mutation-testing-report-schema")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef(fs, "no prediction file given (go tool mutate template writes one)")
	}
	if *asJSON && *markdown {
		return errors.New("-json and -markdown exclude each other")
	}
	for _, file := range []string{*classPage, out.stryker} {
		if file != "" {
			if err := checkOutput(file, true); err != nil {
				return err
			}
		}
	}
	lp := &predict.Loader{Files: fs.Args(), Partial: *partial, Class: *classPage != ""}

	var (
		rep *report.Report
		pfs []*predict.File
		err error
	)
	if *results != "" {
		if set := setFlags(fs, "pkg", "mutants", "only", "generate", "diff", "shard", "j", "timeout", "mode", "no-cache", "full", "stryker"); len(set) > 0 {
			return fmt.Errorf("-results replaces the run: -%s does not apply", set[0])
		}
		if rep, err = report.ReadFile(*results); err != nil {
			return err
		}
		// A generated mutant dropped as not valid Go is still one that a
		// file (a template) may predict.
		ran := reportIDs(rep)
		known := predict.Known{Mutants: ran, Required: ran, Tests: rep.Baseline.TestNames}
		for _, d := range rep.Dropped {
			known.Mutants = append(known.Mutants, d.ID)
		}
		if pfs, err = lp.Load(known); err != nil {
			return err
		}
	} else if rep, pfs, err = runChecked(ctx, c, &sel, &rf, lp, &out); err != nil {
		return err
	}
	if err := predict.Comparable(rep); err != nil {
		return err
	}
	var scores []*predict.Score
	for _, pf := range pfs {
		scores = append(scores, predict.Compare(pf, rep))
	}
	class := predict.NewClass(scores)
	if *classPage != "" {
		if err := c.writeFile(*classPage, "the class page", func(w io.Writer) error { return class.WriteHTML(w, lp.Invalid) }); err != nil {
			return err
		}
	}
	switch {
	case *asJSON:
		err = class.WriteJSON(c.stdout)
	case *markdown:
		err = class.WriteMarkdown(c.stdout)
	default:
		err = class.WriteText(c.stdout, predict.Style{Color: isTerminal(c)})
	}
	if err != nil {
		return err
	}
	if len(lp.Problems) > 0 {
		// The class was compared without the invalid files; they are
		// still an error.
		return lp.Problems
	}
	if !class.AllExact() {
		return verdict(1)
	}
	return nil
}

// runChecked validates the prediction files, runs the mutants (or takes
// their results from the cache), writes the run to out's files, and
// returns the report and the valid files. Everything in the files but
// subtest names is checked before anything runs; subtest names, known only
// from a run of the suite, after the baseline and before any mutant (in a
// run of a pattern, after the run).
func runChecked(ctx context.Context, c *call, sel *selection, rf *runFlags, lp *predict.Loader, out *outputs) (*report.Report, []*predict.File, error) {
	if err := rf.check(); err != nil {
		return nil, nil, err
	}
	// Predictions are compared with every test that fails: generated
	// mutants run to the end too, as with -full. (Catalog mutants always
	// do, and their results in the cache are run's.)
	if sel.generate {
		rf.full = true
	}
	pr := progress.New(c.stderr, rf.quiet)
	plan, err := c.selectPlan(ctx, sel, pr)
	if err != nil {
		return nil, nil, err
	}
	// A file may predict any mutant of the files; it must predict those
	// that run (unless -partial).
	var ids, run, top []string
	for _, u := range plan.Units {
		for _, m := range u.All {
			ids = append(ids, u.Qual+m.ID)
		}
		for _, a := range u.Applied {
			run = append(run, u.Qual+a.Mutant.ID)
		}
		names, err := gotest.TopLevel(u.Target.Dir)
		if err != nil {
			return nil, nil, err
		}
		for _, name := range names {
			top = append(top, u.Qual+name)
		}
	}
	pfs, err := lp.Load(predict.Known{Mutants: ids, Required: run, Tests: top, TopLevelOnly: true})
	if err != nil {
		return nil, nil, err
	}
	opt := rf.options(pr)
	recheck := func(tests []string) error {
		pfs, err = lp.Recheck(pfs, predict.Known{Mutants: ids, Required: run, Tests: tests})
		return err
	}
	if !plan.Multi {
		opt.AfterBaseline = recheck
	}
	rep, err := harness.Run(ctx, plan, opt)
	if err != nil {
		return nil, nil, err
	}
	if plan.Multi {
		if err := recheck(rep.Baseline.TestNames); err != nil {
			return nil, nil, err
		}
	}
	if err := out.writeFiles(c, plan.Root, rep); err != nil {
		return nil, nil, err
	}
	return rep, pfs, nil
}

func reportIDs(rep *report.Report) []string {
	ids := make([]string, len(rep.Mutants))
	for i, m := range rep.Mutants {
		ids[i] = m.ID
	}
	return ids
}

// setFlags returns the names among names that were set on the command line.
func setFlags(fs *flag.FlagSet, names ...string) []string {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			if f.Name == n {
				set = append(set, n)
			}
		}
	})
	return set
}

// isTerminal reports whether the call prints to a terminal that takes
// colour.
func isTerminal(c *call) bool {
	return progress.IsTerminal(c.stdout) && os.Getenv("NO_COLOR") == ""
}
