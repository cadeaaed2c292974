package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
)

// outputs are where the result of a run goes, and what decides its exit
// code: the kill matrix or JSON on stdout, GitHub annotations, the files
// of -junit, -stryker and -html, and -min-score. run and merge share them.
type outputs struct {
	asJSON, github, verbose bool
	junit, stryker, html    string
	minScore                float64
}

func (o *outputs) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.asJSON, "json", false, "print the result as JSON instead of the kill matrix")
	fs.StringVar(&o.junit, "junit", "", "also write the result as JUnit XML to `file`")
	fs.StringVar(&o.stryker, "stryker", "", "also write the result to `file` as JSON in the mutation-testing-report-schema (Stryker's)")
	fs.StringVar(&o.html, "html", "", "also write the result to `file` as a self-contained HTML report")
	fs.BoolVar(&o.github, "github", false, "also print GitHub Actions annotations for mutants not killed")
	fs.BoolVar(&o.verbose, "v", false, "print each failing test's message in the kill matrix")
	fs.Float64Var(&o.minScore, "min-score", 0, "gate on the mutation score instead: exit 1 if it is below `ratio` (0.8: 80% of the mutants detected)")
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
			if err := checkOutput(file, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// write prints rep and writes its files; src gives what the -stryker and
// -html reports show beside it, and show the command that shows a mutant.
// It returns the run's verdict.
func (o *outputs) write(c *call, rep *report.Report, src func() (report.Sources, error), show func(id string) string) error {
	if o.github {
		if err := rep.WriteGitHub(c.stdout, show); err != nil {
			return err
		}
	}
	var err error
	if o.asJSON {
		err = rep.WriteJSON(c.stdout)
	} else {
		err = rep.WriteText(c.stdout, o.verbose)
	}
	if err != nil {
		return err
	}
	if o.junit != "" {
		if err := writeFile(o.junit, rep.WriteJUnit); err != nil {
			return err
		}
	}
	if err := o.writeFiles(rep, src); err != nil {
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
	if code != exitOK {
		return verdict(code)
	}
	return nil
}

// writeFiles writes the -stryker and -html files of rep.
func (o *outputs) writeFiles(rep *report.Report, src func() (report.Sources, error)) error {
	if o.stryker == "" && o.html == "" {
		return nil
	}
	s, err := src()
	if err != nil {
		return err
	}
	if o.stryker != "" {
		if err := writeFile(o.stryker, func(w io.Writer) error { return rep.WriteStryker(w, s) }); err != nil {
			return err
		}
	}
	if o.html != "" {
		return writeFile(o.html, func(w io.Writer) error { return rep.WriteHTML(w, s) })
	}
	return nil
}

// sourcesOf returns what the reports show beside rep, a run in the module
// at root: the source of each mutated file, where each test of its
// packages is declared (by qualified name in a run of a pattern), and
// what each mutant of docs stands for.
func sourcesOf(root string, rep *report.Report, docs map[string]report.MutantDoc) (report.Sources, error) {
	src := report.Sources{
		Files:   map[string]string{},
		Tests:   map[string]report.Position{},
		TestAt:  map[string]string{},
		Mutants: docs,
	}
	for _, m := range rep.Mutants {
		if _, ok := src.Files[m.File]; ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
		if err != nil {
			return report.Sources{}, err
		}
		src.Files[m.File] = string(data)
	}
	pkgs, qualify := rep.Packages, true
	if len(pkgs) == 0 {
		pkgs, qualify = []string{rep.Package}, false
	}
	for _, pkg := range pkgs {
		dir := path.Clean(strings.TrimPrefix(pkg, "./"))
		funcs, err := gotest.TestFuncs(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			return report.Sources{}, err
		}
		for _, f := range funcs {
			name := f.Name
			if qualify {
				name = report.Qualifier(pkg) + name
			}
			src.Tests[name] = report.Position{Line: f.Line, Column: f.Column}
			src.TestAt[name] = path.Join(dir, f.File)
		}
	}
	return src, nil
}

// docs returns what each mutant of the sessions stands for, by its id in
// the report (qualified in a run of a pattern).
func docs(sessions []*session, qualify bool) map[string]report.MutantDoc {
	out := map[string]report.MutantDoc{}
	for _, s := range sessions {
		q := ""
		if qualify {
			q = report.Qualifier(s.Target.Rel)
		}
		for _, a := range s.Applied {
			m := a.Mutant
			out[q+m.ID] = report.MutantDoc{Contract: m.Contract, Rationale: m.Rationale, Seed: m.Seed, Diff: a.Diff(s.RelFile(a))}
		}
	}
	return out
}

// reportDocs returns the documents of the mutants of a run without its
// sessions: their diffs, as the report keeps them.
func reportDocs(rep *report.Report) map[string]report.MutantDoc {
	out := map[string]report.MutantDoc{}
	for _, m := range rep.Mutants {
		out[m.ID] = report.MutantDoc{Diff: m.Diff}
	}
	return out
}
