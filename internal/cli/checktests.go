package cli

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/modcopy"
	"github.com/fencelab/fencelab/internal/outfile"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/testgrade"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Wheats is the file of the wheats, beside the catalog: correct
// alternatives to the package, in the form of mutants.
const Wheats = "wheats.yaml"

// isTestFile reports whether every argument names a Go test file: check
// then grades learners' tests instead of predictions.
func isTestFile(args []string) bool {
	return len(args) > 0 && !slices.ContainsFunc(args, func(a string) bool { return !strings.HasSuffix(a, "_test.go") })
}

// checkTests grades each test file of files as one learner's suite for the
// catalog's package: the package's own tests are left out, the file added,
// and its tests run on the reference, under every wheat and under every
// chaff (the catalog's mutants), each kill confirmed (see testgrade).
func checkTests(ctx context.Context, c *call, f *checkFlags, files []string) error {
	if set := f.testFlagsSet(); len(set) > 0 {
		return fmt.Errorf("-%s does not apply to test files (check FILE_test.go takes -json, -html, -csv, -gradescope, -classroom, -visibility, -mutants, -j, -q, -timeout, -memory, -network, -no-sandbox)", set[0])
	}
	if err := f.checkTestOutputs(len(files)); err != nil {
		return err
	}
	plan, wheatIDs, err := testsPlan(ctx, c, f)
	if err != nil {
		return err
	}
	u := plan.Units[0]
	// A file that cannot be graded earns nothing, and does not stop the
	// class: its grade says why, and check exits 2.
	var grades []*testgrade.Grade
	var ungraded []error
	for _, file := range files {
		g, err := gradeTestFile(ctx, c, f, plan, u, file, wheatIDs)
		if fe := (*learnerFileError)(nil); errors.As(err, &fe) {
			g, err = testgrade.Ungraded(file, fe.Error(), plan.Pending(), wheatIDs), nil
			ungraded = append(ungraded, fe)
		}
		if err != nil {
			return err
		}
		grades = append(grades, g)
	}
	if err := writeTestGrades(c, &f.g, grades); err != nil {
		return err
	}
	if *f.json {
		err = testgrade.WriteJSON(c.stdout, grades)
	} else {
		err = testgrade.WriteText(c.stdout, grades)
	}
	if err != nil {
		return err
	}
	if len(ungraded) > 0 {
		return errors.Join(ungraded...)
	}
	for _, g := range grades {
		if !g.Exact() {
			return verdict(report.ExitSurvived)
		}
	}
	return nil
}

// writeTestGrades writes the grades to the files that g names: the class
// page, the CSV, and one learner's grade for Gradescope or GitHub
// Classroom.
func writeTestGrades(c *call, g *predict.Outputs, grades []*testgrade.Grade) error {
	for _, o := range []predict.OutputFile{
		{Path: g.HTML, What: "the class page of the tests", Write: func(w io.Writer) error { return testgrade.WriteHTML(w, grades) }},
		{Path: g.CSV, What: "a row per test file", Write: func(w io.Writer) error { return testgrade.WriteCSV(w, grades) }},
		{Path: g.Gradescope, What: "the grade as Gradescope's results.json", Write: func(w io.Writer) error { return grades[0].WriteGradescope(w, g.Visibility) }},
		{Path: g.Classroom, What: "the grade as a GitHub Classroom runner's result", Write: func(w io.Writer) error { return grades[0].WriteClassroom(w) }},
	} {
		if o.Path == "" {
			continue
		}
		if err := c.writeFile(o.Path, o.What, o.Write); err != nil {
			return err
		}
	}
	return nil
}

// checkTestOutputs checks the flags of the outputs for n test files, and
// that each file can be written.
func (f *checkFlags) checkTestOutputs(n int) error {
	if err := f.rf.check(); err != nil {
		return err
	}
	if f.g.Grading() {
		if n > 1 {
			return fmt.Errorf("-gradescope and -classroom grade one learner's file, and %d were given: grade each on its own", n)
		}
		if !slices.Contains(predict.Visibilities, f.g.Visibility) {
			return fmt.Errorf("-visibility %q: want one of %s", f.g.Visibility, strings.Join(predict.Visibilities, ", "))
		}
	}
	for _, path := range f.g.Paths() {
		if path != "" {
			if err := outfile.Check(path, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// testsPlan selects the catalog's mutants, the chaffs, with the wheats
// beside it (wheats.yaml), and returns the plan and the wheats' ids.
func testsPlan(ctx context.Context, c *call, f *checkFlags) (*exercise.Plan, map[string]bool, error) {
	root, err := exercise.FindRoot(".")
	if err != nil {
		return nil, nil, err
	}
	catalogs := f.sel.files
	if len(catalogs) == 0 {
		catalogs = []string{filepath.Join(root, filepath.FromSlash(exercise.Catalog))}
	}
	wheats := filepath.Join(filepath.Dir(catalogs[0]), Wheats)
	if _, err := os.Stat(wheats); err != nil {
		wheats = ""
	}
	pr := progress.New(c.stderr, f.rf.quiet)
	plan, err := c.selectPlan(ctx, &selection{files: files2(catalogs, wheats)}, pr)
	if err != nil {
		return nil, nil, err
	}
	if plan.Multi || len(plan.Units) != 1 {
		return nil, nil, errors.New("check FILE_test.go grades tests of one package: the catalog names a pattern")
	}
	wheatIDs := map[string]bool{}
	for _, sf := range plan.Units[0].Set.Files {
		if wheats != "" && sameFile(sf.Path, wheats) {
			for _, m := range sf.Mutants {
				wheatIDs[m.ID] = true
			}
		}
	}
	return plan, wheatIDs, nil
}

// testFlagsSet returns the flags set that check FILE_test.go does not
// take.
func (f *checkFlags) testFlagsSet() []string {
	var set []string
	for name, on := range map[string]bool{
		"results": *f.resultsFile != "", "partial": *f.partial, "markdown": *f.md, "answers": *f.answers,
		"generate": f.sel.generate, "pkg": f.sel.pkg != "", "only": f.sel.only != "", "diff": f.sel.diff != "", "shard": f.sel.shard != "",
		"stryker": len(f.out.paths()) > 0,
	} {
		if on {
			set = append(set, name)
		}
	}
	slices.Sort(set)
	return set
}

func files2(catalogs []string, wheats string) files {
	fs := files(slices.Clone(catalogs))
	if wheats != "" && !slices.ContainsFunc(catalogs, func(p string) bool { return sameFile(p, wheats) }) {
		fs = append(fs, wheats)
	}
	return fs
}

func sameFile(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// gradeTestFile grades one learner's file in a copy of the package of its
// own: the module's go.mod and go.sum, the package without its tests, the
// mutants files, and the learner's file. Tests that fail on the reference
// are invalid, and left out of the file for the run of the wheats and the
// chaffs.
func gradeTestFile(ctx context.Context, c *call, f *checkFlags, plan *exercise.Plan, u *exercise.Unit, file string, wheats map[string]bool) (*testgrade.Grade, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	ast0, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.AllErrors)
	if err != nil {
		return nil, &learnerFileError{syntaxErrors(err)}
	}
	want := u.Source.Name
	if name := ast0.Name.Name; name != want && name != want+"_test" {
		pos := fset.Position(ast0.Name.Pos())
		return nil, &learnerFileError{yamlfile.Errors{&yamlfile.Error{Pos: yamlfile.Pos{File: file, Line: pos.Line, Col: pos.Column},
			Msg: fmt.Sprintf("package %s: a test file of package %s declares package %s or %s_test", name, want, want, want)}}}
	}
	tests := topTests(ast0)
	if len(tests) == 0 {
		return nil, &learnerFileError{fmt.Errorf("%s: no test: a test is a func TestXxx(t *testing.T)", file)}
	}
	tmp, err := os.MkdirTemp("", "mutate-tests-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := copyForTests(plan.Root, tmp, u); err != nil {
		return nil, err
	}
	pkgDir := filepath.Join(tmp, filepath.FromSlash(strings.TrimPrefix(u.Target.Rel, "./")))
	dst := filepath.Join(pkgDir, filepath.Base(file))
	var onRef []testgrade.Invalid
	for {
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			return nil, err
		}
		rep, err := runCopy(ctx, c, f, tmp, plan.Root, u.Set.Files)
		var be *harness.BaselineError
		var ae *harness.ReferenceAfterError
		switch {
		case errors.As(err, &be) && be.BuildOutput != "":
			// The compiler names the file in the copy; the learner's is
			// file.
			rel, _ := filepath.Rel(tmp, dst)
			out := strings.NewReplacer(dst, file, "./"+filepath.ToSlash(rel), file, filepath.ToSlash(rel), file).Replace(be.BuildOutput)
			return nil, &learnerFileError{fmt.Errorf("%s does not compile:\n%s", file, strings.TrimRight(out, "\n"))}
		case errors.As(err, &be) && len(be.Failed) > 0 && !be.TimedOut && be.OverMemory == 0:
			// A test that failed on the reference, even once of two runs
			// (be.Flaky), is invalid: it is wrong, or depends on what
			// the contract leaves open (an order, the timing).
			onRef = invalidOnReference(onRef, be.Failed, be.Messages, be.Flaky)
		case errors.As(err, &ae) && len(ae.Failed) > 0:
			// So is one that passed twice on the reference and failed on
			// it after the chaffs and wheats: it depends on an order or a
			// timing.
			onRef = invalidOnReference(onRef, ae.Failed, ae.Messages, true)
		case err != nil:
			return nil, err
		default:
			return testgrade.New(file, tests, onRef, rep, wheats), nil
		}
		// Grade the file again without its invalid tests.
		var left bool
		if src, left = disable(fset, ast0, src, onRef); !left {
			// No test is left to run: every chaff is missed.
			return testgrade.New(file, tests, onRef, plan.Pending(), wheats), nil
		}
	}
}

// invalidOnReference adds to onRef each test of failed (by its top-level
// name) that it does not hold, with its message.
func invalidOnReference(onRef []testgrade.Invalid, failed []string, messages map[string]string, sometimes bool) []testgrade.Invalid {
	for _, name := range failed {
		top, _, _ := strings.Cut(name, "/")
		if !slices.ContainsFunc(onRef, func(i testgrade.Invalid) bool { return i.Test == top }) {
			onRef = append(onRef, testgrade.Invalid{Test: top, On: testgrade.Reference, Sometimes: sometimes, Message: strings.TrimSpace(messages[name])})
		}
	}
	return onRef
}

// learnerFileError is a learner's file that cannot be graded: it does not
// parse or compile, declares another package, or holds no test.
type learnerFileError struct{ err error }

func (e *learnerFileError) Error() string { return e.err.Error() }
func (e *learnerFileError) Unwrap() error { return e.err }

// runCopy runs the mutants files of the module at root, copied to tmp,
// there.
func runCopy(ctx context.Context, c *call, f *checkFlags, tmp, root string, sets []*exercise.File) (*report.Report, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if err := os.Chdir(tmp); err != nil {
		return nil, err
	}
	defer os.Chdir(wd)
	var sel selection
	for _, sf := range sets {
		rel, err := relTo(root, sf.Path)
		if err != nil {
			return nil, err
		}
		sel.files = append(sel.files, rel)
	}
	pr := progress.New(c.stderr, f.rf.quiet)
	plan, err := c.selectPlan(ctx, &sel, pr)
	if err != nil {
		return nil, err
	}
	opt := f.rf.options(c, pr)
	opt.NoCache = true // a copy's results are no tree's
	return c.eng.run(ctx, plan, opt)
}

// copyForTests copies to dst what a run of a learner's tests needs from
// the module at root: go.mod, go.sum, the package's files but its tests,
// and the mutants files.
func copyForTests(root, dst string, u *exercise.Unit) error {
	for _, name := range []string{"go.mod", "go.sum"} {
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			if err := modcopy.File(filepath.Join(root, name), filepath.Join(dst, name)); err != nil {
				return err
			}
		}
	}
	rel := strings.TrimPrefix(u.Target.Rel, "./")
	entries, err := os.ReadDir(u.Target.Dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dst, rel), 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		if err := modcopy.File(filepath.Join(u.Target.Dir, e.Name()), filepath.Join(dst, rel, e.Name())); err != nil {
			return err
		}
	}
	for _, sf := range u.Set.Files {
		rel, err := relTo(root, sf.Path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := modcopy.File(sf.Path, to); err != nil {
			return err
		}
	}
	return nil
}

// relTo returns path (as given, from the current directory) relative to
// the module root; a mutants file must be inside the module.
func relTo(root, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: a mutants file of check FILE_test.go must be inside the module", path)
	}
	return rel, nil
}

// topTests returns the names of the file's top-level tests.
func topTests(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && isTestName(fd.Name.Name) {
			names = append(names, fd.Name.Name)
		}
	}
	return names
}

func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	return ok && (rest == "" || !('a' <= rest[0] && rest[0] <= 'z'))
}

// disable returns src, the source of f, with the tests of invalid made
// functions that go test does not run (TestX becomes _estX: the same
// length, so that every message keeps its line and column), and reports
// whether any test is left.
func disable(fset *token.FileSet, f *ast.File, src []byte, invalid []testgrade.Invalid) ([]byte, bool) {
	out := slices.Clone(src)
	left := false
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !isTestName(fd.Name.Name) {
			continue
		}
		if slices.ContainsFunc(invalid, func(i testgrade.Invalid) bool { return i.Test == fd.Name.Name }) {
			out[fset.Position(fd.Name.Pos()).Offset] = '_'
		} else {
			left = true
		}
	}
	return out, left
}

// syntaxErrors returns the parser's errors as problems at file:line:col.
func syntaxErrors(err error) error {
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	var errs yamlfile.Errors
	for _, e := range list {
		errs = append(errs, &yamlfile.Error{Pos: yamlfile.Pos{File: e.Pos.Filename, Line: e.Pos.Line, Col: e.Pos.Column}, Msg: e.Msg})
	}
	return errs
}
