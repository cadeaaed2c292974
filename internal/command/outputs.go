package command

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/report"
)

// Outputs are where the result of a run goes, and what decides its exit
// code: the kill matrix or JSON on stdout, GitHub annotations, the files
// of -junit, -stryker and -html, and -min-score. run and merge share them;
// check writes -stryker and -html.
type Outputs struct {
	asJSON, github, verbose, Answers bool
	// files are the report files asked for: a path by format's flag.
	files    map[string]*string
	minScore float64
	// Exercise are the ids of the run's mutants that are the Exercise's,
	// whose failing tests the kill matrix does not name (see
	// exerciseIDs).
	Exercise map[string]bool
}

// fileFormat is a report that a flag writes to a file. Adding a format is
// adding a row to fileFormats (and its writer to package report).
type fileFormat struct {
	flag, usage string
	// what says what the file holds, in the line that names it.
	what string
	// sources: the writer needs the mutants' source files.
	sources bool
	write   func(w io.Writer, rep *report.Report, src report.Sources) error
}

// fileFormats lists the report files, in the order they are written.
var fileFormats = []fileFormat{
	{
		flag: "junit", usage: "also write the result as JUnit XML to `file`",
		what:  "JUnit XML, a test case per mutant",
		write: func(w io.Writer, rep *report.Report, _ report.Sources) error { return rep.WriteJUnit(w) },
	},
	{
		flag: "stryker", usage: "also write the result to `file` as JSON in the mutation-testing-report-schema (Stryker's)",
		what: "the run in the mutation-testing-report-schema", sources: true,
		write: func(w io.Writer, rep *report.Report, src report.Sources) error { return rep.WriteStryker(w, src) },
	},
	{
		flag: "html", usage: "also write the result to `file` as a self-contained HTML report",
		what: "the HTML report; open it in a browser", sources: true,
		write: func(w io.Writer, rep *report.Report, src report.Sources) error { return rep.WriteHTML(w, src) },
	},
}

func (o *Outputs) Register(fs *flag.FlagSet) {
	fs.BoolVar(&o.asJSON, "json", false, "print the result as JSON instead of the kill matrix")
	o.RegisterFiles(fs)
	fs.BoolVar(&o.github, "github", false, "also print GitHub Actions annotations for mutants not killed")
	fs.BoolVar(&o.verbose, "v", false, "print each failing test's message in the kill matrix")
	fs.BoolVar(&o.Answers, "answers", false, "name the tests that failed under the mutants of the module's catalog in the kill matrix: the exercise's answers (-json and the report files always do)")
	fs.Float64Var(&o.minScore, "min-score", 0, "gate on the mutation score instead: exit 1 if it is below `ratio` (0.8: 80% of the mutants detected)")
}

// RegisterFiles registers the flags of the report files: every format's,
// or only the named ones.
func (o *Outputs) RegisterFiles(fs *flag.FlagSet, only ...string) {
	o.files = map[string]*string{}
	for _, f := range fileFormats {
		if len(only) == 0 || slices.Contains(only, f.flag) {
			o.files[f.flag] = fs.String(f.flag, "", f.usage)
		}
	}
}

// file returns the path given to format's flag, "" if none.
func (o *Outputs) file(format string) string {
	if p := o.files[format]; p != nil {
		return *p
	}
	return ""
}

// Paths returns the files to write.
func (o *Outputs) Paths() []string {
	var paths []string
	for _, f := range fileFormats {
		if p := o.file(f.flag); p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}

// StdoutOnly drops every output but stdout's matrix or JSON: what an
// interrupted run prints.
func (o *Outputs) StdoutOnly() {
	o.files, o.github, o.minScore = nil, false, 0
}

// Check checks the flags, and that the files can be written, before
// anything runs.
func (o *Outputs) Check() error {
	if o.asJSON && o.github {
		return errors.New("-json and -github both write to stdout: pick one (-junit FILE writes a file)")
	}
	if o.minScore < 0 || o.minScore > 1 {
		return fmt.Errorf("-min-score %g: want a ratio from 0 to 1, such as 0.8", o.minScore)
	}
	for _, file := range o.Paths() {
		if err := CheckOut(file, true); err != nil {
			return err
		}
	}
	return nil
}

// Write prints rep and writes its files, the sources read from the module
// at root; show returns the command that shows a mutant. It returns the
// run's answer.
func (o *Outputs) Write(c *Call, root string, rep *report.Report, show func(id string) string) error {
	if o.github {
		if err := rep.WriteGitHub(c.Stdout, show); err != nil {
			return err
		}
	}
	var err error
	if o.asJSON {
		err = rep.WriteJSON(c.Stdout)
	} else {
		opt := report.TextOptions{Verbose: o.verbose}
		if !o.Answers {
			opt.Exercise = o.Exercise
		}
		err = rep.WriteText(c.Stdout, opt)
	}
	if err != nil {
		return err
	}
	if err := o.WriteFiles(c, root, rep); err != nil {
		return err
	}
	code := rep.ExitCode()
	if o.minScore > 0 {
		code = rep.ExitCodeMinScore(o.minScore)
		score, side := rep.Summary().Score, "at least"
		if score < o.minScore {
			side = "below"
		}
		fmt.Fprintf(c.Stderr, "mutate: mutation score %.1f%%, %s the minimum %.1f%%\n", 100*score, side, 100*o.minScore)
	}
	if code != report.ExitKilled {
		return Answer(code)
	}
	return nil
}

// WriteFiles writes the report files of rep, the sources read from the
// module at root when a format needs them.
func (o *Outputs) WriteFiles(c *Call, root string, rep *report.Report) error {
	var src report.Sources
	read := false
	for _, f := range fileFormats {
		path := o.file(f.flag)
		if path == "" {
			continue
		}
		if f.sources && !read {
			var err error
			if src, err = report.ReadSources(root, rep); err != nil {
				return err
			}
			read = true
		}
		if err := c.WriteFile(path, f.what, func(w io.Writer) error { return f.write(w, rep, src) }); err != nil {
			return err
		}
	}
	return nil
}

// ExerciseIDs returns the ids (qualified in a run of a pattern) of the
// plan's mutants that the module's catalog holds: the exercise's, whose
// failing tests are the answers a learner predicts. Mutants of other
// files (a learner's own, experiments) and generated ones are not.
func ExerciseIDs(plan *exercise.Plan) map[string]bool {
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
