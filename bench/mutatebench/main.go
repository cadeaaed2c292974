// Command mutatebench measures, in one run, what a mutation run of the
// module's catalog costs against the test run a learner pays for anyway, in
// the situation a learner meets most: a test file was just edited, so
// nothing of the package comes from Go's build cache.
//
// Each round, in a copy of the module (the checkout is never touched):
//
//   - baseline: a small test edit, then go test -count=1 of the catalog's
//     package;
//   - switch:   a small test edit, then mutate run (one build for all mutants);
//   - overlay:  a small test edit, then mutate run -mode=overlay (a build each);
//   - re-run:   mutate run again with nothing changed (from the cache);
//
// and it reports the medians, their ratios to the baseline, how much the
// mutants' runs overlap, and where one mutant's own build and run go. It
// fails if the two modes give different kill matrices.
//
// Run it from the module root: go run ./bench/mutatebench [-rounds N]
// [-only IDS]. With -only, every run is of those mutants only: CI runs it
// so, to keep the benchmark working at a small cost, not to measure.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
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
	dir    string        // the copy
	set    *exercise.Set // its catalog
	mutate string        // the mutate binary
	env    []string      // a results cache of its own, Go's build cache as usual
	only   []string      // mutate run's -only, if not all of the catalog
	edits  int
}

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
	var base, sw, ov, rerun, goRerun []float64
	var swRep, ovRep *report.Report
	for r := range rounds {
		fmt.Fprintf(os.Stderr, "round %d/%d\n", r+1, rounds)
		if err := b.editTest(); err != nil {
			return err
		}
		d, err := b.time(b.cmd("go", "test", "-count=1", b.set.Package))
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		base = append(base, d)

		for _, mode := range []string{"overlay", "switch"} {
			if err := b.editTest(); err != nil {
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
				sw, swRep = append(sw, d), rep
			} else {
				ov, ovRep = append(ov, d), rep
			}
		}
		if err := sameMatrix(ovRep, swRep); err != nil {
			return fmt.Errorf("round %d: overlay and switch mode disagree: %w", r+1, err)
		}
		// Nothing has changed since the switch run: the cache answers.
		rep, d, err := b.mutateRun()
		if err != nil {
			return err
		}
		if !rep.Cached {
			return fmt.Errorf("the unchanged re-run did not come from the cache")
		}
		rerun = append(rerun, d)
		// The same, as a learner types it: go tool checks the tool's
		// build first.
		if d, err = b.time(b.cmd("go", append([]string{"tool", "mutate", "run"}, b.only...)...)); err != nil {
			return fmt.Errorf("go tool mutate run: %w", err)
		}
		goRerun = append(goRerun, d)
	}
	phases, err := mutantPhases(tmp, b, rounds)
	if err != nil {
		return err
	}

	printRun(b, rounds, base, sw, ov, rerun, goRerun, swRep, ovRep, phases)
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

	return b, nil
}

// printRun prints the medians of the rounds, as ratios against the
// baseline's, and where the last round's time went.
func printRun(b *bench, rounds int, base, sw, ov, rerun, goRerun []float64, swRep, ovRep *report.Report, phases phaseTimes) {
	bm := median(base)
	fmt.Printf("after a small test edit (medians of %d rounds, %d CPUs, %d mutants):\n", rounds, runtime.NumCPU(), len(b.set.Mutants))
	fmt.Printf("  baseline  go test -count=1 %-17s %6.2fs   1.0x\n", b.set.Package, bm)
	fmt.Printf("  switch    mutate run                         %6.2fs  %4.1fx\n", median(sw), median(sw)/bm)
	fmt.Printf("  overlay   mutate run -mode=overlay           %6.2fs  %4.1fx\n", median(ov), median(ov)/bm)
	fmt.Printf("unchanged re-run, from the cache:\n")
	fmt.Printf("  mutate run                                   %6.3fs  %5.2fx\n", median(rerun), median(rerun)/bm)
	fmt.Printf("  go tool mutate run                           %6.3fs  %5.2fx\n", median(goRerun), median(goRerun)/bm)
	for _, x := range []struct {
		name string
		rep  *report.Report
	}{{"switch", swRep}, {"overlay", ovRep}} {
		var own, tests float64
		for _, m := range x.rep.Mutants {
			own += m.Seconds
			tests += m.TestSeconds
		}
		phase := x.rep.Seconds - x.rep.Baseline.Seconds
		fmt.Printf("%s, last round: after the baseline (%.1fs), the mutants ran in %.1fs of wall-clock time; their own runs add up to %.1fs (%.1fs in test binaries): %.1fx overlap\n",
			x.name, x.rep.Baseline.Seconds, phase, own, tests, own/phase)
	}
	fmt.Printf("one mutant (%s) built alone after an edit, then run:\n", phases.id)
	fmt.Printf("  compile %.2fs, link %.2fs, test run %.2fs\n", phases.compile, phases.link, phases.run)
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
