package testgrade

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/infile"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Config is what grading learners' test files needs.
type Config struct {
	// Set are the chaffs (the catalog's mutants) and the wheats of the
	// exercise, read from the grader's checkout; a withheld set (a
	// hand-out's) has neither, and its files are run on the package alone.
	Set *exercise.Set
	// Wheats are the ids of the set's wheats.
	Wheats map[string]bool
	// Options say how the runs go. GradeFiles makes them blind (see
	// harness.Options.Blind, which also bounds the runs of a file on the
	// package), hides the grader's checkout, and leaves the cache out.
	Options harness.Options
	Engine  Engine
}

// Engine selects and runs: exercise.Select, harness.Run and
// harness.TestNames; it finds the export data of the packages a learner's
// file imports, and type-checks the file; or a test's fakes.
type Engine struct {
	Select   func(context.Context, exercise.Selection) (*exercise.Plan, error)
	Run      func(context.Context, *exercise.Plan, harness.Options) (*report.Report, error)
	Baseline func(context.Context, *exercise.Plan, harness.Options) ([]string, error)
	// Exports returns the files of export data of the packages at paths
	// (and of what they import), as go builds them in the module at dir
	// (gotest.ExportFiles).
	Exports func(ctx context.Context, dir string, paths []string) (map[string]string, error)
	// Check type-checks a learner's file: CheckBounded, or nil for
	// checkHere.
	Check func(context.Context, CheckRequest) (yamlfile.Errors, error)
}

// maxFileSize bounds a learner's test file.
const maxFileSize = 1 << 20

// maxTests bounds the tests of a learner's file: its test functions,
// fuzz tests and examples.
const maxTests = 1000

// maxRounds bounds the runs of one file on the package: each run after
// the first leaves out the tests that failed in the one before. A file
// whose tests still fail then (each crashes or hangs the binary, one
// after another) is graded as a whole.
const maxRounds = 5

// learnerName is the name of a learner's file in the copy of the module:
// always the same, whatever the file's own name says (a _windows suffix,
// a leading dot) about when go builds it.
const learnerName = "learner_test.go"

// GradeFiles grades each learner's test file of files on its own, one
// after the other, in a copy of the module that holds the package and
// what it imports of its module, nothing else of the grader's. A file is
// checked first (see Rules), then run on the package: a test that fails
// there, however it fails (it panics, hangs, ends the binary), is
// invalid, and the file runs again without it; then against every
// wheat, and every chaff unless no test is left valid (see run). A file
// that cannot be graded (unreadable, not Go, against the rules, not
// compiling, with no test, or whose binary ends before any test) earns
// nothing: its grade says why (Problem), and holds the error (Err).
// GradeFiles's own error is the grader's: a catalog that does not apply,
// an interrupt, a harness that cannot run; no grade is given then.
func GradeFiles(ctx context.Context, cfg Config, files []string) ([]*Grade, error) {
	g, err := newGrader(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(g.tmp)
	var grades []*Grade
	for _, file := range files {
		gr, err := g.grade(ctx, file)
		if err != nil {
			return nil, err
		}
		grades = append(grades, gr)
	}
	return grades, nil
}

// grader grades the files of a class: one copy of the module, one plan.
type grader struct {
	cfg     Config
	opt     harness.Options
	tmp     string // the copy of the module
	plan    *exercise.Plan
	unit    *exercise.Unit
	rules   Rules
	exports map[string]string // of the paths imported so far; nil before the first
	paths   []string
}

func newGrader(ctx context.Context, cfg Config) (*grader, error) {
	if len(cfg.Set.Files) == 0 {
		return nil, errors.New("no mutants file: the chaffs and wheats come from the catalog")
	}
	pr := cfg.Options.Progress
	var paths []string
	for _, f := range cfg.Set.Files {
		abs, err := filepath.Abs(f.Path)
		if err != nil {
			return nil, err
		}
		paths = append(paths, abs)
	}
	// The package, as go names it in the grader's checkout (the copy's
	// selection says what it loads).
	first, err := cfg.Engine.Select(ctx, exercise.Selection{Dir: cfg.Set.Root, Files: paths, Withheld: cfg.Set.Withheld})
	if err != nil {
		return nil, err
	}
	if first.Multi || len(first.Units) != 1 {
		return nil, errors.New("check FILE_test.go grades tests of one package: the catalog names a pattern")
	}
	tmp, err := os.MkdirTemp("", "mutate-tests-")
	if err != nil {
		return nil, err
	}
	g := &grader{cfg: cfg, tmp: tmp}
	if err := copyModule(first.Units[0].Target, tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	// The same mutants, applied in the copy.
	g.plan, err = cfg.Engine.Select(ctx, exercise.Selection{Dir: tmp, Files: paths, Withheld: cfg.Set.Withheld, Progress: pr})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	g.unit = g.plan.Units[0]
	t := g.unit.Target
	g.rules = Rules{Package: g.unit.Source.Name, ImportPath: t.ImportPath, Clause: cfg.Set.Tests.Package, Imports: cfg.Set.Tests.Imports}
	g.opt = cfg.Options
	g.opt.Blind, g.opt.NoCache = true, true // a copy's results are no tree's
	// A file held to the standard imports alone reads no environment,
	// file or memory it was not handed (see exercise.StandardImports): the chaffs and
	// wheats can share one build, which names them by random names of
	// the run. A catalog that widens the imports gets a build for each.
	g.opt.Sealed = len(cfg.Set.Tests.Imports) == 0
	g.opt.Hide = append(g.opt.Hide, cfg.Set.Root)
	return g, nil
}

// pkgDir is the package's directory in the copy.
func (g *grader) pkgDir() string { return g.unit.Target.Dir }

// grade grades one learner's file.
func (g *grader) grade(ctx context.Context, file string) (gr *Grade, err error) {
	g.opt.Progress.Phase("grading %s", text.Name(file))
	src, err := infile.ReadConfined(file, maxFileSize)
	if err != nil {
		return g.ungraded(file, err), nil
	}
	defer func() {
		if gr != nil {
			gr.Learner = learnerOf(src)
		}
	}()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.AllErrors|parser.SkipObjectResolution)
	if err != nil {
		return g.ungraded(file, g.rules.parseErrors(file, src, err)), nil
	}
	var checkErr error
	problems := g.rules.Check(fset, f, func(f *ast.File) yamlfile.Errors {
		var errs yamlfile.Errors
		errs, checkErr = g.typeCheck(ctx, fset, f, src)
		return errs
	})
	if ctx.Err() != nil {
		return nil, harness.ErrInterrupted
	}
	if checkErr != nil {
		return nil, checkErr
	}
	if len(problems) > 0 {
		return g.ungraded(file, problems), nil
	}
	var tests []string
	for _, t := range mutation.TestFuncsOf(fset, f) {
		tests = append(tests, t.Name)
	}
	if len(tests) == 0 {
		return g.ungraded(file, fmt.Errorf("%s: no test: a test is a func TestXxx(t *testing.T), a fuzz test a func FuzzXxx(f *testing.F), an example a func ExampleXxx() with an // Output: comment", file)), nil
	}
	if len(tests) > maxTests {
		return g.ungraded(file, fmt.Errorf("%s: %d tests: a file holds at most %d (each runs under every chaff and wheat)", file, len(tests), maxTests)), nil
	}
	dst := filepath.Join(g.pkgDir(), learnerName)
	defer os.Remove(dst)
	var onRef []Invalid
	for round := 1; ; round++ {
		if err := os.WriteFile(dst, src, 0o644); err != nil {
			return nil, err
		}
		rep, err := g.run(ctx, file, tests, onRef)
		if err == nil {
			g.rename(rep, file)
			gr := New(file, tests, onRef, rep, g.cfg.Wheats)
			gr.Withheld = g.cfg.Set.Withheld
			return gr, nil
		}
		found, whole, err := g.blame(err, file, tests, onRef)
		switch {
		case err != nil:
			return nil, err
		case whole != nil:
			return g.ungraded(file, whole), nil
		case round == maxRounds:
			return g.ungraded(file, fmt.Errorf("%s: its tests failed on the package in %d runs, one after another (%s): a file whose tests crash or hang the test binary one by one is graded as a whole",
				file, round, strings.Join(names(append(onRef, found...)), ", "))), nil
		}
		onRef = append(onRef, found...)
		var left bool
		if src, left = disable(fset, f, src, onRef); !left {
			// No test is left to run: every chaff is missed.
			gr := New(file, tests, onRef, g.plan.Pending(), g.cfg.Wheats)
			gr.Withheld = g.cfg.Set.Withheld
			return gr, nil
		}
	}
}

// run runs the plan with the learner's file in the copy, or the package
// alone when the chaffs and wheats are withheld: one baseline, then the
// wheats, then the chaffs (see harness.Options.First). A chaff is caught
// only by a test that passed under every wheat, so when none is left
// (each failed under a wheat, or the file as a whole ended a wheat's
// binary) no chaff can be caught, and none is built or run; each stays
// pending, missed.
func (g *grader) run(ctx context.Context, file string, tests []string, onRef []Invalid) (*report.Report, error) {
	if len(g.unit.Applied) == 0 {
		_, err := g.cfg.Engine.Baseline(ctx, g.plan, g.opt)
		return &report.Report{Mutants: []report.Mutant{}}, err
	}
	isWheat := func(m *mutation.Mutant) bool { return g.cfg.Wheats[g.unit.Qual+m.ID] }
	opt := g.opt
	opt.First = isWheat
	opt.Next = func(wheats *report.Report) bool {
		gr := New(file, tests, onRef, wheats, g.cfg.Wheats)
		return gr.Problem == "" && gr.anyValid()
	}
	rep, err := g.cfg.Engine.Run(ctx, g.plan, opt)
	if err != nil {
		return nil, err
	}
	ran := map[string]bool{}
	for _, m := range rep.Mutants {
		ran[m.ID] = true
	}
	chaffs := g.plan.Keep(func(m *mutation.Mutant) bool { return !ran[m.ID] && !isWheat(m) })
	rep.Mutants = append(rep.Mutants, chaffs.Pending().Mutants...)
	return rep, nil
}

// blame returns what err, the error of a run of the learner's file, says
// of its tests: those that failed on the package (not yet in onRef), or
// why the file as a whole cannot be graded; or err itself, when it is not
// the file's doing.
func (g *grader) blame(err error, file string, tests []string, onRef []Invalid) (found []Invalid, whole, fatal error) {
	var (
		be *harness.BaselineError
		ae *harness.ReferenceAfterError
	)
	var failed []string
	var messages map[string]string
	sometimes := false
	switch {
	case errors.Is(err, harness.ErrInterrupted) || errors.Is(err, context.Canceled):
		return nil, nil, err
	case errors.As(err, &be) && be.BuildCostly != "":
		return nil, fmt.Errorf("%s is %w to build: %s", file, errTooCostly, be.BuildCostly), nil
	case errors.As(err, &be) && be.BuildOutput != "":
		return nil, fmt.Errorf("%s does not compile:\n%s", file, strings.TrimRight(g.learnerPaths(be.BuildOutput, file), "\n")), nil
	case errors.As(err, &be) && be.NoTests:
		return nil, fmt.Errorf("%s: no test of the file ran", file), nil
	case errors.As(err, &be):
		failed, messages, sometimes = be.Failed, be.Messages, be.Flaky
		switch {
		case be.TimedOut || be.OverMemory > 0:
			messages = map[string]string{}
			for _, name := range failed {
				messages[name] = strings.TrimSpace(text.FirstLine(be.Error()))
			}
		case len(failed) == 0 && len(be.Unfinished) > 0:
			// The binary ended while they ran: a panic in a goroutine, an
			// exit.
			failed = be.Unfinished
			for _, name := range failed {
				messages[name] = cmp.Or(messages[name], "the test binary "+be.Ended+" while it ran")
			}
		case len(failed) == 0:
			return nil, fmt.Errorf("%s: the test binary %s before any of its tests finished%s", file, cmp.Or(be.Ended, "ended"), said(g.learnerPaths(be.Output, file))), nil
		}
	case errors.As(err, &ae):
		// It passed twice on the package, and failed on it after the
		// wheats or the chaffs: it depends on an order or a timing.
		failed, messages, sometimes = slices.Concat(ae.Failed, ae.Unfinished), ae.Messages, true
		if len(failed) == 0 {
			return nil, fmt.Errorf("%s: the test binary, run on the package after the wheats or the chaffs, %s before any of its tests finished", file, ae.Ended), nil
		}
	default:
		return nil, nil, err
	}
	for _, name := range failed {
		top, _, _ := strings.Cut(name, "/")
		if !slices.Contains(tests, top) || slices.ContainsFunc(onRef, func(i Invalid) bool { return i.Test == top }) ||
			slices.ContainsFunc(found, func(i Invalid) bool { return i.Test == top }) {
			continue
		}
		found = append(found, Invalid{Test: top, On: Reference, Sometimes: sometimes, Message: g.learnerPaths(strings.TrimSpace(messages[name]), file)})
	}
	if len(found) == 0 {
		// Nothing new to leave out: another run would learn nothing.
		return nil, fmt.Errorf("%s: its test binary failed on the package, and no test of the file that is still run was to blame (%s)", file, text.FirstLine(err.Error())), nil
	}
	return found, nil, nil
}

// said quotes the first lines of what a test binary printed, if anything.
func said(out string) string {
	out = strings.TrimSpace(out)
	if out == "" {
		return ""
	}
	lines := strings.Split(out, "\n")
	if len(lines) > 10 {
		lines = append(lines[:10], "…")
	}
	return "; it said:\n" + text.Indent(strings.Join(lines, "\n"), "  ")
}

// learnerPaths names the learner's file in s as the learner does: the
// copy's name of it, and the copy's directory, are the grader's.
func (g *grader) learnerPaths(s, file string) string {
	dst := filepath.Join(g.pkgDir(), learnerName)
	rel, _ := filepath.Rel(g.tmp, dst)
	// The test binaries are built with -trimpath (see harness.Options.Blind):
	// their traces name the file by the package's import path.
	trimmed := path.Join(g.unit.Target.ImportPath, learnerName)
	return strings.NewReplacer(dst, file, trimmed, file, "./"+filepath.ToSlash(rel), file, filepath.ToSlash(rel), file, learnerName, filepath.Base(file), g.tmp, "$MODULE").Replace(s)
}

// rename names the learner's file in the messages of rep as the learner
// does (see learnerPaths).
func (g *grader) rename(rep *report.Report, file string) {
	for i := range rep.Mutants {
		m := &rep.Mutants[i]
		for j := range m.Failures {
			m.Failures[j].Message = g.learnerPaths(m.Failures[j].Message, file)
		}
		m.Output, m.Reason = g.learnerPaths(m.Output, file), g.learnerPaths(m.Reason, file)
	}
}

// ungraded is the grade of a file that cannot be graded, for err.
func (g *grader) ungraded(file string, err error) *Grade {
	gr := ungraded(file, err.Error(), g.plan.Pending(), g.cfg.Wheats)
	gr.Err, gr.Withheld = err, g.cfg.Set.Withheld
	return gr
}

// typeCheck type-checks the learner's file f, of source src, alone (the
// external test package) or with the package's own files (the package
// itself), and holds it to the rules on types (see reachProblems), with
// Engine.Check: in a process of its own, bounded in time and memory.
func (g *grader) typeCheck(ctx context.Context, fset *token.FileSet, f *ast.File, src []byte) (yamlfile.Errors, error) {
	name := fset.Position(f.Pos()).Filename
	req := CheckRequest{Path: g.rules.ImportPath + "_test", Name: name, Src: src, Allowed: g.rules.Imports}
	imports := f.Imports
	if f.Name.Name == g.rules.Package {
		own, err := g.ownFiles()
		if err != nil {
			return nil, err
		}
		req.Path, req.Own = g.rules.ImportPath, own
		for _, path := range own {
			of, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return nil, err
			}
			imports = append(imports, of.Imports...)
		}
	}
	exports, err := g.exportsOf(ctx, imports)
	if err != nil {
		return yamlfile.Errors{fmt.Errorf("the imports of %s could not be read to type-check it: %w", name, err)}, nil
	}
	req.Exports = exports
	check := g.cfg.Engine.Check
	if check == nil {
		check = func(_ context.Context, req CheckRequest) (yamlfile.Errors, error) { return checkHere(req) }
	}
	errs, err := check(ctx, req)
	if errors.Is(err, errTooCostly) {
		return yamlfile.Errors{fmt.Errorf("%s is %w", name, err)}, nil
	}
	return errs, err
}

// ownFiles returns the package's own files (in the copy), as go builds
// them.
func (g *grader) ownFiles() ([]string, error) {
	bp, err := build.ImportDir(g.pkgDir(), 0)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, name := range bp.GoFiles {
		files = append(files, filepath.Join(g.pkgDir(), name))
	}
	return files, nil
}

// exportsOf returns the export data of every package that imports name,
// and of the exercise's; found anew only when one is not among those
// found for the files before.
func (g *grader) exportsOf(ctx context.Context, imports []*ast.ImportSpec) (map[string]string, error) {
	need := []string{g.rules.ImportPath}
	for _, imp := range imports {
		if path, err := strconv.Unquote(imp.Path.Value); err == nil && path != "C" {
			need = append(need, path)
		}
	}
	if g.exports != nil && !slices.ContainsFunc(need, func(p string) bool { return !slices.Contains(g.paths, p) }) {
		return g.exports, nil
	}
	paths := slices.Compact(slices.Sorted(slices.Values(slices.Concat(g.paths, need))))
	exports, err := g.cfg.Engine.Exports(ctx, g.tmp, paths)
	if err != nil {
		return nil, err
	}
	g.exports, g.paths = exports, paths
	return exports, nil
}

// syntaxErrors returns the parser's errors as problems at file:line:col.
// learnerOf returns the learner a test file names, in a line of its own
// before its package clause: "// learner: NAME" (the starter has one to
// fill in); "" if it names none.
func learnerOf(src []byte) string {
	for line := range strings.Lines(string(src)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "package ") {
			break
		}
		if name, ok := strings.CutPrefix(line, "//"); ok {
			if name, ok := strings.CutPrefix(strings.TrimSpace(name), "learner:"); ok {
				r := []rune(strings.Join(strings.Fields(name), " "))
				return string(r[:min(len(r), 200)])
			}
		}
	}
	return ""
}

// parseErrors returns the syntax errors of err, the parser's error of
// src, at their file:line:col. A file with nothing but space and comments
// is one problem, that it is empty; one with no package clause first is
// that one, not the errors the parser finds after it.
func (r Rules) parseErrors(file string, src []byte, err error) error {
	clause := "package " + strings.Join(r.clauses(), " or package ")
	if empty(src) {
		return yamlfile.Errors{&yamlfile.Error{Pos: yamlfile.Pos{File: file, Line: 1, Col: 1},
			Msg: "the file is empty: a test file begins with its package clause, " + clause + ", then imports testing and holds the tests"}}
	}
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		if rest, ok := strings.CutPrefix(list[0].Msg, "expected 'package', "); ok {
			p := list[0].Pos
			return yamlfile.Errors{&yamlfile.Error{Pos: yamlfile.Pos{File: p.Filename, Line: p.Line, Col: p.Column},
				Msg: "a test file begins with its package clause, " + clause + ": " + rest}}
		}
	}
	return syntaxErrors(err)
}

// syntaxErrors returns the syntax errors of err at their file:line:col.
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

// empty reports whether src holds no token of Go: nothing, space or
// comments.
func empty(src []byte) bool {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
	_, tok, _ := s.Scan()
	return tok == token.EOF
}

// disable returns src, the source of f, with the tests of invalid made
// functions that go test does not run (TestX becomes _estX, ExampleX
// _xampleX, FuzzX _uzzX: the same length, so that every message keeps
// its line and column), and reports whether any test is left.
func disable(fset *token.FileSet, f *ast.File, src []byte, invalid []Invalid) ([]byte, bool) {
	out := slices.Clone(src)
	off := map[string]int{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			off[fd.Name.Name] = fset.Position(fd.Name.Pos()).Offset
		}
	}
	left := false
	for _, t := range mutation.TestFuncsOf(fset, f) {
		if slices.ContainsFunc(invalid, func(i Invalid) bool { return i.Test == t.Name }) {
			out[off[t.Name]] = '_'
		} else {
			left = true
		}
	}
	return out, left
}

// names returns the tests of invalid.
func names(invalid []Invalid) []string {
	var ns []string
	for _, inv := range invalid {
		ns = append(ns, inv.Test)
	}
	return ns
}
