package harness

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

func leaseMutants(t *testing.T) []*mutation.Mutant {
	t.Helper()
	s, err := exercise.Load("../..", []string{"../../mutants/catalog.yaml", "../../mutants/experiments.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	return s.Mutants
}

// The switched build of every catalog mutant and experiment compiles with
// every mutant switched in. (That it then passes like the reference when
// no mutant is active is checked by every run in switch mode, such as the
// gate on lease in cmd/mutate's scripts.)
func TestSwitched_LeaseCompilesWithEveryMutantSwitchedIn(t *testing.T) {
	ctx := t.Context()
	r := testRun{Dir: "../..", Package: "./lease", Mutants: leaseMutants(t), Mode: ModeSwitch}
	cfg := r.config()
	p, err := prepare(ctx, r.plan(t).Units[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sb := buildSwitched(ctx, cfg, p, nil)
	if sb.err != nil || sb.bin == "" {
		t.Fatalf("buildSwitched() = %+v", sb)
	}
	if len(sb.sw.Excluded) != 0 || len(sb.sw.Included) != len(cfg.Mutants) {
		t.Fatalf("switched %v, excluded %v; want every mutant switched", sb.sw.Included, sb.sw.Excluded)
	}
}

// writeModule writes a module with one package, calc, and its test.
func writeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/calc\n\ngo 1.26\n",
		"calc.go": `package calc

// size is a constant: a switched build turns it into a variable, which
// cannot size an array.
const size = 3

var table [size]int

func Max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func Double(x int) int {
	y := x * 2
	return y
}

func Size() int { return len(table) }

// Pad is called by no test.
func Pad() int {
	var a [size * 2]int
	return len(a)
}
`,
		"calc_test.go": `package calc

import "testing"

func TestMax(t *testing.T) {
	if Max(1, 2) != 2 || Max(3, 1) != 3 {
		t.Fatal("Max is wrong")
	}
}

func TestDouble(t *testing.T) {
	if Double(2) != 4 {
		t.Fatal("Double is wrong")
	}
}

func TestSize(t *testing.T) {
	if Size() != 3 {
		t.Fatal("Size is wrong")
	}
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testRun is what a test runs: the mutants of the package Package (as go
// names it in Dir), with the options.
type testRun struct {
	Dir, Package  string
	Mutants       []*mutation.Mutant
	Mode          Mode
	Jobs          int
	Timeout       time.Duration
	NoCache, Full bool
	NoTCE         bool
	Runner        Runner
	AfterBaseline func([]string) error
	Policy        *policy // nil for defaultPolicy
}

// plan returns the plan of the run: its mutants applied to its package.
func (r testRun) plan(t *testing.T) *exercise.Plan {
	t.Helper()
	target, err := exercise.FindTarget(t.Context(), "", r.Dir, r.Package, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := mutation.Load(target.Dir)
	if err != nil {
		t.Fatal(err)
	}
	u := &exercise.Unit{Target: target, Source: src, All: r.Mutants, Mutants: r.Mutants}
	for _, m := range r.Mutants {
		a, err := src.Apply(m)
		if err != nil {
			t.Fatal(err)
		}
		u.Applied = append(u.Applied, a)
	}
	return &exercise.Plan{Root: target.ModuleDir, Package: target.Rel, Units: []*exercise.Unit{u}}
}

func (r testRun) options() Options {
	return Options{Mode: r.Mode, Jobs: r.Jobs, Timeout: r.Timeout, NoCache: r.NoCache, Full: r.Full, NoTCE: r.NoTCE, Runner: r.Runner, AfterBaseline: r.AfterBaseline, pol: r.Policy}
}

// config returns the configuration of the run's one package.
func (r testRun) config() config {
	return config{Options: r.options(), Mutants: r.Mutants}
}

// run runs it.
func (r testRun) run(t *testing.T) (*report.Report, error) {
	t.Helper()
	return Run(t.Context(), r.plan(t), r.options())
}

// prepareAndRun runs r, and fails the test on an error.
func prepareAndRun(t *testing.T, r testRun) *report.Report {
	t.Helper()
	rep, err := r.run(t)
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	return rep
}

// runModule runs ms on the module of writeModule in mode.
func runModule(t *testing.T, mode Mode, ms []*mutation.Mutant) *report.Report {
	t.Helper()
	rep := prepareAndRun(t, testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Mode: mode, Jobs: 2, NoCache: true})
	if rep.Mode != mode {
		t.Errorf("Mode = %q, want %s", rep.Mode, mode)
	}
	return rep
}

func checkMutants(t *testing.T, rep *report.Report, want []report.Mutant) {
	t.Helper()
	for i, w := range want {
		got := rep.Mutants[i]
		if got.ID != w.ID || got.Status != w.Status || got.Build != w.Build || !slices.Equal(got.FailedTests, w.FailedTests) {
			t.Errorf("mutant %d = %s %s %s %v; want %s %s %s %v", i,
				got.ID, got.Status, got.Build, got.FailedTests, w.ID, w.Status, w.Build, w.FailedTests)
		}
	}
}

// The one verdict whatever the mode. A mutant whose switched form does not
// compile, though it does on its own, falls back to a build of its own in
// switch mode; one that is not valid Go on its own (it leaves y unused) is
// build-failed in both modes, with the compiler's message at its real
// place, though its switched form, which still uses y, would compile; the
// others share the one switched build.
func TestRunMutants_OneVerdictWhateverTheMode(t *testing.T) {
	skipShort(t)
	ms := []*mutation.Mutant{
		{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"},
		{ID: "size", Target: "size", Kind: mutation.Expr, Find: "3", Replace: "4"},
		{ID: "unused", Target: "Double", Kind: mutation.Stmt, Find: "return y", Replace: "return x * 2"},
	}
	for _, mode := range []Mode{ModeSwitch, ModeOverlay} {
		t.Run(string(mode), func(t *testing.T) {
			rep := runModule(t, mode, ms)
			checkMutants(t, rep, []report.Mutant{
				{ID: "flipped", Status: report.Killed, Build: mode, FailedTests: []string{"TestMax"}},
				{ID: "size", Status: report.Killed, Build: ModeOverlay, FailedTests: []string{"TestSize"}},
				{ID: "unused", Status: report.BuildFailed, Build: ModeOverlay, FailedTests: []string{}},
			})
			if got, want := rep.Mutants[2].Output, "calc.go:17:2: declared and not used: y"; got != want {
				t.Errorf("Output = %q, want %q", got, want)
			}
		})
	}
}

func TestRun_RejectsUnknownMode(t *testing.T) {
	_, err := testRun{Dir: "../..", Package: "./lease", Mode: "fast"}.run(t)
	if err == nil || err.Error() != `unknown mode "fast": want switch or overlay` {
		t.Fatalf("Run(mode fast) error = %v", err)
	}
}

// A switched build that, with no mutant active, does not pass exactly like
// the plain baseline says how: none of its results could be trusted, and
// the mutants get builds of their own.
func TestCheckInactive_MustPassLikeThePlainBaseline(t *testing.T) {
	parse := func(events string) *gotest.Result {
		t.Helper()
		res, err := gotest.Parse(strings.NewReader(events))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain := parse(`{"Action":"pass","Test":"TestA"}
{"Action":"pass","Test":"TestB"}
{"Action":"pass"}
`)
	tests := []struct {
		name, inactive, want string
	}{
		{"Same", "{\"Action\":\"pass\",\"Test\":\"TestA\"}\n{\"Action\":\"pass\",\"Test\":\"TestB\"}\n{\"Action\":\"pass\"}\n", ""},
		{"Fails", "{\"Action\":\"pass\",\"Test\":\"TestA\"}\n{\"Action\":\"fail\",\"Test\":\"TestB\"}\n{\"Action\":\"fail\"}\n", "(TestB failed)"},
		{"Missing", "{\"Action\":\"pass\",\"Test\":\"TestA\"}\n{\"Action\":\"pass\"}\n", "(TestB did not run)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &Baseline{Result: plain, switched: &switchedBuild{inactive: parse(tc.inactive)}}
			err := checkInactive(config{}, b)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("checkInactive() error = %v, want none", err)
			case tc.want != "" && (err == nil || err.Error() != "the switched build with no mutant active does not pass like the reference "+tc.want):
				t.Fatalf("checkInactive() error = %v, want one ending in %q", err, tc.want)
			}
		})
	}
}

// A sealed blind run's switched build knows each mutant by a random name
// of the run, and the reference by one more: no id is in its sources (so
// none is in its binary) or in any run's environment, and every run's
// environment is as long as another's.
func TestSwitchNames_ASealedBlindBuildNamesNoMutant(t *testing.T) {
	ms := leaseMutants(t)
	cfg := config{Options: Options{Blind: true, Sealed: true}, Mutants: ms}
	named, names, none, err := switchNames(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opaque := regexp.MustCompile(`^m[0-9a-f]{32}$`)
	seen := map[string]bool{none: true}
	if !opaque.MatchString(none) {
		t.Errorf("the reference's name = %q, want m and 32 hex digits", none)
	}
	for i, m := range ms {
		name := names[m.ID]
		if !opaque.MatchString(name) || seen[name] || named[i].ID != name {
			t.Errorf("%s is named %q (the build's mutant %q), want a name of its own, m and 32 hex digits", m.ID, name, named[i].ID)
		}
		seen[name] = true
		if m.ID == name || ms[i].ID != m.ID {
			t.Errorf("%s: the caller's mutant was renamed", m.ID)
		}
	}
	pkg, err := mutation.Load("../../lease")
	if err != nil {
		t.Fatal(err)
	}
	sw, err := pkg.Switch(named, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for path, src := range sw.Files {
		for _, m := range ms {
			if strings.Contains(string(src), strconv.Quote(m.ID)) {
				t.Errorf("%s names %s", filepath.Base(path), m.ID)
			}
		}
	}
	got := byID(sw, names)
	if len(got.Included) != len(ms) || got.Included[0] != ms[0].ID {
		t.Errorf("switched in, by id: %v; want every mutant, %s first", got.Included, ms[0].ID)
	}
	sb := &switchedBuild{sw: got, names: names, none: none}
	want := len(sb.env("")[0])
	for _, m := range ms {
		if env := sb.env(m.ID); len(env[0]) != want || strings.Contains(env[0], m.ID) {
			t.Errorf("the environment of %s is %q; want %d bytes, as the reference's, and no id", m.ID, env, want)
		}
	}
	if ids := sb.ids([]string{names[ms[1].ID], "unknown", names[ms[0].ID]}); !slices.Equal(ids, []string{ms[1].ID, ms[0].ID}) {
		t.Errorf("ids of two names and an unknown one = %v", ids)
	}

	plain, names, none, err := switchNames(config{Mutants: ms})
	if err != nil || none != "" || names[ms[0].ID] != ms[0].ID || plain[0] != ms[0] {
		t.Errorf("a run that is not blind names its mutants %v, the reference %q (err %v); want by their ids, and \"\"", names, none, err)
	}
}
