package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// canned is a Runner that builds nothing and answers every run of a test
// binary with canned events, by the active mutant ("" for the baseline and
// the switched build with none active).
type canned struct {
	events map[string]string // active mutant: test2json events
	// respond, if set, answers a run first: its events, by the active
	// mutant, the flags, and how many runs with both came before; ok
	// false leaves the run to events. A last line "TIMEOUT" makes the
	// run one that its limit stopped.
	respond func(active string, args []string, n int) (events string, ok bool)
	seen    map[string]int // runs by active mutant and flags
	// reach lists, by test, the mutants whose sites a coverage run of that
	// test reports.
	reach map[string][]string
	// cpu gives, by active mutant, the CPU time its runs use: a run whose
	// CPU limit is lower is stopped at it, in its first test.
	cpu map[string]time.Duration
	// onExec, if set, is called with each run before it is answered.
	onExec func(e gotest.Exec, active string)

	// peak is the memory the baseline's runs hold (the reference with
	// no mutant active).
	peak int64

	mu     sync.Mutex
	builds int
	flags  [][]string      // the build flags of each build
	runs   []string        // the active mutant of each run, in order
	limits []time.Duration // the CPU limit of each run, in order
	execs  []gotest.Exec   // each run, in order
}

func (c *canned) Build(ctx context.Context, comp gotest.Compile, out string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.builds++
	c.flags = append(c.flags, comp.Flags)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	// A binary to link into the runs' sandboxes; it never runs.
	if err := os.WriteFile(out, []byte("canned"), 0o755); err != nil {
		return err
	}
	return ctx.Err()
}

func (c *canned) Exec(ctx context.Context, e gotest.Exec) (*gotest.Result, error) {
	active, cover := "", ""
	for _, kv := range e.Env {
		if v, ok := strings.CutPrefix(kv, mutation.SwitchEnv+"="); ok {
			active = v
		}
		if v, ok := strings.CutPrefix(kv, mutation.CoverEnv+"="); ok {
			cover = v
		}
	}
	if cover != "" {
		for _, arg := range e.Args {
			test := strings.TrimSuffix(strings.TrimPrefix(arg, "-test.run=^(?:"), ")$")
			if err := os.WriteFile(cover, []byte(strings.Join(c.reach[test], "\n")), 0o644); err != nil {
				return nil, err
			}
		}
	}
	if c.onExec != nil {
		c.onExec(e, active)
	}
	c.mu.Lock()
	c.runs = append(c.runs, active)
	c.limits = append(c.limits, e.CPULimit)
	c.execs = append(c.execs, e)
	key := active + " " + strings.Join(e.Args, " ")
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	n := c.seen[key]
	c.seen[key]++
	c.mu.Unlock()
	events, ok := "", false
	if c.respond != nil {
		events, ok = c.respond(active, e.Args, n)
	}
	if !ok {
		if events, ok = c.events[active]; !ok {
			events = c.events[""]
		}
	}
	events, timedOut := strings.CutSuffix(events, "TIMEOUT\n")
	events, overMemory := strings.CutSuffix(events, "OVERMEMORY\n")
	events, lost := strings.CutSuffix(events, "LOST\n")
	need := c.cpu[active]
	overCPU := e.CPULimit > 0 && need > e.CPULimit
	if overCPU {
		events, _, _ = strings.Cut(events, "\n")
		need = e.CPULimit
	}
	res, err := gotest.Parse(strings.NewReader(events))
	if err != nil {
		return nil, err
	}
	res.CPU = need.Seconds()
	if active == "" {
		res.PeakMemory = c.peak
	}
	switch {
	case lost:
		res.Lost, res.ExitCode, res.Signal = "the sandbox's init ended before the program it ran", -1, "killed"
	case overMemory:
		res.TimedOut, res.OverMemory, res.ExitCode, res.Signal, res.PeakMemory = true, true, -1, "killed", e.Memory+1
	case overCPU:
		res.TimedOut, res.OverCPU, res.ExitCode, res.Signal = true, true, -1, "killed"
	case timedOut:
		res.TimedOut, res.ExitCode, res.Signal = true, -1, "killed"
	case !res.Passed:
		res.ExitCode = 1
	}
	return res, ctx.Err()
}

const passAB = `{"Action":"run","Test":"TestMax"}
{"Action":"pass","Test":"TestMax"}
{"Action":"run","Test":"TestDouble"}
{"Action":"pass","Test":"TestDouble"}
{"Action":"run","Test":"TestSize"}
{"Action":"pass","Test":"TestSize"}
{"Action":"pass"}
`

func cannedRunner() *canned {
	return &canned{reach: map[string][]string{"TestMax": {"flipped", "same"}}, events: map[string]string{
		"": passAB,
		"flipped": `{"Action":"run","Test":"TestMax"}
{"Action":"output","Test":"TestMax","Output":"    calc_test.go:6: Max(1, 2) = 1\n"}
{"Action":"fail","Test":"TestMax"}
{"Action":"run","Test":"TestDouble"}
{"Action":"pass","Test":"TestDouble"}
{"Action":"run","Test":"TestSize"}
{"Action":"pass","Test":"TestSize"}
{"Action":"fail"}
`,
	}}
}

// The harness's logic runs on canned events: one switched build holds the
// mutants, each runs once, and its verdict comes from its events. The
// mutants are generated ones, so coverage runs first (one per test), and a
// mutant whose site no test reaches is not-covered and does not run.
// ("same" compiles to the reference's code: trivial compiler equivalence
// is off, for it to run.)
func TestRun_VerdictsFromCannedEvents(t *testing.T) {
	ms := []*mutation.Mutant{
		{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation},
		{ID: "same", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "b < a", Operator: mutation.OpNegation},
		{ID: "unreached", Target: "Double", Kind: mutation.Expr, Find: "x * 2", Replace: "x * 3", Operator: mutation.OpArithmetic},
	}
	r := cannedRunner()
	cfg := testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Jobs: 2, NoCache: true, NoTCE: true, Runner: r}
	rep, err := cfg.run(t)
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	checkMutants(t, rep, []report.Mutant{
		{ID: "flipped", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}},
		{ID: "same", Status: report.Survived, Build: ModeSwitch, FailedTests: []string{}},
		{ID: "unreached", Status: report.NotCovered, Build: ModeSwitch, FailedTests: []string{}},
	})
	if got := rep.Mutants[0].Failures[0].Message; got != "calc_test.go:6: Max(1, 2) = 1" {
		t.Errorf("message = %q", got)
	}
	// What the verdicts rest on, not how many reference runs the policy
	// makes: two builds (plain, switched); the killer's failure was a run
	// of it alone, its own confirmation, so each covered mutant ran once,
	// and the mutant no test reaches never ran.
	if r.builds != 2 {
		t.Errorf("%d builds, want 2 (plain, switched)", r.builds)
	}
	for id, want := range map[string]int{"flipped": 1, "same": 1, "unreached": 0} {
		if got := r.count(id); got != want {
			t.Errorf("%d runs under %s, want %d (runs %q)", got, id, want, r.runs)
		}
	}
	if got := rep.Mutants[1].CoveredBy; !slices.Equal(got, []string{"TestMax"}) {
		t.Errorf("CoveredBy = %v, want [TestMax]", got)
	}
}

// Test binaries link without DWARF, which nothing reads, unless the user's
// GOFLAGS says how to link.
func TestBuild_NoDWARFUnlessGOFLAGSSetsLdflags(t *testing.T) {
	ms := []*mutation.Mutant{{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"}}
	for _, tc := range []struct {
		goflags string
		want    bool
	}{{"", true}, {"-mod=mod", true}, {"-ldflags=-X=main.version=1", false}} {
		t.Run(tc.goflags, func(t *testing.T) {
			t.Setenv("GOFLAGS", tc.goflags)
			r := cannedRunner()
			cfg := testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Jobs: 1, NoCache: true, Runner: r, Mode: ModeOverlay}
			if _, err := cfg.run(t); err != nil {
				t.Fatalf("Run() error = %v", err)
			}
			if len(r.flags) != 2 {
				t.Fatalf("%d builds, want 2 (the baseline's, the mutant's)", len(r.flags))
			}
			for _, flags := range r.flags {
				if got := slices.Contains(flags, "-ldflags=-w"); got != tc.want {
					t.Errorf("GOFLAGS=%q: build flags %q; -ldflags=-w among them: %v, want %v", tc.goflags, flags, got, tc.want)
				}
			}
		})
	}
}

// An error of the after-baseline hook stops the run before any mutant.
func TestRun_AfterBaselineStopsTheRun(t *testing.T) {
	ms := []*mutation.Mutant{{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"}}
	r := cannedRunner()
	stop := errors.New("a misspelt subtest")
	var seen []string
	cfg := testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Jobs: 1, NoCache: true, Runner: r,
		AfterBaseline: func(tests []string) error { seen = tests; return stop }}
	if _, err := cfg.run(t); !errors.Is(err, stop) {
		t.Fatalf("Run() error = %v, want the hook's", err)
	}
	if strings.Join(seen, ",") != "TestDouble,TestMax,TestSize" {
		t.Errorf("the hook saw %v, want the baseline's tests", seen)
	}
	if slices.Contains(r.runs, "flipped") {
		t.Errorf("runs = %q: a mutant ran after the hook failed", r.runs)
	}
}

// A test binary that the mutants share, written while a mutant ran (as
// a mutant's run without a sandbox could), stops the run: no verdict of
// it can be trusted.
func TestRun_ASharedBinaryWrittenByAMutantStopsTheRun(t *testing.T) {
	ms := []*mutation.Mutant{{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"}}
	r := cannedRunner()
	var once sync.Once
	r.onExec = func(e gotest.Exec, active string) {
		if active == "flipped" {
			once.Do(func() {
				f, err := os.OpenFile(e.Binary, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Errorf("open the binary: %v", err)
					return
				}
				defer f.Close()
				f.WriteString("written")
			})
		}
	}
	cfg := testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Jobs: 1, NoCache: true, Runner: r}
	_, err := cfg.run(t)
	if err == nil || !strings.Contains(err.Error(), "changed while mutant flipped ran; no verdict of this run can be trusted") {
		t.Fatalf("Run() error = %v, want the binary changed while mutant flipped ran", err)
	}
}

// An unchanged tree is answered from the cache: nothing is built or run,
// and the hook still sees the baseline's tests.
func TestRun_UnchangedTreeFromTheCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cache of its own
	ms := []*mutation.Mutant{{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"}}
	dir := writeModule(t)
	first := cannedRunner()
	cfg := testRun{Dir: dir, Package: ".", Mutants: ms, Jobs: 1, Runner: first}
	if _, err := cfg.run(t); err != nil {
		t.Fatal(err)
	}
	again := cannedRunner()
	var seen []string
	cfg.Runner, cfg.AfterBaseline = again, func(tests []string) error { seen = tests; return nil }
	rep, err := cfg.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Cached || again.builds != 0 || len(again.runs) != 0 {
		t.Fatalf("second run: cached %v, %d builds, runs %q; want all from the cache", rep.Cached, again.builds, again.runs)
	}
	if len(seen) != 3 {
		t.Errorf("the hook saw %v, want the cached baseline's 3 tests", seen)
	}
	checkMutants(t, rep, []report.Mutant{{ID: "flipped", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}}})
}

// Each mutant's result is cached on its own: a run that adds a mutant to
// those that ran on the same tree runs that one only.
func TestRun_OnlyTheMutantsTheCacheLacksRun(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cache of its own
	flipped := &mutation.Mutant{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"}
	same := &mutation.Mutant{ID: "same", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "b < a"}
	dir := writeModule(t)
	first := cannedRunner()
	cfg := testRun{Dir: dir, Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, Runner: first}
	if _, err := cfg.run(t); err != nil {
		t.Fatal(err)
	}

	again := cannedRunner()
	cfg.Mutants, cfg.Runner = []*mutation.Mutant{same, flipped}, again
	rep, err := cfg.run(t)
	if err != nil {
		t.Fatal(err)
	}
	// Catalog mutants run every test: no coverage runs.
	slices.Sort(again.runs)
	if rep.Cached || strings.Join(again.runs, ",") != ",,,,same" {
		t.Fatalf("cached %v, runs %q; want the baseline, the inactive run and its run for trust, the new mutant's run and the reference after it only", rep.Cached, again.runs)
	}
	checkMutants(t, rep, []report.Mutant{
		{ID: "same", Status: report.Survived, Build: ModeSwitch, FailedTests: []string{}},
		{ID: "flipped", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}},
	})
	if rep.Summary().Count(report.Killed) != 1 || rep.Summary().Count(report.Survived) != 1 {
		t.Errorf("Summary = %+v", rep.Summary())
	}
}
