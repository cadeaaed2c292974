package course

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	"github.com/fencelab/fencelab/internal/testgrade"
	"github.com/fencelab/fencelab/internal/text"
)

// isTestFile reports whether every argument names a Go test file: check
// then grades learners' tests instead of predictions.
func isTestFile(args []string) bool {
	return len(args) > 0 && !slices.ContainsFunc(args, func(a string) bool { return !strings.HasSuffix(a, "_test.go") })
}

// checkTests grades each test file of files as one learner's suite for the
// catalog's package (see testgrade.GradeFiles), writes every output, and
// returns the problems of the files that could not be graded (exit 2),
// or the answer: 1 unless every file is exact.
func checkTests(ctx context.Context, c *command.Call, fs *flag.FlagSet, f *checkFlags, files []string, problem string) error {
	if set := setFlags(fs, notForTests...); len(set) > 0 {
		return fmt.Errorf("-%s does not apply to test files (check FILE_test.go takes -json, -html, -csv, -gradescope, -classroom, -visibility, -mutants, -j, -q, -timeout, -memory, -network, -sandbox)", set[0])
	}
	if f.rf.Choice() == harness.SandboxNone {
		return errors.New("-sandbox=none would run learners' tests as you, with what you can reach (your files, the chaffs, your network): check FILE_test.go runs them in sandboxes only")
	}
	if err := f.checkTestOutputs(len(files)); err != nil {
		return err
	}
	set, wheats, err := testsSet(f.sel.Files)
	if err != nil {
		return err
	}
	notGraded := func(why, detail string, err error) error {
		ng := predict.NotGraded{File: strings.Join(files, " "), MaxPoints: set.MaxPoints(wheats), Why: why, Detail: detail}
		if werr := f.g.WriteNotGraded(ng, c.WriteFile); werr != nil {
			return werr
		}
		return err
	}
	if problem != "" {
		return notGraded(problem, "", errors.New(strings.TrimPrefix(problem, "Not graded: ")))
	}
	if pattern := unmatched(files); pattern != "" {
		return notGraded("Not graded: no test file was handed in, as no file matches "+text.Name(pattern)+".", "",
			fmt.Errorf("no file matches %s", text.Name(pattern)))
	}
	if f.g.Grading() && len(files) > 1 {
		return notGraded(fmt.Sprintf("Not graded: %d test files were handed in, and a grade is for one: keep your tests in one file and remove the others.", len(files)), "",
			fmt.Errorf("-gradescope and -classroom grade one learner's file, and %d were given: grade each on its own", len(files)))
	}
	pr := progress.New(c.Stderr, f.rf.Quiet)
	cfg := testgrade.Config{Set: set, Wheats: wheats, Options: f.rf.Options(c, pr), Engine: c.Eng}
	grades, err := testgrade.GradeFiles(ctx, cfg, files)
	if errors.Is(err, harness.ErrNoSandbox) {
		return notGraded("Not graded: the grader could not run your tests. Your file is not at fault: your instructor will grade it again.",
			err.Error()+". Learners' tests run only in sandboxes: grade where there are user namespaces or Landlock (docs/course.md, Tests as the assignment).", err)
	}
	if err != nil {
		return err
	}
	if f.learner != "" {
		for _, g := range grades {
			g.Learner = f.learner
		}
	}
	if err := writeTestGrades(c, &f.g, grades); err != nil {
		return err
	}
	if *f.json {
		err = testgrade.WriteJSON(c.Stdout, grades)
	} else {
		err = testgrade.WriteText(c.Stdout, grades)
	}
	if err != nil {
		return err
	}
	// A file that cannot be graded earns nothing, and does not stop the
	// class: its problems go to stderr, and check exits 2.
	var ungraded []error
	for _, g := range grades {
		if g.Err != nil {
			ungraded = append(ungraded, g.Err)
		}
	}
	if len(ungraded) > 0 {
		return errors.Join(ungraded...)
	}
	for _, g := range grades {
		if !g.Exact() {
			return command.Answer(report.ExitSurvived)
		}
	}
	return nil
}

// writeTestGrades writes the grades to the files that g names: the class
// page, the CSV, and one learner's grade for Gradescope or GitHub
// Classroom.
func writeTestGrades(c *command.Call, g *predict.Outputs, grades []*testgrade.Grade) error {
	for _, o := range []predict.OutputFile{
		{Path: g.HTML, What: "the class page of the tests", Write: func(w io.Writer) error { return testgrade.WriteHTML(w, grades) }},
		{Path: g.CSV, What: "a row per test file", Write: func(w io.Writer) error { return testgrade.WriteCSV(w, grades) }},
		{Path: g.Gradescope, What: "the grade as Gradescope's results.json", Write: func(w io.Writer) error { return grades[0].WriteGradescope(w, g.Visibility) }},
		{Path: g.Classroom, What: "the grade as a GitHub Classroom runner's result", Write: func(w io.Writer) error { return grades[0].WriteClassroom(w) }},
	} {
		if o.Path == "" {
			continue
		}
		if err := c.WriteFile(o.Path, o.What, o.Write); err != nil {
			return err
		}
	}
	return nil
}

// checkTestOutputs checks the flags of the outputs for n test files, and
// that each file can be written.
func (f *checkFlags) checkTestOutputs(n int) error {
	if err := f.rf.Check(); err != nil {
		return err
	}
	if f.g.Grading() {
		if !slices.Contains(predict.Visibilities, f.g.Visibility) {
			return fmt.Errorf("-visibility %q: want one of %s", f.g.Visibility, strings.Join(predict.Visibilities, ", "))
		}
	}
	for _, path := range f.g.Paths() {
		if path != "" {
			if err := command.CheckOut(path, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// testsSet reads the chaffs, with the wheats beside them (wheats.yaml),
// and returns them and the wheats' ids: the mutants of the catalog (or of
// catalogs), or, when the catalog names chaffs of the tests assignment's
// own (tests: chaffs:) and no -mutants is given, those, under the
// catalog's rules of learners' files. A withheld catalog (a hand-out's)
// has neither.
func testsSet(catalogs []string) (*exercise.Set, map[string]bool, error) {
	root, err := exercise.FindRoot(".")
	if err != nil {
		return nil, nil, err
	}
	var rules *exercise.Tests
	if len(catalogs) == 0 {
		catalog := filepath.Join(root, filepath.FromSlash(exercise.Catalog))
		catalogs = []string{catalog}
		if cat, err := exercise.Load(root, catalogs); err == nil && cat.Tests.Chaffs != "" {
			rules = &cat.Tests
			catalogs = []string{filepath.Join(root, filepath.FromSlash(cat.Tests.Chaffs))}
		}
	}
	wheats := filepath.Join(filepath.Dir(catalogs[0]), exercise.WheatsFile)
	if _, err := os.Stat(wheats); err != nil || slices.ContainsFunc(catalogs, func(p string) bool { return sameFile(p, wheats) }) {
		wheats = ""
	}
	paths := slices.Clone(catalogs)
	if wheats != "" {
		paths = append(paths, wheats)
	}
	set, err := exercise.Load(root, paths)
	if err != nil {
		return nil, nil, err
	}
	if rules != nil {
		set.Tests = *rules
	}
	ids := map[string]bool{}
	for _, sf := range set.Files {
		if wheats != "" && sameFile(sf.Path, wheats) {
			for _, m := range sf.Mutants {
				ids[m.ID] = true
			}
		}
	}
	return set, ids, nil
}

// notForTests are the flags of check that check FILE_test.go does not
// take: those of predictions, of generated mutants, of the report files,
// and those that choose how mutants are built and cached (a learner's
// file is always run blind and afresh).
var notForTests = []string{"results", "partial", "markdown", "answers", "credit", "generate", "pkg", "only", "diff", "shard",
	"stryker", "mode", "no-cache", "full", "no-tce"}

func sameFile(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}
