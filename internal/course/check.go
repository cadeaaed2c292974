// Package course implements the commands of a course: check, which
// grades learners' prediction files (package predict) or their test files
// (package testgrade) against a run of the mutants, and handout, which
// writes the repository learners get, or Gradescope's autograder zip.
// Both run through package command's call, flags and exit codes.
package course

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/submission"
	"github.com/fencelab/fencelab/internal/text"
)

var checkSummary = `Validate the prediction FILEs (every problem with its file:line:col), run the
mutants (or read a run's -results), and show per mutant what was predicted,
failed, missed and wrong, with a score per file and a class summary. An
invalid file does not stop a class: it earns nothing, and its problems go to
stderr and to every output, beside the valid files' grades; check exits 2.
Nothing runs when no file is valid. A mutant a file leaves blank is not
answered: counted apart, and what failed under it is not shown (-answers shows
it). The model answer (the catalog's report.predictions) is graded apart, in
no class figure; -answers shows its predictions. The answers to the
worksheet's questions are shown, and carried by every output, never graded. A
mutant is worth its points: (catalog, 1 by default), earned by an exact
prediction, or with -credit partial in proportion to its F1 = 2·right /
(2·right + wrong + missed).

-html writes the class page (learners × mutants), -csv a row per file (no cell
a formula). -gradescope and -classroom grade one learner's file as
Gradescope's results.json or a GitHub Classroom runner's result; with none or
several, or where the mutants cannot run (no sandbox, nothing cached), they
write a grade of 0 that says why. It takes run's flags that choose the
mutants; generated mutants run to the end, as with -full.

-submission DIR grades what one learner handed in, as learners hand it in:
the one prediction file (NAME.yaml or NAME.yml) at its top, under a folder,
or in a repository's predictions/; with -tests, the one test file
(NAME_test.go) anywhere in it. With none or several, the grade is 0 and
names each file found. -metadata FILE (Gradescope's
submission_metadata.json) says who handed it in: its users replace the
file's own learner in every output. A grade's problems (none, several, an
invalid file) are visible to the learner at once; what gives answers away
(each mutant's or chaff's test, and so the score) follows -visibility.

Given Go test files (FILE_test.go) instead, check grades each as one
learner's test suite for the catalog's package, as Examplar does (Wrenn and
Krishnamurthi, ICER 2019): the file is checked first (the package's _test
package, imports from the standard packages a contract test needs, no
TestMain, no directive; the catalog's tests: widens them), then the
package's own tests are left out and the file added, in a copy of the
module; each test must pass on the reference and on every wheat (the
correct alternatives of wheats.yaml beside the catalog), else it is invalid
and earns nothing; each catalog mutant (a chaff) is caught when a valid
test fails under it, the kill confirmed. No run names its mutant (the
chaffs and wheats share one build that knows each by a random name of the
grading, or, where the catalog widens the imports, each is a build of its
own; the environment is the run's own).
It takes -json, -html (the class page: files × chaffs, and the wheats each
file's tests failed under), -csv, -gradescope, -classroom, -visibility and
run's flags that bound the runs. Exit 0: every test valid and every chaff
caught; 1: otherwise; 2: a file cannot be graded (against the rules, not
compiling, no test, its binary ends before any test: it earns nothing; the
others are graded). In a tests hand-out, whose catalog withholds the
chaffs, check runs the file on the package alone.

` + text.Wrap("Exit codes: "+report.ExitHelp("check"), 78, "")

func Check(ctx context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "[flags] FILE... | -submission DIR [-tests]", checkSummary)
	var f checkFlags
	f.register(fs)
	if err := command.Parse(fs, args); err != nil {
		return err
	}
	files, problem, err := f.submitted(c, fs)
	if err != nil {
		return err
	}
	if *f.tests || f.submission == "" && isTestFile(files) {
		return checkTests(ctx, c, fs, &f, files, problem)
	}
	return checkPredictions(ctx, c, fs, &f, files, problem)
}

// checkPredictions grades prediction files (see check): each against a
// run of the mutants, or the results of one.
func checkPredictions(ctx context.Context, c *command.Call, fs *flag.FlagSet, f *checkFlags, files []string, problem string) error {
	credit, err := f.validate(fs, files, problem)
	if err != nil {
		return err
	}
	maxPoints := 0
	if !f.sel.Generate {
		// The exercise's model answer and worksheet; a catalog that cannot
		// be read has none, and the run says why.
		if set, err := exercise.Find(".", f.sel.Files); err == nil {
			f.g.Model, f.g.Questions = set.ModelAnswer(), set.Worksheet
			maxPoints = set.MaxPoints(nil)
		}
	}
	notGraded := func(why, detail string, err error) error {
		ng := predict.NotGraded{File: strings.Join(files, " "), MaxPoints: maxPoints, Why: why, Detail: detail}
		if werr := f.g.WriteNotGraded(ng, c.WriteFile); werr != nil {
			return werr
		}
		return err
	}
	if problem != "" {
		return notGraded(problem, "", errors.New(strings.TrimPrefix(problem, "Not graded: ")))
	}
	if pattern := unmatched(files); pattern != "" {
		err := fmt.Errorf("no file matches %s: write the predictions in one file there (go tool mutate template prints one to fill in)", text.Name(pattern))
		return notGraded("Not graded: no prediction file was handed in, as no file matches "+text.Name(pattern)+
			". Write your predictions in one file there: go tool mutate template prints one to fill in.", "", err)
	}
	if err := f.g.OneSubmission(files); err != nil {
		return notGraded(fmt.Sprintf("Not graded: %d prediction files were handed in, and a grade is for one: keep your predictions in one file (predictions/NAME.yaml) and remove the others.", len(files)), "", err)
	}
	lp := &predict.Loader{Files: files, Partial: *f.partial}
	rep, pfs, err := f.results(ctx, c, fs, lp)
	switch {
	case err == nil:
	case rep != nil && lp.NoneValid():
		// Every file is invalid: each earns nothing, and every output
		// says why.
		class := f.g.Class(nil, lp.Invalid, rep, credit)
		class.Identify(f.learner)
		return f.invalidClass(c, class, rep, err)
	case errors.Is(err, harness.ErrNoSandbox):
		return notGraded("Not graded: the grader could not run the mutants, and has no results of them to grade with. "+
			"Your file is not at fault: your instructor will grade it again.",
			err.Error()+". Run the mutants once when the autograder is set up (go tool mutate run -json > results.json) "+
				"and grade with them: go tool mutate check -results results.json (docs/course.md, Gradescope).", err)
	default:
		return err
	}
	if err := predict.Comparable(rep); err != nil {
		return err
	}
	class := f.g.Class(pfs, lp.Invalid, rep, credit)
	class.Identify(f.learner)
	if *f.answers {
		class.ShowAnswers()
	}
	if err := writeGrades(c, &f.g, class, rep); err != nil {
		return err
	}
	if err := f.print(c, class); err != nil {
		return err
	}
	if len(lp.Problems) > 0 {
		// The class was compared without the invalid files; they are
		// still an error.
		return lp.Problems
	}
	if !class.AllExact() || !*f.partial && !class.AllAnswered() {
		return command.Answer(1)
	}
	return nil
}

// checkFlags are the flags of check.
type checkFlags struct {
	// submission is the folder of what a learner handed in (-submission),
	// where check finds the file; tests says it is a test file (-tests).
	submission, metadata string
	tests                *bool
	// learner is who handed it in, as -metadata says; "" when it does not.
	learner                    string
	sel                        command.Selection
	rf                         command.RunFlags
	resultsFile, credit        *string
	partial, json, md, answers *bool
	g                          predict.Outputs
	out                        command.Outputs
}

func (f *checkFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.submission, "submission", "", "grade the one file that the learner's submission in `dir` holds (a prediction file, NAME.yaml or NAME.yml: at its top, in a folder, or a repository's predictions/), instead of FILEs; with none or several, the grade is 0 and says what to hand in")
	f.tests = fs.Bool("tests", false, "with -submission: the submission's file is a test file (NAME_test.go, anywhere in it): the tests assignment")
	fs.StringVar(&f.metadata, "metadata", "", "who handed the one file in: Gradescope's submission metadata `file` (submission_metadata.json), whose users replace the file's learner")
	f.sel.Register(fs, true)
	f.rf.Register(fs)
	f.resultsFile = fs.String("results", "", "compare with this `file` of mutate run -json instead of running the mutants")
	f.partial = fs.Bool("partial", false, "allow files that predict only some of the mutants")
	f.json = fs.Bool("json", false, "print the comparison as JSON")
	f.md = fs.Bool("markdown", false, "print the comparison as Markdown tables")
	f.credit = fs.String("credit", "exact", "`how` a prediction earns its mutant's points: exact (all or nothing) or partial (in proportion to its F1)")
	f.answers = fs.Bool("answers", false, "show the answers: what failed under the mutants a file does not answer, and the model answer's predictions")
	fs.StringVar(&f.g.HTML, "html", "", "also write the class page to `file`: learners × mutants (or, of test files, × chaffs), as HTML")
	fs.StringVar(&f.g.CSV, "csv", "", "also write a row per prediction or test file to `file`, as CSV")
	fs.StringVar(&f.g.Gradescope, "gradescope", "", "also write the one learner's grade to `file` as Gradescope's results.json")
	fs.StringVar(&f.g.Visibility, "visibility", "visible", "`when` Gradescope shows what gives answers away, each mutant's or chaff's test and so the score (a problem with the submission shows at once): "+strings.Join(predict.Visibilities, ", "))
	fs.StringVar(&f.g.Classroom, "classroom", "", "also write the one learner's grade to `file` as a GitHub Classroom runner's result (JSON)")
	f.out.RegisterFiles(fs, "stryker")
}

// validate checks the flags and the files to grade (with a problem of the
// submission, none may be), and the files to write, and returns the
// credit rule.
func (f *checkFlags) validate(fs *flag.FlagSet, files []string, problem string) (predict.Credit, error) {
	if len(files) == 0 && problem == "" {
		return "", command.Usagef(fs, "no prediction file given (go tool mutate template writes one)")
	}
	if *f.json && *f.md {
		return "", errors.New("-json and -markdown exclude each other")
	}
	credit, err := predict.ParseCredit(*f.credit)
	if err != nil {
		return "", err
	}
	if !slices.Contains(predict.Visibilities, f.g.Visibility) {
		return "", fmt.Errorf("-visibility %q: want one of %s", f.g.Visibility, strings.Join(predict.Visibilities, ", "))
	}
	for _, file := range append(f.g.Paths(), f.out.Paths()...) {
		if file != "" {
			if err := command.CheckOut(file, true); err != nil {
				return "", err
			}
		}
	}
	return credit, nil
}

// results returns the run to compare with (-results', or a run of the
// mutants) and the prediction files, loaded against it.
func (f *checkFlags) results(ctx context.Context, c *command.Call, fs *flag.FlagSet, lp *predict.Loader) (*report.Report, []*predict.File, error) {
	if *f.resultsFile == "" {
		return runChecked(ctx, c, &f.sel, &f.rf, lp, &f.out, questionIDs(f.g.Questions), *f.answers)
	}
	if set := setFlags(fs, "pkg", "mutants", "only", "generate", "diff", "shard", "j", "timeout", "mode", "no-cache", "full", "no-tce", "memory", "network", "bind", "sandbox", "no-sandbox", "stryker"); len(set) > 0 {
		return nil, nil, fmt.Errorf("-results replaces the run: -%s does not apply", set[0])
	}
	rep, err := report.ReadFile(*f.resultsFile)
	if err != nil {
		return nil, nil, err
	}
	known := predict.KnownOf(rep)
	known.Questions = questionIDs(f.g.Questions)
	pfs, err := lp.Load(known)
	return rep, pfs, err
}

// submitted returns the files to grade: the arguments, or the one file
// that -submission's folder holds; with none or several there, what the
// learner's grade of 0 says. It reads -metadata, when given, into
// f.learner: a file that names no one is said on stderr, and the file's
// own learner: stands.
func (f *checkFlags) submitted(c *command.Call, fs *flag.FlagSet) (files []string, problem string, err error) {
	files = fs.Args()
	switch {
	case f.submission == "" && *f.tests:
		return nil, "", command.Usagef(fs, "-tests says what -submission looks for: give -submission DIR")
	case f.submission != "" && fs.NArg() > 0:
		return nil, "", command.Usagef(fs, "-submission DIR finds the file to grade: give no FILE beside it (%s)", fs.Arg(0))
	case f.submission != "":
		kind := submission.Predictions
		if *f.tests {
			kind = submission.Tests
		}
		found, err := submission.Find(f.submission, kind)
		switch {
		case errors.Is(err, submission.ErrTooLarge):
			return nil, "Not graded: " + err.Error() + ".", nil
		case err != nil:
			return nil, "", err
		}
		if problem := found.Describe(kind); problem != "" {
			return nil, problem, nil
		}
		files = []string{filepath.Join(f.submission, found.Files[0])}
	}
	if f.metadata != "" {
		if len(files) > 1 {
			return nil, "", command.Usagef(fs, "-metadata says who handed in one submission, and %d files were given", len(files))
		}
		users, err := submission.ReadMetadata(f.metadata)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, "", err
			}
			fmt.Fprintf(c.Stderr, "mutate check: -metadata: %v; the learner is who the file says\n", err)
		}
		f.learner = users.String()
	}
	return files, "", nil
}

// unmatched returns the first of args that does not exist and holds a
// pattern's characters: a shell's glob that matched nothing, which the
// shell passes as it is; "" if there is none.
func unmatched(args []string) string {
	for _, a := range args {
		if _, err := os.Lstat(a); err != nil && strings.ContainsAny(a, "*?[") {
			return a
		}
	}
	return ""
}

// invalidClass writes the outputs of a class whose files are all
// invalid, and returns err, their problems: a class's comparison (of
// several files, or as JSON or Markdown) has a row per file, and the
// course's files its grade of 0 with why. One file's text is its
// problems alone, which the error prints.
func (f *checkFlags) invalidClass(c *command.Call, class *predict.Class, rep *report.Report, err error) error {
	if gerr := writeGrades(c, &f.g, class, rep); gerr != nil {
		return gerr
	}
	if class.Learners() > 1 || *f.json || *f.md {
		if perr := f.print(c, class); perr != nil {
			return perr
		}
	}
	return err
}

// print prints the comparison of class: as JSON, Markdown or text.
func (f *checkFlags) print(c *command.Call, class *predict.Class) error {
	switch {
	case *f.json:
		return class.WriteJSON(c.Stdout)
	case *f.md:
		return class.WriteMarkdown(c.Stdout)
	}
	return class.WriteText(c.Stdout, predict.Style{Color: isTerminal(c)})
}

// writeGrades writes the course's files of class, graded against rep.
func writeGrades(c *command.Call, g *predict.Outputs, class *predict.Class, rep *report.Report) error {
	return g.Write(class, rep, c.WriteFile, func(note string) { fmt.Fprintf(c.Stderr, "mutate check: %s\n", note) })
}

// runChecked validates the prediction files, runs the mutants (or takes
// their results from the cache), writes the run to out's files, and
// returns the report and the valid files (with an invalid one, the
// mutants to run, for a grade of nothing). Everything in the files but
// subtest names is checked before anything runs; subtest names, known
// only from a run of the suite, after the baseline and before any mutant
// (in a run of a pattern, after the run). Unless answers (-answers), the
// progress does not count the tests that failed under the exercise's
// mutants.
func runChecked(ctx context.Context, c *command.Call, sel *command.Selection, rf *command.RunFlags, lp *predict.Loader, out *command.Outputs, questions []string, answers bool) (*report.Report, []*predict.File, error) {
	if err := rf.Check(); err != nil {
		return nil, nil, err
	}
	// Predictions are compared with every test that fails: generated
	// mutants run to the end too, as with -full. (Catalog mutants always
	// do, and their results in the cache are run's.)
	if sel.Generate {
		rf.Full = true
	}
	pr := progress.New(c.Stderr, rf.Quiet)
	plan, err := c.SelectPlan(ctx, sel, pr)
	if err != nil {
		return nil, nil, err
	}
	// A file may predict any mutant of the files; it must predict those
	// that run (unless -partial).
	ids, run, top, err := plan.Names()
	if err != nil {
		return nil, nil, err
	}
	pfs, err := lp.Load(predict.Known{Mutants: ids, Required: run, Tests: top, TopLevelOnly: true, Questions: questions})
	if err != nil {
		return plan.Pending(), nil, err
	}
	opt := rf.Options(c, pr)
	if !answers {
		// What failed under the exercise's mutants is an answer: a file
		// that leaves one blank sees it with -answers only.
		opt.Answers = command.ExerciseIDs(plan)
	}
	recheck := func(tests []string) error {
		pfs, err = lp.Recheck(pfs, predict.Known{Mutants: ids, Required: run, Tests: tests, Questions: questions})
		return err
	}
	if !plan.Multi {
		opt.AfterBaseline = recheck
	}
	rep, err := c.Eng.Run(ctx, plan, opt)
	if err != nil {
		return plan.Pending(), nil, err
	}
	if plan.Multi {
		if err := recheck(rep.Baseline.TestNames); err != nil {
			return plan.Pending(), nil, err
		}
	}
	if err := out.WriteFiles(c, plan.Root, rep); err != nil {
		return nil, nil, err
	}
	return rep, pfs, nil
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
func isTerminal(c *command.Call) bool {
	return progress.IsTerminal(c.Stdout) && os.Getenv("NO_COLOR") == ""
}

// questionIDs returns the ids of questions.
func questionIDs(questions []exercise.Question) []string {
	var ids []string
	for _, q := range questions {
		ids = append(ids, q.ID)
	}
	return ids
}
