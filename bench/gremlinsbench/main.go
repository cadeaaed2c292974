// Command gremlinsbench compares `mutate run -generate` with gremlins
// (github.com/go-gremlins/gremlins) on the same packages, in one session:
// lease, and a vendored copy of golang.org/x/time/rate with its tests
// (testdata/xtime). Each round runs both tools on each package, the order
// alternating from round to round, each in a fresh copy, with its own
// cache of results off (mutate -no-cache; gremlins keeps none). It prints
// every run, the medians, the time per mutant of gremlins over mutate's, and
// whether each tool's verdicts were the same in every round, and the share
// of mutate's mutants that ran in its switched build (the rest had a build
// of their own, an overlay).
//
// A published module can be a target too: -module path@version=pkgdir
// (repeatable; pkgdir is the package's directory in the module, "." for
// its root) fetches it with go mod download, and each run gets a fresh,
// writable copy of it, its go.mod as published (a minimal one, with no go
// line, if it has none) and its dependencies downloaded before the clock
// starts. With -module flags and no -targets, only the modules are run;
// -targets adds the named built-in packages to them.
//
//	go install github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
//	go run ./bench/gremlinsbench [-rounds 3] [-gremlins PATH] [-timeout-coefficient 50] [-targets lease,x/time/rate] [-module path@version=pkgdir ...]
//
// Run it from the module root, on a machine that does nothing else.
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
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
	src  string // the module, relative to the module root of fencelab; for a published module, its directory in the module cache
	pkg  string // the package, relative to that module
	git  bool   // copy only the files git tracks
	// module is a published module's path@version (-module); src is
	// empty until it is fetched.
	module string
}

// parseModule parses -module's path@version=pkgdir.
func parseModule(s string) (target, error) {
	mod, pkg, ok := strings.Cut(s, "=")
	if !ok {
		pkg = "."
	}
	modPath, version, ok := strings.Cut(mod, "@")
	if !ok || modPath == "" || version == "" {
		return target{}, fmt.Errorf("%q: want path@version=pkgdir", s)
	}
	pkg = path.Clean(filepath.ToSlash(pkg))
	if path.IsAbs(pkg) || pkg == ".." || strings.HasPrefix(pkg, "../") {
		return target{}, fmt.Errorf("%q: pkgdir %s is not in the module", s, pkg)
	}
	name := mod
	if pkg != "." {
		name = modPath + "/" + pkg + "@" + version
	}
	return target{name: name, pkg: pkg, module: mod}, nil
}

// pkgArg is the target's package as both tools name it in the copy.
func (t target) pkgArg() string {
	if t.pkg == "." {
		return "."
	}
	return "./" + t.pkg
}

// mutateFlags are flags given to every mutate run (-mutate-flag).
var mutateFlags []string

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
	// switched and built count mutate's mutants that ran in the switched
	// build, and those that ran in a build at all (switched or overlay).
	switched, built int
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
	flag.IntVar(&timeoutCoefficient, "timeout-coefficient", 50, "gremlins' --timeout-coefficient: its limit per mutant, in multiples of the suite's time (its own default, 10, times out mutants that pass in under a second)")
	only := flag.String("targets", "", "only these comma-separated built-in `packages` (lease, x/time/rate); with -module and no -targets, none of them")
	var modules []target
	flag.Func("mutate-flag", "pass `flag` to mutate run too (repeatable), such as -no-tce", func(f string) error {
		mutateFlags = append(mutateFlags, f)
		return nil
	})
	flag.Func("module", "also a published module's package, `path@version=pkgdir` (pkgdir relative to the module root, . for the root); repeatable", func(s string) error {
		t, err := parseModule(s)
		if err == nil {
			modules = append(modules, t)
		}
		return err
	})
	flag.Parse()
	if *only != "" {
		names := strings.Split(*only, ",")
		targets = slices.DeleteFunc(targets, func(t target) bool { return !slices.Contains(names, t.name) })
		if len(targets) != len(names) {
			fmt.Fprintf(os.Stderr, "gremlinsbench: -targets %s: the packages are lease and x/time/rate\n", *only)
			os.Exit(2)
		}
	} else if len(modules) > 0 {
		targets = nil
	}
	targets = append(targets, modules...)
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
	for i, t := range targets {
		if t.module == "" {
			continue
		}
		dir, err := fetchModule(t.module, scratch)
		if err != nil {
			return err
		}
		targets[i].src = dir
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

// fetchModule downloads the module path@version into the module cache,
// from a directory outside any module, and returns its directory there.
func fetchModule(mod, scratch string) (string, error) {
	tmp, err := os.MkdirTemp(scratch, "fetch-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", mod, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %v\n%s%s", mod, err, out, stderr.Bytes())
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no Dir in\n%s", mod, out)
	}
	return info.Dir, nil
}

// copyModule copies a published module from the module cache into dir,
// writable: its go.mod as published, or a minimal one with no go line if
// it has none. Then it downloads the module's dependencies, so that
// neither tool's clock counts that.
func copyModule(t target, dir string) error {
	if err := modcopy.Copy(t.src, dir); err != nil {
		return err
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(p, info.Mode().Perm()|0o200)
	})
	if err != nil {
		return err
	}
	gomod := filepath.Join(dir, "go.mod")
	if _, err := os.Stat(gomod); errors.Is(err, os.ErrNotExist) {
		modPath, _, _ := strings.Cut(t.module, "@")
		if err := os.WriteFile(gomod, []byte("module "+modPath+"\n"), 0o644); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod download in the copy of %s: %v\n%s", t.module, err, out)
	}
	return nil
}

func copyTarget(t target, dir string) error {
	if t.module != "" {
		return copyModule(t, dir)
	}
	if t.git {
		return modcopy.Tracked(t.src, dir)
	}
	return os.CopyFS(dir, os.DirFS(t.src))
}

func runMutate(mutate, dir string, t target) (result, error) {
	args := slices.Concat([]string{"-C", dir, "run", "-generate", "-pkg", t.pkgArg(), "-no-cache", "-q", "-json"}, mutateFlags)
	cmd := exec.Command(mutate, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	// Exit 2 with a whole report is a run whose verdicts include flaky
	// mutants (counted as other); without one, an error.
	var ee *exec.ExitError
	var rep report.Report
	if err != nil && !errors.As(err, &ee) {
		return result{}, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &rep); jerr != nil || rep.Interrupted || len(rep.NotRun) > 0 {
		return result{}, fmt.Errorf("%v\n%s", cmp.Or(err, jerr), stderr.String())
	}
	s := rep.Summary()
	r := result{
		tool: "mutate", target: t.name, wall: wall,
		mutants: s.Total, killed: s.Count(report.Killed), survived: s.Count(report.Survived), notCovered: s.Count(report.NotCovered), timout: s.Count(report.Timeout),
		other: len(rep.Dropped) + s.Count(report.Crashed) + s.Count(report.Flaky), killedByOp: map[string]int{}, sites: map[string]bool{},
	}
	var verdicts []string
	for _, m := range rep.Mutants {
		switch m.Build {
		case report.ModeSwitch:
			r.switched++
			r.built++
		case report.ModeOverlay:
			r.built++
		}
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

// timeoutCoefficient is gremlins' --timeout-coefficient (-timeout-coefficient).
var timeoutCoefficient int

func runGremlins(gremlins, dir string, t target) (result, error) {
	out := filepath.Join(dir, "gremlins.json")
	cmd := exec.Command(gremlins, "unleash", "--timeout-coefficient", strconv.Itoa(timeoutCoefficient), "-o", out, t.pkgArg())
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
	fmt.Fprintln(w, "package\ttool\tround\tmutants\tkilled\tsurvived\tnot covered\ttimeout\tother\twall\tper mutant\tswitched build\t")
	for _, r := range results {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", r.target, r.tool, r.round,
			r.mutants, r.killed, r.survived, r.notCovered, r.timout, r.other,
			r.wall.Round(100*time.Millisecond), r.perMutant().Round(time.Millisecond), switchShare(r))
	}
	w.Flush()
	fmt.Println()
	fmt.Println("medians (other: gremlins' not viable; mutate's dropped as not valid Go, and crashed)")
	w = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "package\ttool\tmutants\tkilled\tsurvived\tnot covered\ttimeout\twall\tper mutant\tsame verdicts every round\t")
	// What does not fit the table's columns follows it, by package.
	var notes []string
	for _, t := range targets {
		per := map[string]time.Duration{}
		kills := map[string]map[string]int{}
		var switchLine string
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
			if tool == "mutate" {
				share := switchShare(result{tool: tool,
					switched: median(rs, func(r result) int { return r.switched }),
					built:    median(rs, func(r result) int { return r.built })})
				switchLine = fmt.Sprintf("%s: mutate's mutants run in the switched build (medians): %s", t.name, share)
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
			notes = append(notes, fmt.Sprintf("%s: gremlins/mutate per mutant: %.1f×", t.name, float64(per["gremlins"])/float64(per["mutate"])))
		}
		if switchLine != "" {
			notes = append(notes, switchLine)
		}
		if m, g := lastOf(results, t.name, "mutate"), lastOf(results, t.name, "gremlins"); m != nil && g != nil {
			notes = append(notes, t.name+": "+sharedSites(m, g))
		}
		if kills["mutate"] != nil && kills["gremlins"] != nil {
			var parts []string
			for _, op := range slices.Sorted(maps.Values(sharedOps)) {
				parts = append(parts, fmt.Sprintf("%s %d/%d", op, kills["mutate"][op], kills["gremlins"][op]))
			}
			notes = append(notes, fmt.Sprintf("%s: killed on shared operators, mutate/gremlins: %s", t.name, strings.Join(parts, ", ")))
		}
	}
	w.Flush()
	fmt.Println()
	for _, n := range notes {
		fmt.Println(n)
	}
}

// sharedSites compares the last runs of mutate (m) and gremlins (g) on the
// sites of shared operators that both tools mutate: gremlins also counts a
// mutant that does not compile (a string's + made -) as killed, and
// mutates a unary minus twice (ARITHMETIC_BASE and INVERT_NEGATIVES).
func sharedSites(m, g *result) string {
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
	return fmt.Sprintf("sites of shared operators both tools mutate: %d, killed by mutate %d, by gremlins %d; killed by gremlins only: %v", both, mk, gk, missed)
}

// switchShare is the share of mutate's mutants in r that ran in the
// switched build, of those that ran in a build ("" for gremlins).
func switchShare(r result) string {
	if r.tool != "mutate" {
		return ""
	}
	if r.built == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", r.switched, r.built, 100*float64(r.switched)/float64(r.built))
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
