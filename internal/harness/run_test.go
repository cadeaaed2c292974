package harness

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/sandbox"
)

// canned is a Runner that builds nothing and answers every run of a test
// binary with canned events, by the active mutant ("" for the baseline and
// the switched build with none active).
type canned struct {
	events map[string]string // active mutant: test2json events
	// respond, if set, answers a run first: its events, by the active
	// mutant, the flags, and how many runs with both came before; ok
	// false leaves the run to events. A last line "TIMEOUT" makes the
	// run one that its limit stopped; "HUNG", one stopped with no event
	// since its start.
	respond func(active string, args []string, n int) (events string, ok bool)
	// respondExec, if set, answers a run before respond, knowing all of
	// it: its binary, environment, flags and limits.
	respondExec func(e gotest.Exec, active string, n int) (events string, ok bool)
	seen        map[string]int // runs by active mutant and flags
	// reach lists, by test, the mutants whose sites a coverage run of that
	// test reports; nil: every test reaches every site the switched build
	// marks (marked), as a suite of tests that each call every function.
	reach  map[string][]string
	marked []string
	// cpu gives, by active mutant, the CPU time its runs use: a run whose
	// CPU limit is lower is stopped at it, in its first test.
	cpu map[string]time.Duration
	// onExec, if set, is called with each run before it is answered.
	onExec func(e gotest.Exec, active string)

	// peak is the memory the baseline's runs hold (the reference with
	// no mutant active).
	peak int64
	// byCode, if set, tells a mutant's run from what its binary holds
	// (the sources it was built with): the mutant whose text is in it,
	// by id. A binary built with an overlay holds its sources.
	byCode map[string]string

	mu     sync.Mutex
	builds int
	flags  [][]string      // the build flags of each build
	kept   []string        // the Keep of each build
	runs   []string        // the active mutant of each run, in order
	limits []time.Duration // the CPU limit of each run, in order
	execs  []gotest.Exec   // each run, in order
}

// markedSite is a switched build's record that a site is reached.
var markedSite = regexp.MustCompile(`mutateOn\("([^"]+)"\)`)

func (c *canned) Build(ctx context.Context, comp gotest.Compile, out string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.builds++
	c.flags = append(c.flags, comp.Flags)
	c.kept = append(c.kept, comp.Keep)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	// A binary to link into the runs' sandboxes; it never runs. It holds
	// the sources overlaid, for byCode.
	bin := "canned\n"
	for _, flag := range comp.Flags {
		if overlay, ok := strings.CutPrefix(flag, "-overlay="); ok {
			data, err := os.ReadFile(overlay)
			if err != nil {
				return err
			}
			var o struct{ Replace map[string]string }
			if err := json.Unmarshal(data, &o); err != nil {
				return err
			}
			for _, file := range o.Replace {
				src, err := os.ReadFile(file)
				if err != nil {
					return err
				}
				bin += string(src)
				for _, m := range markedSite.FindAllStringSubmatch(string(src), -1) {
					c.marked = append(c.marked, m[1])
				}
			}
		}
	}
	if err := os.WriteFile(out, []byte(bin), 0o755); err != nil {
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
			reached := c.reach[test]
			if c.reach == nil {
				c.mu.Lock()
				reached = slices.Clone(c.marked)
				c.mu.Unlock()
			}
			if err := os.WriteFile(cover, []byte(strings.Join(reached, "\n")), 0o644); err != nil {
				return nil, err
			}
		}
	}
	if active == "" && c.byCode != nil {
		bin, err := os.ReadFile(e.Binary)
		if err != nil {
			return nil, err
		}
		for id, code := range c.byCode {
			if strings.Contains(string(bin), code) {
				active = id
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
	if c.respondExec != nil {
		events, ok = c.respondExec(e, active, n)
	}
	if !ok && c.respond != nil {
		events, ok = c.respond(active, e.Args, n)
	}
	if !ok {
		if events, ok = c.events[active]; !ok {
			events = c.events[""]
		}
	}
	events, hung := strings.CutSuffix(events, "HUNG\n") // a timeout with no event since its start
	events, timedOut := strings.CutSuffix(events, "TIMEOUT\n")
	timedOut = timedOut || hung
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
		if hung {
			res.Idle = e.Timeout.Seconds()
		}
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

// Test binaries link without a symbol table or DWARF, which nothing
// reads, unless the user's GOFLAGS says how to link.
func TestBuild_NoSymbolsUnlessGOFLAGSSetsLdflags(t *testing.T) {
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
				if got := slices.Contains(flags, "-ldflags=-s -w"); got != tc.want {
					t.Errorf("GOFLAGS=%q: build flags %q; -ldflags=-s -w among them: %v, want %v", tc.goflags, flags, got, tc.want)
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
// it can be trusted. A write that moves its size is seen after that
// mutant. One with its size and modification time put back, as only its
// owner could, escapes the check after each mutant (a run's link to the
// binary moves its change time, so that check leaves the change time
// out), and not the one after the last, which reads every binary again
// before any verdict counts.
func TestRun_ASharedBinaryWrittenByAMutantStopsTheRun(t *testing.T) {
	// As its owner may, the writer lets itself write the binary first
	// (root needs not): an ordinary user runs this test too.
	writable := func(path string) error { return os.Chmod(path, 0o755) }
	appended := func(path string) error {
		if err := writable(path); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString("written")
		return err
	}
	timePutBack := func(path string) error {
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		if err := writable(path); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteAt([]byte("X"), 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := os.Chmod(path, info.Mode()); err != nil {
			return err
		}
		return os.Chtimes(path, info.ModTime(), info.ModTime())
	}
	for _, tc := range []struct {
		name  string
		write func(path string) error
		want  string
	}{
		{"Appended", appended, "changed while mutant flipped ran; no verdict of this run can be trusted"},
		{"TimePutBack", timePutBack, "changed while the mutants ran; no verdict of this run can be trusted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := []*mutation.Mutant{{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"}}
			r := cannedRunner()
			var once sync.Once
			r.onExec = func(e gotest.Exec, active string) {
				if active == "flipped" {
					once.Do(func() {
						if err := tc.write(e.Binary); err != nil {
							t.Errorf("write the binary: %v", err)
						}
					})
				}
			}
			cfg := testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Jobs: 1, NoCache: true, Runner: r}
			if _, err := cfg.run(t); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run() error = %v, want %q", err, tc.want)
			}
		})
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

// runDirPath is the working directory of a run: the package's copy in a
// run directory of a random name.
var runDirPath = regexp.MustCompile(`/runs/[0-9]+/mod$`)

// A blind run, of a learner's tests, names its mutant nowhere a test could
// look: every mutant has a build of its own, made as the reference's is,
// without symbols, and kept nowhere; no run carries a variable or a file
// beside its binary about its mutant, and none runs in a directory named
// after what it runs; every build is -trimpath, so that no trace names a
// directory of the grader's; the environment is the run's own and a few neutral
// settings; the directories to hide are covered. The verdicts come from
// the code alone.
func TestRun_BlindNamesNoMutant(t *testing.T) {
	sandbox.Need(t, sandbox.Namespaces)
	t.Setenv("GRADER_TOKEN", "s3cret")
	ms := []*mutation.Mutant{
		{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"},
		{ID: "doubled", Target: "Double", Kind: mutation.Expr, Find: "x * 2", Replace: "x * 3"},
	}
	r := cannedRunner()
	r.byCode = map[string]string{"flipped": "a < b"}
	hidden := t.TempDir()
	var mu sync.Mutex
	var sides []string
	r.onExec = func(e gotest.Exec, active string) {
		entries, _ := os.ReadDir(filepath.Dir(e.Binary))
		mu.Lock()
		defer mu.Unlock()
		for _, entry := range entries {
			if entry.Name() != filepath.Base(e.Binary) {
				sides = append(sides, entry.Name())
			}
		}
	}
	run := testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Jobs: 2, NoCache: true, Runner: r}
	opt := run.options()
	opt.Blind, opt.Hide = true, []string{hidden}
	rep, err := Run(t.Context(), run.plan(t), opt)
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	checkMutants(t, rep, []report.Mutant{
		{ID: "flipped", Status: report.Killed, Build: ModeOverlay, FailedTests: []string{"TestMax"}},
		{ID: "doubled", Status: report.Survived, Build: ModeOverlay, FailedTests: []string{}},
	})
	if r.builds != 3 {
		t.Errorf("%d builds, want 3: the reference's and each mutant's", r.builds)
	}
	for i, flags := range r.flags {
		if !slices.Contains(flags, "-ldflags=-s -w") || !slices.Contains(flags, "-trimpath") || r.kept[i] != "" {
			t.Errorf("build %d: flags %q, kept at %q; want -ldflags=-s -w and -trimpath, kept nowhere", i, flags, r.kept[i])
		}
	}
	if len(sides) > 0 {
		t.Errorf("files beside the test binaries: %q, want none", sides)
	}
	allowed := []string{"HOME", "TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "PATH", "LANG", "LANGUAGE", "TZ"}
	for i, e := range r.execs {
		if !e.Clean {
			t.Errorf("run %d: the environment is mutate's too, want the run's alone", i)
		}
		for _, kv := range e.Env {
			if k, _, _ := strings.Cut(kv, "="); !slices.Contains(allowed, k) && !strings.HasPrefix(k, "LC_") {
				t.Errorf("run %d: %s in its environment", i, kv)
			}
		}
		if !runDirPath.MatchString(e.Dir) {
			t.Errorf("run %d: in %s, want a directory of a random number under runs/", i, e.Dir)
		}
		for _, word := range []string{"mutant", "baseline", "reference", "flipped", "doubled"} {
			if strings.Contains(e.Dir, word) {
				t.Errorf("run %d: its directory %s says %q", i, e.Dir, word)
			}
		}
		if e.Isolate == nil || !slices.Contains(e.Isolate.Private, hidden) {
			t.Errorf("run %d: sandbox %+v, want %s covered", i, e.Isolate, hidden)
		}
	}
}

// With Options.First, one baseline serves two stages: the mutants First
// picks run, Next reads their verdicts, and the others run only if it
// says so; those that do not are left out of the report, and nothing of
// them is built.
func TestRun_FirstStageDecidesWhetherTheOthersRun(t *testing.T) {
	sandbox.Need(t, sandbox.Namespaces)
	ms := []*mutation.Mutant{
		{ID: "doubled", Target: "Double", Kind: mutation.Expr, Find: "x * 2", Replace: "x * 3"},
		{ID: "tripled", Target: "Double", Kind: mutation.Expr, Find: "x * 2", Replace: "x * 4"},
		{ID: "flipped", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b"},
	}
	for _, tc := range []struct {
		name   string
		next   bool
		builds int
		want   []report.Mutant
	}{
		{"Stop", false, 2, []report.Mutant{
			{ID: "flipped", Status: report.Killed, Build: ModeOverlay, FailedTests: []string{"TestMax"}},
		}},
		{"Go on", true, 4, []report.Mutant{
			{ID: "doubled", Status: report.Survived, Build: ModeOverlay, FailedTests: []string{}},
			{ID: "tripled", Status: report.Survived, Build: ModeOverlay, FailedTests: []string{}},
			{ID: "flipped", Status: report.Killed, Build: ModeOverlay, FailedTests: []string{"TestMax"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cannedRunner()
			r.byCode = map[string]string{"flipped": "a < b"}
			run := testRun{Dir: writeModule(t), Package: ".", Mutants: ms, Jobs: 2, NoCache: true, Runner: r}
			opt := run.options()
			opt.Blind = true
			var seen [][]string
			opt.First = func(m *mutation.Mutant) bool { return m.ID == "flipped" }
			opt.Next = func(rep *report.Report) bool {
				var got []string
				for _, m := range rep.Mutants {
					got = append(got, m.ID+" "+string(m.Status))
				}
				seen = append(seen, got)
				return tc.next
			}
			rep, err := Run(t.Context(), run.plan(t), opt)
			if err != nil {
				t.Fatalf("Run() error = %v", err)
			}
			if len(rep.Mutants) != len(tc.want) {
				t.Fatalf("%d mutants in the report, want %d: those that ran, no more", len(rep.Mutants), len(tc.want))
			}
			checkMutants(t, rep, tc.want)
			if want := [][]string{{"flipped killed"}}; !slices.EqualFunc(seen, want, slices.Equal) {
				t.Errorf("Next saw %q, want %q: the first stage's verdicts, once", seen, want)
			}
			if r.builds != tc.builds {
				t.Errorf("%d builds, want %d: the reference's once, and each mutant's that runs", r.builds, tc.builds)
			}
		})
	}
}

// The stages of a run: every mutant at once, or those First picks, then
// the others; always one at least, whose end runs the reference again.
func TestStagesOf(t *testing.T) {
	applied := func(ids ...string) []*mutation.Applied {
		var as []*mutation.Applied
		for _, id := range ids {
			as = append(as, &mutation.Applied{Mutant: &mutation.Mutant{ID: id}})
		}
		return as
	}
	wheat := func(m *mutation.Mutant) bool { return strings.HasPrefix(m.ID, "w") }
	for _, tc := range []struct {
		name  string
		first func(*mutation.Mutant) bool
		ms    []*mutation.Applied
		want  [][]int
	}{
		{"NoMutant", nil, nil, [][]int{nil}},
		{"NoMutantStaged", wheat, nil, [][]int{nil}},
		{"Unstaged", nil, applied("c1", "w1", "c2"), [][]int{{0, 1, 2}}},
		{"Staged", wheat, applied("c1", "w1", "c2", "w2"), [][]int{{1, 3}, {0, 2}}},
		{"OnlyFirst", wheat, applied("w1", "w2"), [][]int{{0, 1}}},
		{"NoneFirst", wheat, applied("c1", "c2"), [][]int{{0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := stagesOf(config{Options: Options{First: tc.first}}, tc.ms)
			if !slices.EqualFunc(got, tc.want, slices.Equal) || len(got) != len(tc.want) {
				t.Errorf("stagesOf() = %v, want %v", got, tc.want)
			}
		})
	}
}

// A first stage must come from the run itself: not from the cache, not
// from -full's judgment of equivalents before any run.
func TestRun_FirstNeedsNoCacheAndNoFull(t *testing.T) {
	for _, opt := range []Options{{First: func(*mutation.Mutant) bool { return true }}, {First: func(*mutation.Mutant) bool { return true }, NoCache: true, Full: true}} {
		_, err := Run(t.Context(), &exercise.Plan{}, opt)
		if err == nil || !strings.Contains(err.Error(), "Options.First needs NoCache, and no Full") {
			t.Errorf("Run(NoCache %v, Full %v) error = %v, want the refusal", opt.NoCache, opt.Full, err)
		}
	}
}
