// Command gremlinsbench compares `mutate run -generate` with gremlins
// (github.com/go-gremlins/gremlins) on the same packages, in one session:
// lease, and a vendored copy of golang.org/x/time/rate with its tests
// (testdata/xtime). Each round runs both tools on each package, the order
// alternating from round to round, each in a fresh copy, with its own
// cache of results off (mutate -no-cache; gremlins keeps none). It prints
// every run, the medians, the time per mutant of gremlins over mutate's, and
// whether each tool's verdicts were the same in every round.
//
//	go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
//	go run ./bench/gremlinsbench [-rounds 3] [-gremlins PATH] [-targets lease,x/time/rate]
//
// Run it from the module root, on a machine that does nothing else.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fencelab/fencelab/internal/modcopy"
	"github.com/fencelab/fencelab/internal/report"
)

// target is a package both tools mutate: a module to copy, and the
// package's directory in it.
type target struct {
	name string
	src  string // the module, relative to the module root of fencelab
	pkg  string // the package, relative to that module
	git  bool   // copy only the files git tracks
}

var targets = []target{
	{name: "lease", src: ".", pkg: "lease", git: true},
	{name: "x/time/rate", src: "bench/gremlinsbench/testdata/xtime", pkg: "rate"},
}

// sharedOps maps gremlins' mutator types to mutate's operators that make
// the same mutants.
var sharedOps = map[string]string{
	"CONDITIONALS_BOUNDARY": "boundary",
	"CONDITIONALS_NEGATION": "negation",
	"ARITHMETIC_BASE":       "arithmetic",
	"INCREMENT_DECREMENT":   "incdec",
	"INVERT_NEGATIVES":      "negative",
}

// sharedOperator says which of mutate's operators sharedOps names.
var sharedOperator = func() map[string]bool {
	set := map[string]bool{}
	for _, op := range sharedOps {
		set[op] = true
	}
	return set
}()

// result is one run of one tool on one target.
type result struct {
	tool, target                                  string
	round                                         int
	mutants, killed, survived, notCovered, timout int
	other                                         int // gremlins: not viable; mutate: dropped, crashed
	wall                                          time.Duration
	killedByOp                                    map[string]int // by mutate's operator name
	verdicts                                      string         // every mutant's verdict, to compare rounds
	// sites are the places of the mutants of the shared operators,
	// "file:line:operator" (the file's base name, mutate's operator
	// name), and whether a mutant there was killed.
	sites map[string]bool
}

func (r result) perMutant() time.Duration {
	if r.mutants == 0 {
		return 0
	}
	return r.wall / time.Duration(r.mutants)
}

func main() {
	rounds := flag.Int("rounds", 3, "rounds of both tools on every package")
	gremlins := flag.String("gremlins", "gremlins", "the gremlins `program`")
	only := flag.String("targets", "", "only these comma-separated `packages` (lease, x/time/rate)")
	flag.Parse()
	if *only != "" {
		names := strings.Split(*only, ",")
		targets = slices.DeleteFunc(targets, func(t target) bool { return !slices.Contains(names, t.name) })
		if len(targets) != len(names) {
			fmt.Fprintf(os.Stderr, "gremlinsbench: -targets %s: the packages are lease and x/time/rate\n", *only)
			os.Exit(2)
		}
	}
	if err := run(*rounds, *gremlins); err != nil {
		fmt.Fprintln(os.Stderr, "gremlinsbench:", err)
		os.Exit(1)
	}
}

func run(rounds int, gremlins string) error {
	if _, err := exec.LookPath(gremlins); err != nil {
		return fmt.Errorf("%w (go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0)", err)
	}
	scratch, err := os.MkdirTemp("", "gremlinsbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	mutate := filepath.Join(scratch, "mutate")
	if out, err := exec.Command("go", "build", "-o", mutate, "./cmd/mutate").CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/mutate: %v\n%s", err, out)
	}
	var results []result
	for round := 1; round <= rounds; round++ {
		for _, t := range targets {
			tools := []string{"mutate", "gremlins"}
			if round%2 == 0 {
				slices.Reverse(tools)
			}
			for _, tool := range tools {
				dir := filepath.Join(scratch, fmt.Sprintf("r%d-%s-%s", round, tool, strings.ReplaceAll(t.name, "/", "-")))
				if err := copyTarget(t, dir); err != nil {
					return err
				}
				var r result
				if tool == "mutate" {
					r, err = runMutate(mutate, dir, t)
				} else {
					r, err = runGremlins(gremlins, dir, t)
				}
				if err != nil {
					return fmt.Errorf("round %d, %s on %s: %w", round, tool, t.name, err)
				}
				r.round = round
				fmt.Fprintf(os.Stderr, "round %d: %-8s on %-11s %3d mutants in %s\n", round, tool, t.name, r.mutants, r.wall.Round(100*time.Millisecond))
				results = append(results, r)
				os.RemoveAll(dir)
			}
		}
	}
	print(results)
	return nil
}

func copyTarget(t target, dir string) error {
	if t.git {
		return modcopy.Tracked(t.src, dir)
	}
	return os.CopyFS(dir, os.DirFS(t.src))
}

func runMutate(mutate, dir string, t target) (result, error) {
	cmd := exec.Command(mutate, "-C", dir, "run", "-generate", "-pkg", "./"+t.pkg, "-no-cache", "-q", "-json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() != report.ExitError) {
		return result{}, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	var rep report.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return result{}, err
	}
	s := rep.Summary
	r := result{
		tool: "mutate", target: t.name, wall: wall,
		mutants: s.Total, killed: s.Count(report.Killed), survived: s.Count(report.Survived), notCovered: s.Count(report.NotCovered), timout: s.Count(report.Timeout),
		other: len(rep.Dropped) + s.Count(report.Crashed) + s.Count(report.Flaky), killedByOp: map[string]int{}, sites: map[string]bool{},
	}
	var verdicts []string
	for _, m := range rep.Mutants {
		if m.Status == report.Killed {
			r.killedByOp[string(m.Operator)]++
		}
		if sharedOperator[string(m.Operator)] {
			site := fmt.Sprintf("%s:%d:%s", filepath.Base(m.File), m.Line, m.Operator)
			r.sites[site] = r.sites[site] || m.Status == report.Killed
		}
		verdicts = append(verdicts, m.ID+"="+string(m.Status))
	}
	r.verdicts = strings.Join(verdicts, " ")
	return r, nil
}

// gremlinsOutput is the part of gremlins' -o JSON that is read here.
type gremlinsOutput struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

func runGremlins(gremlins, dir string, t target) (result, error) {
	out := filepath.Join(dir, "gremlins.json")
	cmd := exec.Command(gremlins, "unleash", "-o", out, "./"+t.pkg)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return result{}, err
	}
	var g gremlinsOutput
	if err := json.Unmarshal(data, &g); err != nil {
		return result{}, err
	}
	r := result{tool: "gremlins", target: t.name, wall: wall, killedByOp: map[string]int{}, sites: map[string]bool{}}
	var verdicts []string
	for _, f := range g.Files {
		for _, m := range f.Mutations {
			r.mutants++
			if op, ok := sharedOps[m.Type]; ok {
				site := fmt.Sprintf("%s:%d:%s", filepath.Base(f.Name), m.Line, op)
				r.sites[site] = r.sites[site] || m.Status == "KILLED"
			}
			switch m.Status {
			case "KILLED":
				r.killed++
				r.killedByOp[sharedOps[m.Type]]++
			case "LIVED":
				r.survived++
			case "NOT COVERED":
				r.notCovered++
			case "TIMED OUT":
				r.timout++
			default:
				r.other++
			}
			verdicts = append(verdicts, fmt.Sprintf("%s:%d:%d:%s=%s", f.Name, m.Line, m.Column, m.Type, m.Status))
		}
	}
	slices.Sort(verdicts)
	r.verdicts = strings.Join(verdicts, " ")
	return r, nil
}

func print(results []result) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "package\ttool\tround\tmutants\tkilled\tsurvived\tnot covered\ttimeout\tother\twall\tper mutant\t")
	for _, r := range results {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", r.target, r.tool, r.round,
			r.mutants, r.killed, r.survived, r.notCovered, r.timout, r.other,
			r.wall.Round(100*time.Millisecond), r.perMutant().Round(time.Millisecond))
	}
	w.Flush()
	fmt.Println()
	fmt.Println("medians (other: gremlins' not viable; mutate's dropped as not valid Go, and crashed)")
	w = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "package\ttool\tmutants\tkilled\tsurvived\tnot covered\ttimeout\twall\tper mutant\tsame verdicts every round\t")
	for _, t := range targets {
		per := map[string]time.Duration{}
		kills := map[string]map[string]int{}
		for _, tool := range []string{"mutate", "gremlins"} {
			var rs []result
			for _, r := range results {
				if r.target == t.name && r.tool == tool {
					rs = append(rs, r)
				}
			}
			if len(rs) == 0 {
				continue
			}
			stable := true
			for _, r := range rs[1:] {
				stable = stable && r.verdicts == rs[0].verdicts
			}
			m := func(f func(result) int) int { return median(rs, f) }
			wall := time.Duration(median(rs, func(r result) int { return int(r.wall) }))
			per[tool] = time.Duration(median(rs, func(r result) int { return int(r.perMutant()) }))
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%v\t\n", t.name, tool,
				m(func(r result) int { return r.mutants }), m(func(r result) int { return r.killed }),
				m(func(r result) int { return r.survived }), m(func(r result) int { return r.notCovered }),
				m(func(r result) int { return r.timout }), wall.Round(100*time.Millisecond),
				per[tool].Round(time.Millisecond), stable)
			kills[tool] = map[string]int{}
			for _, op := range slices.Sorted(maps.Values(sharedOps)) {
				kills[tool][op] = median(rs, func(r result) int { return r.killedByOp[op] })
			}
		}
		if per["mutate"] > 0 && per["gremlins"] > 0 {
			fmt.Fprintf(w, "%s\tgremlins/mutate per mutant: %.1f×\t\t\t\t\t\t\t\t\t\n", t.name, float64(per["gremlins"])/float64(per["mutate"]))
		}
		if m, g := lastOf(results, t.name, "mutate"), lastOf(results, t.name, "gremlins"); m != nil && g != nil {
			// Sites both tools mutate: gremlins also counts a mutant that
			// does not compile (a string's + made -) as killed, and mutates
			// a unary minus twice (ARITHMETIC_BASE and INVERT_NEGATIVES).
			var both, mk, gk int
			var missed []string
			for site, gKilled := range g.sites {
				mKilled, ok := m.sites[site]
				if !ok {
					continue
				}
				both++
				if mKilled {
					mk++
				}
				if gKilled {
					gk++
					if !mKilled {
						missed = append(missed, site)
					}
				}
			}
			slices.Sort(missed)
			fmt.Fprintf(w, "%s\tsites of shared operators both tools mutate: %d, killed by mutate %d, by gremlins %d; killed by gremlins only: %v\t\t\t\t\t\t\t\t\t\n", t.name, both, mk, gk, missed)
		}
		if kills["mutate"] != nil && kills["gremlins"] != nil {
			var parts []string
			for _, op := range slices.Sorted(maps.Values(sharedOps)) {
				parts = append(parts, fmt.Sprintf("%s %d/%d", op, kills["mutate"][op], kills["gremlins"][op]))
			}
			fmt.Fprintf(w, "%s\tkilled on shared operators, mutate/gremlins: %s\t\t\t\t\t\t\t\t\t\n", t.name, strings.Join(parts, ", "))
		}
	}
	w.Flush()
}

// lastOf returns the last run of tool on target, or nil.
func lastOf(results []result, target, tool string) *result {
	for i := len(results) - 1; i >= 0; i-- {
		if results[i].target == target && results[i].tool == tool {
			return &results[i]
		}
	}
	return nil
}

// median returns the median of f over rs (the lower of the two middle
// values for an even count).
func median(rs []result, f func(result) int) int {
	vs := make([]int, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	slices.Sort(vs)
	return vs[(len(vs)-1)/2]
}
