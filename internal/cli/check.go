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
	"github.com/fencelab/fencelab/mutants"
)

const checkSummary = `Validate the prediction FILEs (every problem with its file:line:col; nothing
runs if one is invalid), run the mutants (or read the results of a run with
-results), and show, per mutant, what was predicted, what failed, what was
missed and what was wrong, with a score per file and a class summary.

Exit codes: 0 every prediction in every file was exact; 1 some prediction
differs; 2 an invalid prediction file, or any error that run exits 2 for.`

const templateSummary = `Write a prediction file to fill in: every mutant with an empty prediction, and
the names of every test of the suite (from a run of the unmutated suite, or
the cache). It never overwrites a file.`

// Exit codes of check.
const (
	exitExact   = 0
	exitDiffers = 1
)

func check(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("check", "[flags] FILE...", checkSummary, stderr)
	var mf mutantFlags
	mf.register(fs)
	var rf runFlags
	rf.register(fs)
	results := fs.String("results", "", "compare with this `file` of mutate run -json instead of running the mutants")
	partial := fs.Bool("partial", false, "allow files that predict only some of the mutants")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	markdown := fs.Bool("markdown", false, "print the comparison as Markdown tables")
	if err := parse(fs, args); err != nil {
		return exitError, err
	}
	if fs.NArg() == 0 {
		return exitError, usagef(fs, "no prediction file given (mutate template writes one)")
	}
	if *asJSON && *markdown {
		return exitError, errors.New("-json and -markdown exclude each other")
	}
	files := fs.Args()

	var (
		rep *report.Report
		pfs []*predict.File
	)
	if *results != "" {
		if set := setFlags(fs, "pkg", "mutants", "catalog", "only", "j", "timeout", "mode", "no-cache"); len(set) > 0 {
			return exitError, fmt.Errorf("-results replaces the run: -%s do not apply", set[0])
		}
		var err error
		if rep, err = report.ReadFile(*results); err != nil {
			return exitError, err
		}
		known := predict.Known{Mutants: mutantIDs(rep), Tests: rep.Baseline.TestNames}
		if pfs, err = loadAll(files, known, *partial); err != nil {
			return exitError, err
		}
	} else {
		if err := rf.check(); err != nil {
			return exitError, err
		}
		all, ms, err := mf.loadAll()
		if err != nil {
			return exitError, err
		}
		cfg := rf.config("", mf.pkg, ms, stderr)
		p, err := harness.Prepare(ctx, cfg)
		if err != nil {
			return exitError, err
		}
		defer p.Close()
		top, err := gotest.TopLevel(p.Target.Dir)
		if err != nil {
			return exitError, err
		}
		// A file may predict any known mutant; it must predict those that
		// run (unless -partial).
		ids, run := idsOf(all), idsOf(ms)
		// Everything but subtest names can be checked before anything runs.
		pfs, err = loadAll(files, predict.Known{Mutants: ids, Required: run, Tests: top, TopLevelOnly: true}, *partial)
		if err != nil {
			return exitError, err
		}
		key, cached := rf.cached(ctx, cfg, p)
		var (
			base  *harness.Baseline
			names []string
		)
		if cached != nil {
			names = cached.Baseline.TestNames
		} else {
			if base, err = harness.RunBaseline(ctx, cfg, p); err != nil {
				return exitError, interrupted(ctx, err)
			}
			names = base.Result.Names()
		}
		full := predict.Known{Mutants: ids, Required: run, Tests: names}
		var errs predict.Errors
		for _, pf := range pfs {
			errs = append(errs, pf.Check(full, *partial)...)
		}
		if len(errs) > 0 {
			return exitError, errs
		}
		rep = cached
		if rep == nil {
			if rep, err = harness.RunMutants(ctx, cfg, p, base); err != nil {
				return exitError, interrupted(ctx, err)
			}
			rf.store(ctx, cfg, p, key, rep)
		}
	}
	if err := predict.Comparable(rep); err != nil {
		return exitError, err
	}
	var scores []*predict.Score
	for _, pf := range pfs {
		scores = append(scores, predict.Compare(pf, rep))
	}
	class := predict.NewClass(scores)
	var err error
	switch {
	case *asJSON:
		err = class.WriteJSON(stdout)
	case *markdown:
		err = class.WriteMarkdown(stdout)
	default:
		err = class.WriteText(stdout, predict.Style{Color: isTerminal(stdout)})
	}
	if err != nil {
		return exitError, err
	}
	if class.AllExact() {
		return exitExact, nil
	}
	return exitDiffers, nil
}

// loadAll loads every file and returns every problem of every file at once.
func loadAll(paths []string, known predict.Known, partial bool) ([]*predict.File, error) {
	var (
		files []*predict.File
		errs  predict.Errors
	)
	for _, path := range paths {
		f, err := predict.Load(path, known, partial)
		if err != nil {
			if list, ok := predict.AsErrors(err); ok {
				errs = append(errs, list...)
			} else {
				errs = append(errs, err)
			}
			continue
		}
		files = append(files, f)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return files, nil
}

func template(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("template", "[flags]", templateSummary, stderr)
	var mf mutantFlags
	mf.register(fs)
	learner := fs.String("learner", "", "the learner's `name`, written into the file")
	out := fs.String("o", "", "write the template to `file` (which must not exist) instead of stdout")
	noCache := fs.Bool("no-cache", false, "run the suite even if the names of its tests are cached")
	quiet := fs.Bool("q", false, "print no progress on stderr")
	if err := parseFlagsOnly(fs, args); err != nil {
		return exitError, err
	}
	ms, err := mf.load()
	if err != nil {
		return exitError, err
	}
	if *out != "" {
		if err := checkOutput(*out, false); errors.Is(err, errExists) {
			return exitError, fmt.Errorf("%w; the template does not overwrite a prediction file", err)
		} else if err != nil {
			return exitError, err
		}
	}
	rf := runFlags{noCache: *noCache, quiet: *quiet, mode: string(harness.ModeOverlay)}
	cfg := rf.config("", mf.pkg, ms, stderr)
	p, err := harness.Prepare(ctx, cfg)
	if err != nil {
		return exitError, err
	}
	defer p.Close()
	// The names of subtests are known only from a run of the suite.
	names, ok := rf.baselineNames(ctx, cfg, p)
	if !ok {
		base, err := harness.RunBaseline(ctx, cfg, p)
		if err != nil {
			return exitError, interrupted(ctx, err)
		}
		names = base.Result.Names()
		rf.storeBaseline(ctx, cfg, p, report.Baseline{Tests: len(names), Seconds: base.Wall.Seconds(), TestNames: names})
	}
	write := func(w io.Writer) error {
		return predict.WriteTemplate(w, *learner, p.Target.Rel, ms, names)
	}
	if *out == "" {
		return exitOK, write(stdout)
	}
	if err := writeFile(*out, write); err != nil {
		return exitError, err
	}
	fmt.Fprintf(stderr, "mutate: wrote %s; fill in fails and why for each mutant, then run: go tool mutate check %s\n", *out, *out)
	return exitOK, nil
}

func idsOf(ms []*mutants.Mutant) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

func mutantIDs(rep *report.Report) []string {
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

// interrupted turns the error of a cancelled run into a clear message.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errors.New("interrupted; temporary files removed, the source tree is unchanged")
	}
	return err
}

// isTerminal reports whether w is a terminal that takes colour.
func isTerminal(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && progress.IsTerminal(w)
}
