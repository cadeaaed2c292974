package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

const checkSummary = `Validate the prediction FILEs (every problem with its file:line:col; nothing
runs if one is invalid), run the mutants (or read the results of a run with
-results), and show, per mutant, what was predicted, what failed, what was
missed and what was wrong, with a score per file and a class summary.

Exit codes: 0 every prediction in every file was exact; 1 some prediction
differs; 2 an invalid prediction file, or any error that run exits 2 for.`

func check(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags] FILE...", checkSummary)
	var mf mutantFlags
	mf.register(fs)
	var rf runFlags
	rf.register(fs)
	results := fs.String("results", "", "compare with this `file` of mutate run -json instead of running the mutants")
	partial := fs.Bool("partial", false, "allow files that predict only some of the mutants")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	markdown := fs.Bool("markdown", false, "print the comparison as Markdown tables")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef(fs, "no prediction file given (go tool mutate template writes one)")
	}
	if *asJSON && *markdown {
		return errors.New("-json and -markdown exclude each other")
	}
	files := fs.Args()

	var (
		rep *report.Report
		pfs []*predict.File
		err error
	)
	if *results != "" {
		if set := setFlags(fs, "pkg", "mutants", "only", "j", "timeout", "mode", "no-cache"); len(set) > 0 {
			return fmt.Errorf("-results replaces the run: -%s does not apply", set[0])
		}
		if rep, err = report.ReadFile(*results); err != nil {
			return err
		}
		known := predict.Known{Mutants: reportIDs(rep), Tests: rep.Baseline.TestNames}
		if pfs, err = loadPredictions(files, known, *partial); err != nil {
			return err
		}
	} else if rep, pfs, err = runChecked(ctx, c, &mf, &rf, files, *partial); err != nil {
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
	if !class.AllExact() {
		return verdict(1)
	}
	return nil
}

// runChecked validates the prediction files, runs the mutants (or takes
// their results from the cache) and returns the report and the files.
// Everything in the files but subtest names is checked before anything
// runs; subtest names, known only from a run of the suite, after the
// baseline and before any mutant.
func runChecked(ctx context.Context, c *call, mf *mutantFlags, rf *runFlags, files []string, partial bool) (*report.Report, []*predict.File, error) {
	if err := rf.check(); err != nil {
		return nil, nil, err
	}
	s, err := c.open(ctx, mf, rf, nil)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	top, err := gotest.TopLevel(s.Target.Dir)
	if err != nil {
		return nil, nil, err
	}
	// A file may predict any mutant of the files; it must predict those
	// that run (unless -partial).
	ids, run := idsOf(s.all), idsOf(s.mutants)
	pfs, err := loadPredictions(files, predict.Known{Mutants: ids, Required: run, Tests: top, TopLevelOnly: true}, partial)
	if err != nil {
		return nil, nil, err
	}
	cfg := s.cfg
	cfg.AfterBaseline = func(tests []string) error {
		full := predict.Known{Mutants: ids, Required: run, Tests: tests}
		var errs yamlfile.Errors
		for _, pf := range pfs {
			errs = append(errs, pf.Check(full, partial)...)
		}
		if len(errs) > 0 {
			return errs
		}
		return nil
	}
	rep, err := s.Run(ctx, cfg)
	return rep, pfs, err
}

// loadPredictions loads every file and returns every problem of every file
// at once.
func loadPredictions(paths []string, known predict.Known, partial bool) ([]*predict.File, error) {
	var (
		pfs  []*predict.File
		errs yamlfile.Errors
	)
	for _, path := range paths {
		f, err := predict.Load(path, known, partial)
		var list yamlfile.Errors
		switch {
		case errors.As(err, &list):
			errs = append(errs, list...)
		case err != nil:
			errs = append(errs, err)
		default:
			pfs = append(pfs, f)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return pfs, nil
}

func idsOf(ms []*mutation.Mutant) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
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
