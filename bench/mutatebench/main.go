// Command mutatebench measures, in one run, what a mutation run of the
// module's catalog costs against the test run a learner pays for anyway, in
// the situations a learner meets most: a test was just edited, so nothing
// of the package comes from Go's build cache, and the last run's outcomes
// are in mutate's cache (see harness's per-test reuse).
//
// Each round, in a copy of the module (the checkout is never touched):
//
//   - baseline: an edit to one test's body, then go test -count=1 of the
//     catalog's package;
//   - overlay:  an edit to one test's body, then mutate run -mode=overlay
//     (that test runs again under every mutant, each a build of its own);
//   - body:     the same in switch mode (one build);
//   - re-run:   mutate run again with nothing changed (from the cache);
//   - comment:  a new comment in a test file since that run, then mutate
//     run (no test's function changed: every outcome is reused but the
//     one sampled);
//   - learner:  an edit to one test of a learner's test file, then mutate
//     check FILE (graded afresh: no outcome of a learner's is kept);
//
// and it reports the medians, their ratios to the baseline, how much the
// mutants' runs overlap, and where one mutant's own build and run go. It
// fails if the body edit's kill matrix differs from a -full -no-cache run
// of the same tree, if the modes disagree, or if a learner's grade
// changes from round to round.
//
// Run it from the module root: go run ./bench/mutatebench [-rounds N]
// [-only IDS]. With -only, every run is of those mutants only: CI runs it
// so, to keep the benchmark working at a small cost, not to measure.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/modcopy"
)

// timerEnv makes this binary act as a -toolexec wrapper that times each
// tool it runs and appends "TOOL SECONDS" to the file the variable names.
const timerEnv = "MUTATEBENCH_TIMER_LOG"

func main() {
	if log := os.Getenv(timerEnv); log != "" {
		os.Exit(timeTool(log, os.Args[1:]))
	}
	rounds := flag.Int("rounds", 3, "measure each figure this many times and report the median")
	only := flag.String("only", "", "run only these comma-separated mutant ids of the catalog")
	flag.Parse()
	if err := run(*rounds, *only); err != nil {
		fmt.Fprintln(os.Stderr, "mutatebench:", err)
		os.Exit(1)
	}
}

// bench is a copy of the module and the environment to measure in.
type bench struct {
	dir     string        // the copy
	set     *exercise.Set // its catalog
	mutate  string        // the mutate binary
	env     []string      // a results cache of its own, Go's build cache as usual
	only    []string      // mutate run's -only, if not all of the catalog
	learner string        // a learner's test file, outside the copy
	edits   int
}

// learnerFile is the learner's test file graded, from the module root.
const learnerFile = "docs/testdata/learner/claim_test.go"

func run(rounds int, only string) error {
	tmp, err := os.MkdirTemp("", "mutatebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b, err := newBench(tmp, only)
	if err != nil {
		return err
	}
	// A first run in each mode keeps the outcomes that the rounds reuse,
	// as a learner's earlier runs did.
	for _, mode := range []string{"overlay", "switch"} {
		if _, _, err := b.mutateRun("-mode=" + mode); err != nil {
			return err
		}
	}
	var f figures
	var grade string
	for r := range rounds {
		fmt.Fprintf(os.Stderr, "round %d/%d\n", r+1, rounds)
		if err := b.round(&f); err != nil {
			return fmt.Errorf("round %d: %w", r+1, err)
		}
		g, d, err := b.check()
		if err != nil {
			return err
		}
		if r > 0 && g != grade {
			return fmt.Errorf("round %d: the learner's grade changed after an edit that changes no test's meaning:\n%s\nthen\n%s", r+1, grade, g)
		}
		grade, f.learner = g, append(f.learner, d)
	}
	// The body edit's kill matrix is a whole run's: the same tree, every
	// test run under every mutant, nothing from the cache.
	full, _, err := b.mutateRun("-full", "-no-cache")
	if err != nil {
		return err
	}
	if err := sameMatrix(full, f.bodyRep); err != nil {
		return fmt.Errorf("after an edit to a test's body, the run with reuse and a -full -no-cache run disagree: %w", err)
	}
	phases, err := mutantPhases(tmp, b, rounds)
	if err != nil {
		return err
	}
	printRun(b, rounds, f, phases)
	return nil
}

// round measures, once, go test and mutate run after an edit to a test's
// body, mutate run after a comment, and the re-runs from the cache, into
// f.
func (b *bench) round(f *figures) error {
	if err := b.editBody(); err != nil {
		return err
	}
	d, err := b.time(b.cmd("go", "test", "-count=1", b.set.Package))
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	f.base = append(f.base, d)
	for _, mode := range []string{"overlay", "switch"} {
		if err := b.editBody(); err != nil {
			return err
		}
		rep, d, err := b.mutateRun("-mode=" + mode)
		if err != nil {
			return err
		}
		if rep.Cached {
			return fmt.Errorf("mutate run -mode=%s after an edit came from the cache", mode)
		}
		if mode == "switch" {
			f.body, f.bodyRep = append(f.body, d), rep
		} else {
			f.ov, f.ovRep = append(f.ov, d), rep
		}
	}
	if err := sameMatrix(f.ovRep, f.bodyRep); err != nil {
		return fmt.Errorf("overlay and switch mode disagree: %w", err)
	}
	// Nothing has changed since the switch run: the cache answers.
	rep, d, err := b.mutateRun()
	if err != nil {
		return err
	}
	if !rep.Cached {
		return fmt.Errorf("the unchanged re-run did not come from the cache")
	}
	f.rerun = append(f.rerun, d)
	// The same, as a learner types it: go tool checks the tool's build
	// first.
	if d, err = b.time(b.cmd("go", append([]string{"tool", "mutate", "run"}, b.only...)...)); err != nil {
		return fmt.Errorf("go tool mutate run: %w", err)
	}
	f.goRerun = append(f.goRerun, d)
	// A comment since the last run: no test's function changed.
	if err := b.editTest(); err != nil {
		return err
	}
	if rep, d, err = b.mutateRun(); err != nil {
		return err
	}
	if rep.Cached {
		return fmt.Errorf("mutate run after a new comment came from the cache")
	}
	f.comment = append(f.comment, d)
	return nil
}

// newBench copies the module into tmp and returns the bench of its
// catalog (only the mutants of only, if it is set), with the mutate that
// go tool runs there.
func newBench(tmp, only string) (*bench, error) {
	b := &bench{dir: filepath.Join(tmp, "module")}
	if err := modcopy.Copy(".", b.dir); err != nil {
		return nil, err
	}
	var err error
	if b.set, err = exercise.Load(b.dir, nil); err != nil {
		return nil, err
	}
	if only != "" {
		b.set.Mutants = slices.DeleteFunc(b.set.Mutants, func(m *mutation.Mutant) bool {
			return !slices.Contains(strings.Split(only, ","), m.ID)
		})
		if len(b.set.Mutants) == 0 {
			return nil, fmt.Errorf("-only %s: no mutant of the catalog has these ids", only)
		}
		b.only = []string{"-only", only}
	}
	// The executable that go tool runs in the copy: mutate run and go
	// tool mutate run are one program there, with one results cache.
	tool := command("go", "tool", "-n", "mutate")
	tool.Dir, tool.Stdout = b.dir, nil
	out, err := tool.Output()
	if err != nil {
		return nil, fmt.Errorf("build mutate: %w", err)
	}
	b.mutate = strings.TrimSpace(string(out))
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return nil, err
	}
	b.env = append(os.Environ(), "GOCACHE="+strings.TrimSpace(string(gocache)), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"))
	// A learner's test file of the catalog's package, outside the copy
	// of the module, as a grader receives one.
	src, err := os.ReadFile(learnerFile)
	if err != nil {
		return nil, err
	}
	b.learner = filepath.Join(tmp, "learner", filepath.Base(learnerFile))
	if err := os.MkdirAll(filepath.Dir(b.learner), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(b.learner, src, 0o644); err != nil {
		return nil, err
	}

	return b, nil
}

// figures are the times of each round, by what was measured, and the
// last round's reports of the body edit in each mode.
type figures struct {
	base, comment, body, ov, rerun, goRerun, learner []float64
	bodyRep, ovRep                                   *report.Report
}

// printRun prints the medians of the rounds, as ratios against the
// baseline's, and where the last round's time went.
func printRun(b *bench, rounds int, f figures, phases phaseTimes) {
	bm := median(f.base)
	reused := 0
	for _, m := range f.bodyRep.Mutants {
		reused += m.Reused
	}
	fmt.Printf("after a test edit (medians of %d rounds, %d CPUs, %d mutants):\n", rounds, runtime.NumCPU(), len(b.set.Mutants))
	fmt.Printf("  baseline  go test -count=1 %-17s %6.2fs   1.0x  (one test's body edited)\n", b.set.Package, bm)
	fmt.Printf("  comment   mutate run                         %6.2fs  %4.1fx  (a new comment)\n", median(f.comment), median(f.comment)/bm)
	fmt.Printf("  body      mutate run                         %6.2fs  %4.1fx  (one test's body edited; %d outcomes reused, last round)\n", median(f.body), median(f.body)/bm, reused)
	fmt.Printf("  overlay   mutate run -mode=overlay           %6.2fs  %4.1fx  (the same)\n", median(f.ov), median(f.ov)/bm)
	fmt.Printf("  learner   mutate check FILE                  %6.2fs  %4.1fx  (one test of a learner's file edited)\n", median(f.learner), median(f.learner)/bm)
	fmt.Printf("unchanged re-run, from the cache:\n")
	fmt.Printf("  mutate run                                   %6.3fs  %5.2fx\n", median(f.rerun), median(f.rerun)/bm)
	fmt.Printf("  go tool mutate run                           %6.3fs  %5.2fx\n", median(f.goRerun), median(f.goRerun)/bm)
	fmt.Printf("the body edit's kill matrix is that of mutate run -full -no-cache on the same tree\n")
	for _, x := range []struct {
		name string
		rep  *report.Report
	}{{"body", f.bodyRep}, {"overlay", f.ovRep}} {
		var own, tests float64
		for _, m := range x.rep.Mutants {
			own += m.Seconds
			tests += m.TestSeconds
		}
		phase := x.rep.Seconds - x.rep.Baseline.Seconds
		fmt.Printf("%s, last round: after the baseline (%.1fs), the mutants ran in %.1fs of wall-clock time; their own runs add up to %.1fs (%.1fs in test binaries)\n",
			x.name, x.rep.Baseline.Seconds, phase, own, tests)
	}
	fmt.Printf("one mutant (%s) built alone after an edit, then run:\n", phases.id)
	fmt.Printf("  compile %.2fs, link %.2fs, test run %.2fs\n", phases.compile, phases.link, phases.run)
}

// editBody makes the edit a learner makes to one test: a new statement at
// the top of the body of the first test of the package's first test file
// that has one, which changes that test's function and no other's.
func (b *bench) editBody() error {
	tests, err := filepath.Glob(filepath.Join(b.pkgDir(), "*_test.go"))
	if err != nil {
		return err
	}
	for _, path := range tests {
		if edited, err := b.editFirstTest(path); edited || err != nil {
			return err
		}
	}
	return fmt.Errorf("no test function in %s", b.set.Package)
}

// editFirstTest adds a statement at the top of the body of the first
// Test function of the file at path (a new one each time, replacing none),
// and reports whether it had one.
func (b *bench) editFirstTest(path string) (bool, error) {
	b.edits++
	src, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		return false, err
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") && fd.Body != nil {
			at := int(fd.Body.Lbrace-f.FileStart) + 1
			// On the line of the brace: no line below it moves, and
			// a failure's message names the same line as before.
			stmt := fmt.Sprintf(" _ = \"edit %d at %d\";", b.edits, time.Now().UnixNano())
			return true, os.WriteFile(path, slices.Concat(src[:at], []byte(stmt), src[at:]), 0o644)
		}
	}
	return false, nil
}

// check edits one test of the learner's file and grades it, and returns
// its grade as mutate check -q prints it, and how long it took.
func (b *bench) check() (string, float64, error) {
	if edited, err := b.editFirstTest(b.learner); err != nil || !edited {
		return "", 0, fmt.Errorf("edit %s: %v, no test function", b.learner, err)
	}
	var out bytes.Buffer
	cmd := b.cmd(b.mutate, "check", "-q", b.learner)
	cmd.Stdout = &out
	d, err := b.time(cmd)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) { // a grade below full marks exits 1
		return "", 0, fmt.Errorf("mutate check: %w", err)
	}
	return out.String(), d, nil
}

// editTest makes the small edit a learner makes: a new comment at the end
// of a test file of the package, which is enough for Go to rebuild the
// tests.
func (b *bench) editTest() error {
	b.edits++
	tests, err := filepath.Glob(filepath.Join(b.pkgDir(), "*_test.go"))
	if err != nil || len(tests) == 0 {
		return fmt.Errorf("no test file in %s", b.set.Package)
	}
	path := tests[0]
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "\n// edit %d at %d\n", b.edits, time.Now().UnixNano())
	return f.Close()
}

// pkgDir returns the directory of the catalog's package in the copy.
func (b *bench) pkgDir() string {
	return filepath.Join(b.dir, filepath.FromSlash(b.set.Package))
}

func (b *bench) cmd(name string, args ...string) *exec.Cmd {
	cmd := command(name, args...)
	cmd.Dir, cmd.Env = b.dir, b.env
	return cmd
}

// mutateRun times mutate run -json with args and checks that it killed
// every mutant.
func (b *bench) mutateRun(args ...string) (*report.Report, float64, error) {
	var out bytes.Buffer
	cmd := b.cmd(b.mutate, slices.Concat([]string{"run", "-json"}, b.only, args)...)
	cmd.Stdout = &out
	d, err := b.time(cmd)
	if err != nil {
		return nil, 0, fmt.Errorf("mutate run %v: %w", args, err)
	}
	var rep report.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, 0, err
	}
	if rep.Summary().Count(report.Killed) != rep.Summary().Total {
		return nil, 0, fmt.Errorf("mutate run %v: %s", args, rep.Summary())
	}
	return &rep, d, nil
}

// sameMatrix returns an error unless a and b hold the same mutants with the
// same statuses and failed tests: the two modes must give one verdict.
func sameMatrix(a, b *report.Report) error {
	if len(a.Mutants) != len(b.Mutants) {
		return fmt.Errorf("%d mutants, then %d", len(a.Mutants), len(b.Mutants))
	}
	for i, m := range a.Mutants {
		n := b.Mutants[i]
		if m.ID != n.ID || m.Status != n.Status || !slices.Equal(m.FailedTests, n.FailedTests) {
			return fmt.Errorf("%s %s %v, then %s %s %v", m.ID, m.Status, m.FailedTests, n.ID, n.Status, n.FailedTests)
		}
	}
	return nil
}

func (b *bench) time(cmd *exec.Cmd) (float64, error) {
	start := time.Now()
	err := cmd.Run()
	return time.Since(start).Seconds(), err
}

type phaseTimes struct {
	id                 string
	compile, link, run float64
}

// mutantPhases builds one mutant's test binary after a test edit, with
// every tool timed, then runs it: the first mutant measured.
func mutantPhases(tmp string, b *bench, rounds int) (phaseTimes, error) {
	m := b.set.Mutants[0]
	pkg, err := mutation.Load(b.pkgDir())
	if err != nil {
		return phaseTimes{}, err
	}
	a, err := pkg.Apply(m)
	if err != nil {
		return phaseTimes{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return phaseTimes{}, err
	}
	var compile, link, runs []float64
	for r := range rounds {
		if err := b.editTest(); err != nil {
			return phaseTimes{}, err
		}
		dir := filepath.Join(tmp, fmt.Sprint("phase", r))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return phaseTimes{}, err
		}
		file := filepath.Join(dir, filepath.Base(a.File))
		if err := os.WriteFile(file, a.Mutated, 0o644); err != nil {
			return phaseTimes{}, err
		}
		overlay := filepath.Join(dir, "overlay.json")
		data, _ := json.Marshal(map[string]map[string]string{"Replace": {a.File: file}})
		if err := os.WriteFile(overlay, data, 0o644); err != nil {
			return phaseTimes{}, err
		}
		log := filepath.Join(dir, "tools.log")
		bin := filepath.Join(dir, "pkg.test")
		build := b.cmd("go", "test", "-c", "-o", bin, "-vet=off", "-overlay="+overlay, "-toolexec="+self, b.set.Package)
		build.Env = append(build.Env, timerEnv+"="+log)
		if err := build.Run(); err != nil {
			return phaseTimes{}, fmt.Errorf("build %s: %w", m.ID, err)
		}
		c, l, err := readToolLog(log)
		if err != nil {
			return phaseTimes{}, err
		}
		test := exec.Command(bin, "-test.count=1")
		test.Dir = b.pkgDir()
		d, _ := b.time(test) // the mutant is meant to fail
		compile, link, runs = append(compile, c), append(link, l), append(runs, d)
	}
	return phaseTimes{id: m.ID, compile: median(compile), link: median(link), run: median(runs)}, nil
}

// timeTool runs a tool for go build's -toolexec and logs its duration.
func timeTool(log string, args []string) int {
	start := time.Now()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	// go build asks each tool for its version with -V=full; those calls
	// are not work on the package.
	if !slices.Contains(args[1:], "-V=full") {
		f, ferr := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if ferr == nil {
			fmt.Fprintf(f, "%s %f\n", filepath.Base(args[0]), time.Since(start).Seconds())
			f.Close()
		}
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

// readToolLog sums the logged times of the compiler and of the linker.
func readToolLog(path string) (compile, link float64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.Lines(string(data)) {
		var tool string
		var secs float64
		if _, err := fmt.Sscan(line, &tool, &secs); err != nil {
			return 0, 0, err
		}
		switch strings.TrimSuffix(tool, ".exe") {
		case "compile":
			compile += secs
		case "link":
			link += secs
		}
	}
	return compile, link, nil
}

func command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	return cmd
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
