package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/outfile"
	"github.com/fencelab/fencelab/internal/report"
)

// outputs are where the result of a run goes, and what decides its exit
// code: the kill matrix or JSON on stdout, GitHub annotations, the files
// of -junit, -stryker and -html, and -min-score. run and merge share them;
// check writes -stryker and -html.
type outputs struct {
	asJSON, github, verbose, answers bool
	junit, stryker, html             string
	minScore                         float64
	// exercise are the ids of the run's mutants that are the exercise's,
	// whose failing tests the kill matrix does not name (see
	// exerciseIDs).
	exercise map[string]bool
}

func (o *outputs) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.asJSON, "json", false, "print the result as JSON instead of the kill matrix")
	fs.StringVar(&o.junit, "junit", "", "also write the result as JUnit XML to `file`")
	o.registerFiles(fs)
	fs.BoolVar(&o.github, "github", false, "also print GitHub Actions annotations for mutants not killed")
	fs.BoolVar(&o.verbose, "v", false, "print each failing test's message in the kill matrix")
	fs.BoolVar(&o.answers, "answers", false, "name the tests that failed under the mutants of the module's catalog in the kill matrix: the exercise's answers (-json and the report files always do)")
	fs.Float64Var(&o.minScore, "min-score", 0, "gate on the mutation score instead: exit 1 if it is below `ratio` (0.8: 80% of the mutants detected)")
}

// registerFiles registers the flags of the reports to look at.
func (o *outputs) registerFiles(fs *flag.FlagSet) {
	fs.StringVar(&o.stryker, "stryker", "", "also write the result to `file` as JSON in the mutation-testing-report-schema (Stryker's)")
	fs.StringVar(&o.html, "html", "", "also write the result to `file` as a self-contained HTML report")
}

// check checks the flags, and that the files can be written, before
// anything runs.
func (o *outputs) check() error {
	if o.asJSON && o.github {
		return errors.New("-json and -github both write to stdout: pick one (-junit FILE writes a file)")
	}
	if o.minScore < 0 || o.minScore > 1 {
		return fmt.Errorf("-min-score %g: want a ratio from 0 to 1, such as 0.8", o.minScore)
	}
	for _, file := range []string{o.junit, o.stryker, o.html} {
		if file != "" {
			if err := outfile.Check(file, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// write prints rep and writes its files, the sources read from the module
// at root; show returns the command that shows a mutant. It returns the
// run's verdict.
func (o *outputs) write(c *call, root string, rep *report.Report, show func(id string) string) error {
	if o.github {
		if err := rep.WriteGitHub(c.stdout, show); err != nil {
			return err
		}
	}
	var err error
	if o.asJSON {
		err = rep.WriteJSON(c.stdout)
	} else {
		opt := report.TextOptions{Verbose: o.verbose}
		if !o.answers {
			opt.Exercise = o.exercise
		}
		err = rep.WriteText(c.stdout, opt)
	}
	if err != nil {
		return err
	}
	if o.junit != "" {
		if err := c.writeFile(o.junit, "JUnit XML, a test case per mutant", rep.WriteJUnit); err != nil {
			return err
		}
	}
	if err := o.writeFiles(c, root, rep); err != nil {
		return err
	}
	code := rep.ExitCode()
	if o.minScore > 0 {
		code = rep.ExitCodeMinScore(o.minScore)
		verdict := "at least"
		if rep.Summary.Score < o.minScore {
			verdict = "below"
		}
		fmt.Fprintf(c.stderr, "mutate: mutation score %.1f%%, %s the minimum %.1f%%\n", 100*rep.Summary.Score, verdict, 100*o.minScore)
	}
	if code != report.ExitKilled {
		return verdict(code)
	}
	return nil
}

// writeFiles writes the -stryker and -html files of rep.
func (o *outputs) writeFiles(c *call, root string, rep *report.Report) error {
	if o.stryker == "" && o.html == "" {
		return nil
	}
	src, err := report.ReadSources(root, rep)
	if err != nil {
		return err
	}
	if o.stryker != "" {
		if err := c.writeFile(o.stryker, "the run in the mutation-testing-report-schema", func(w io.Writer) error { return rep.WriteStryker(w, src) }); err != nil {
			return err
		}
	}
	if o.html != "" {
		return c.writeFile(o.html, "the HTML report; open it in a browser", func(w io.Writer) error { return rep.WriteHTML(w, src) })
	}
	return nil
}

// exerciseIDs returns the ids (qualified in a run of a pattern) of the
// plan's mutants that the module's catalog holds: the exercise's, whose
// failing tests are the answers a learner predicts. Mutants of other
// files (a learner's own, experiments) and generated ones are not.
func exerciseIDs(plan *exercise.Plan) map[string]bool {
	ids := map[string]bool{}
	for _, u := range plan.Units {
		if u.Set == nil {
			continue
		}
		for _, f := range u.Set.Files {
			if !exercise.IsCatalog(u.Set.Root, f.Path) {
				continue
			}
			for _, m := range f.Mutants {
				ids[u.Qual+m.ID] = true
			}
		}
	}
	return ids
}
