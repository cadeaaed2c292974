// Command mutatebench measures, in one run, the cost of a mutation run of
// package lease against its baseline:
//
//   - the baseline: go test -count=1 ./lease, the test run a learner pays
//     for anyway;
//   - a full mutate run of the catalog, and the sum of its mutants' own
//     times (which is larger than the wall clock when mutants overlap);
//   - where one mutant's time goes: compiling, linking, running the tests.
//
// Run it from the module root: go run ./bench/mutatebench [-rounds N].
package main

import (
	"bytes"
	"context"
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

	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/mutants"
)

// timerEnv makes this binary act as a -toolexec wrapper that times each
// tool it runs and appends "TOOL SECONDS" to the file the variable names.
const timerEnv = "MUTATEBENCH_TIMER_LOG"

func main() {
	if log := os.Getenv(timerEnv); log != "" {
		os.Exit(timeTool(log, os.Args[1:]))
	}
	rounds := flag.Int("rounds", 3, "measure each figure this many times and report the median")
	flag.Parse()
	if err := run(*rounds); err != nil {
		fmt.Fprintln(os.Stderr, "mutatebench:", err)
		os.Exit(1)
	}
}

func run(rounds int) error {
	tmp, err := os.MkdirTemp("", "mutatebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	mutate := filepath.Join(tmp, "mutate")
	if err := command("go", "build", "-o", mutate, "./cmd/mutate").Run(); err != nil {
		return fmt.Errorf("build mutate: %w", err)
	}

	var base, full, sum, sumTests []float64
	for r := range rounds {
		fmt.Fprintf(os.Stderr, "round %d/%d\n", r+1, rounds)
		d, err := timed(command("go", "test", "-count=1", "./lease"))
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		base = append(base, d)

		var out bytes.Buffer
		cmd := command(mutate, "run", "-json")
		cmd.Stdout = &out
		d, err = timed(cmd)
		if err != nil {
			return fmt.Errorf("mutate run: %w", err)
		}
		full = append(full, d)
		var rep report.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			return err
		}
		if rep.Summary.Killed != rep.Summary.Total {
			return fmt.Errorf("mutate run: %s", rep.Summary)
		}
		var s, st float64
		for _, m := range rep.Mutants {
			s += m.Seconds
			st += m.TestSeconds
		}
		sum, sumTests = append(sum, s), append(sumTests, st)
	}
	phases, err := mutantPhases(tmp, rounds)
	if err != nil {
		return err
	}

	b, f, s := median(base), median(full), median(sum)
	fmt.Printf("baseline   go test -count=1 ./lease          %6.1fs   1.0x\n", b)
	fmt.Printf("full run   mutate run (%d mutants, -j %d)      %6.1fs  %4.1fx\n", len(mutants.Catalog()), runtime.NumCPU(), f, f/b)
	fmt.Printf("  sum of the mutants' own go test times      %6.1fs  (%.1fx the wall clock of the whole run: they overlap)\n", s, s/f)
	fmt.Printf("  of which their test binaries ran           %6.1fs\n", median(sumTests))
	fmt.Printf("one mutant (%s) built and run alone:\n", phases.id)
	fmt.Printf("  compile                                    %6.2fs\n", phases.compile)
	fmt.Printf("  link                                       %6.2fs\n", phases.link)
	fmt.Printf("  test run                                   %6.2fs\n", phases.run)
	return nil
}

type phaseTimes struct {
	id                 string
	compile, link, run float64
}

// mutantPhases builds one mutant's test binary with every tool timed, then
// runs it. A comment with a fresh nonce keeps the mutated package out of
// the build cache, as after an edit.
func mutantPhases(tmp string, rounds int) (phaseTimes, error) {
	m := mutants.Catalog()[3]
	pkg, err := mutants.Load("lease")
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
		dir := filepath.Join(tmp, fmt.Sprint("phase", r))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return phaseTimes{}, err
		}
		file := filepath.Join(dir, "lease.go")
		src := append(bytes.Clone(a.Mutated), fmt.Sprintf("\n// mutatebench nonce %d\n", time.Now().UnixNano())...)
		if err := os.WriteFile(file, src, 0o644); err != nil {
			return phaseTimes{}, err
		}
		overlay := filepath.Join(dir, "overlay.json")
		data, _ := json.Marshal(map[string]map[string]string{"Replace": {a.File: file}})
		if err := os.WriteFile(overlay, data, 0o644); err != nil {
			return phaseTimes{}, err
		}
		log := filepath.Join(dir, "tools.log")
		bin := filepath.Join(dir, "lease.test")
		build := command("go", "test", "-c", "-o", bin, "-vet=off", "-overlay="+overlay, "-toolexec="+self, "./lease")
		build.Env = append(os.Environ(), timerEnv+"="+log)
		if err := build.Run(); err != nil {
			return phaseTimes{}, fmt.Errorf("build %s: %w", m.ID, err)
		}
		c, l, err := readToolLog(log)
		if err != nil {
			return phaseTimes{}, err
		}
		test := exec.Command(bin, "-test.count=1")
		test.Dir = "lease"
		d, _ := timed(test) // the mutant is meant to fail
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
	cmd := exec.CommandContext(context.Background(), name, args...)
	cmd.Stderr = os.Stderr
	return cmd
}

func timed(cmd *exec.Cmd) (float64, error) {
	start := time.Now()
	err := cmd.Run()
	return time.Since(start).Seconds(), err
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
