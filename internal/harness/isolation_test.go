package harness

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/sandbox"
)

// Where test binaries cannot run in sandboxes, a run that must run one
// refuses, says why and names the flag that runs them without; a run the
// cache answers (made where there were sandboxes) runs nothing, and needs
// none. With -no-sandbox, the run says it ran so, and caches nothing.
func TestRun_RefusesWithoutSandboxesUnlessTold(t *testing.T) {
	defer func(old func() (bool, string)) { sandboxAvailable = old }(sandboxAvailable)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cache of its own
	dir := writeModule(t)
	run := testRun{Dir: dir, Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, Runner: cannedRunner()}

	sandboxAvailable = func() (bool, string) { return false, "user namespaces are disabled" }
	_, err := run.run(t)
	if !errors.Is(err, ErrNoSandbox) || !strings.Contains(err.Error(), "user namespaces are disabled") || !strings.Contains(err.Error(), "-no-sandbox runs them without") {
		t.Fatalf("Run(cold cache) error = %v; want ErrNoSandbox, saying why and naming -no-sandbox", err)
	}

	sandboxAvailable = func() (bool, string) { return true, "" }
	fresh := prepareAndRun(t, run)
	sandboxAvailable = func() (bool, string) { return false, "user namespaces are disabled" }
	r := cannedRunner()
	run.Runner = r
	cached, err := run.run(t)
	if err != nil || !cached.Cached || len(r.execs) != 0 || cached.Mutants[0].Status != fresh.Mutants[0].Status {
		t.Fatalf("Run(warm cache, no sandbox) = cached %v, %d runs, %v; want the cache's %s, nothing run", cached != nil && cached.Cached, len(r.execs), err, fresh.Mutants[0].Status)
	}
	if _, err := TestNames(t.Context(), run.plan(t), run.options()); err != nil {
		t.Errorf("TestNames(warm cache, no sandbox) error = %v; want the cache's names", err)
	}

	r = cannedRunner()
	run.Runner = r
	opt := run.options()
	opt.NoSandbox = true
	for i := range 2 {
		rep, err := Run(t.Context(), run.plan(t), opt)
		if err != nil {
			t.Fatalf("Run(-no-sandbox) error = %v", err)
		}
		if rep.Isolation != report.IsolationReduced || rep.Cached {
			t.Fatalf("run %d: isolation %q, cached %v; want reduced, and nothing from the cache", i+1, rep.Isolation, rep.Cached)
		}
	}
	for _, e := range r.execs {
		if e.Isolate != nil {
			t.Fatalf("a run of %v in a sandbox under -no-sandbox", e.Args)
		}
	}
}

// In a sandbox, a test binary has a network of its own unless -network
// lets it use the host's, cannot see the other runs' directories, and has
// a memory limit, which bounds its private directories too: before the
// baseline a quarter of the machine's memory (at least MemoryFloor), after
// it ten times the baseline's peak (at least MemoryFloor).
func TestRun_EachTestBinaryInASandboxOfItsOwn(t *testing.T) {
	sandbox.Need(t, sandbox.Namespaces)
	for _, network := range []bool{false, true} {
		r := cannedRunner()
		r.peak = 300 << 20
		opt := testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, NoCache: true, Runner: r}
		o := opt.options()
		o.Network = network
		rep, err := Run(t.Context(), opt.plan(t), o)
		if err != nil {
			t.Fatalf("Run() error = %v", err)
		}
		if rep.Isolation != report.IsolationFull || rep.MemoryLimit != 3000<<20 {
			t.Errorf("isolation %q, memory limit %d; want full, 10x the peak of 300 MiB", rep.Isolation, rep.MemoryLimit)
		}
		for i, e := range r.execs {
			spec := e.Isolate
			if spec == nil {
				t.Fatalf("run %d (%v) has no sandbox", i, e.Args)
			}
			if spec.HostNetwork != network {
				t.Errorf("run %d: host network %v, want %v", i, spec.HostNetwork, network)
			}
			// The run directory is read-only, its copy of the package
			// the sandbox's own; its finished profile the one file it
			// writes of the host's. The scratch directory, which holds
			// the other runs', is private.
			runDir := spec.ReadOnly[0]
			if len(spec.Writable) != 0 || !slices.Equal(spec.Copies, []string{filepath.Join(runDir, "mod")}) ||
				!slices.Equal(spec.Files, []string{e.Finished}) || filepath.Dir(e.Finished) != runDir {
				t.Errorf("run %d: writable %v, copies %v, files %v; want none, the package's mirror in %s, the finished profile", i, spec.Writable, spec.Copies, spec.Files, runDir)
			}
			if !slices.ContainsFunc(spec.Private, func(dir string) bool {
				return strings.HasPrefix(runDir, dir+"/") && strings.Contains(dir, "mutate-")
			}) {
				t.Errorf("run %d: private %v; want the scratch directory that holds %s among them", i, spec.Private, runDir)
			}
			if e.Memory < MemoryFloor || spec.PrivateSize != e.Memory {
				t.Errorf("run %d: memory %d, private size %d; want at least %d, the same for both", i, e.Memory, spec.PrivateSize, MemoryFloor)
			}
		}
		if last := r.execs[len(r.execs)-1]; last.Memory != 3000<<20 {
			t.Errorf("after the baseline, memory limit %d; want %d", last.Memory, 3000<<20)
		}
	}
}

// A mutant that holds more memory than its limit is stopped there:
// out-of-memory, detected, never cached.
func TestRun_AMutantOverItsMemoryLimitIsOutOfMemory(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cache of its own
	r := &canned{events: map[string]string{"": suiteRun(), "m": `{"Action":"run","Test":"TestMax"}` + "\nOVERMEMORY\n"}}
	dir := writeModule(t)
	for range 2 {
		rep := prepareAndRun(t, testRun{Dir: dir, Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, Runner: r})
		m := rep.Mutants[0]
		if m.Status != report.OutOfMemory || !strings.HasPrefix(m.Reason, "stopped at its memory limit, holding ") || !m.Status.Detected() {
			t.Fatalf("status %s, reason %q; want out-of-memory, detected, stopped at the limit", m.Status, m.Reason)
		}
		if rep.Cached {
			t.Fatal("an out-of-memory verdict came from the cache")
		}
	}
}

// A run whose sandbox's init was killed from outside runs once more; lost
// twice, the mutant crashed.
func TestRun_ARunLostToItsSandboxRunsAgain(t *testing.T) {
	lost := `{"Action":"run","Test":"TestMax"}` + "\nLOST\n"
	r := &canned{events: map[string]string{"": suiteRun()}, respond: func(active string, args []string, n int) (string, bool) {
		switch {
		case active == "m" && n == 0:
			return lost, true // lost once: runs again
		case active == "n":
			return lost, true // always lost
		}
		return "", false
	}}
	twice := &mutation.Mutant{ID: "n", Target: "Double", Kind: mutation.Expr, Find: "x * 2", Replace: "x * 3"}
	rep := runCanned(t, r, flipped, twice)
	checkMutants(t, rep, []report.Mutant{
		{ID: "m", Status: report.Survived, Build: ModeSwitch, FailedTests: []string{}},
		{ID: "n", Status: report.Crashed, Build: ModeSwitch, FailedTests: []string{}},
	})
	if got := rep.Mutants[1].Reason; !strings.Contains(got, "killed from outside, twice") {
		t.Errorf("reason %q, want it to say the sandbox was killed from outside, twice", got)
	}
}

// A test that fails alone with and without the mutant is tried again in
// its grouping, against a run of the reference in the same grouping made
// now, not the baseline's: what the test meets now (a port another
// process holds, say), it meets without the mutant too, and that is no
// kill.
func TestConfirm_TheGroupingIsComparedWithAFreshReferenceRun(t *testing.T) {
	var held atomic.Bool // by another process, while the mutant's run ran
	r := &canned{events: map[string]string{"": suiteRun()}, respond: func(active string, args []string, n int) (string, bool) {
		switch {
		case len(args) == 1 && args[0] == alone("TestSize"):
			return suiteRun("TestSize"), true // alone, it always fails
		case active == "m" && len(args) == 0:
			held.Store(n == 1) // its run in the grouping, to confirm
			return suiteRun("TestSize"), true
		case active == "" && len(args) == 0 && held.Swap(false):
			return suiteRun("TestSize"), true // the reference, run next, fails too
		}
		return "", false
	}}
	rep := runCanned(t, r, flipped)
	if m := rep.Mutants[0]; m.Status == report.Killed {
		t.Fatalf("status killed by %v; want no kill: the reference, run now, fails alike", m.FailedTests)
	}
}

// The memory limit: the flag's when set (none for a negative one); else
// ten times the baseline's peak, at least MemoryFloor, and at most its
// share of half the machine's memory among the jobs (here 2) unless twice
// the peak is more.
func TestMemoryLimit_TenTimesThePeakWithinTheMachinesShare(t *testing.T) {
	quarter := gotest.MachineMemory() / 4
	for _, tc := range []struct {
		opt  int64
		peak int64
		want int64
	}{
		{opt: 2 << 30, peak: 1 << 20, want: 2 << 30},
		{opt: -1, peak: 1 << 20, want: 0},
		{peak: 10 << 20, want: MemoryFloor},
		{peak: 200 << 20, want: max(MemoryFloor, min(2000<<20, quarter))},
		{peak: quarter, want: max(MemoryFloor, 2*quarter)},
	} {
		if got := memoryLimit(Options{Memory: tc.opt, Jobs: 2}, tc.peak); got != tc.want {
			t.Errorf("memoryLimit(-memory %d, peak %d) = %d, want %d", tc.opt, tc.peak, got, tc.want)
		}
	}
	if got, want := baselineMemory(Options{}), max(MemoryFloor, quarter); got != want {
		t.Errorf("baselineMemory() = %d, want %d", got, want)
	}
}
