package harness

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/sandbox"
)

// hostOffers makes checkSandbox offer the tiers of tiers alone, the others
// refused, until the test ends.
func hostOffers(t *testing.T, tiers ...sandbox.Tier) {
	old := checkSandbox
	t.Cleanup(func() { checkSandbox = old })
	checkSandbox = func(tier sandbox.Tier) error {
		if slices.Contains(tiers, tier) {
			return nil
		}
		return fmt.Errorf("%s are refused here", tier)
	}
}

// withProgress returns o with its progress written to a buffer, which it
// returns.
func withProgress(o Options) (Options, *strings.Builder) {
	var b strings.Builder
	o.Progress = progress.New(&b, false)
	return o, &b
}

// Where test binaries cannot run in sandboxes, a run that must run one
// refuses, says why for each tier and names the ways out, the flag that
// runs them without among them; a run the cache answers (made where there
// were sandboxes) runs nothing, and needs none. With -sandbox=none, the
// run says it ran so, and caches nothing.
func TestRun_RefusesWithoutSandboxesUnlessTold(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cache of its own
	dir := writeModule(t)
	run := testRun{Dir: dir, Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, Runner: cannedRunner()}

	hostOffers(t)
	_, err := run.run(t)
	for _, want := range []string{"namespaces: namespaces are refused here; landlock: landlock are refused here", "kernel.apparmor_restrict_unprivileged_userns", "lsm=", "-sandbox=none runs them without"} {
		if !errors.Is(err, ErrNoSandbox) || !strings.Contains(err.Error(), want) {
			t.Fatalf("Run(cold cache) error = %v; want ErrNoSandbox, saying %q", err, want)
		}
	}

	hostOffers(t, sandbox.Namespaces)
	fresh := prepareAndRun(t, run)
	hostOffers(t)
	r := cannedRunner()
	run.Runner = r
	o, said := withProgress(run.options())
	cached, err := Run(t.Context(), run.plan(t), o)
	if err != nil || !cached.Cached || len(r.execs) != 0 || cached.Mutants[0].Status != fresh.Mutants[0].Status {
		t.Fatalf("Run(warm cache, no sandbox) = cached %v, %d runs, %v; want the cache's %s, nothing run", cached != nil && cached.Cached, len(r.execs), err, fresh.Mutants[0].Status)
	}
	if want := "results of namespaces sandboxes, from the cache: none can be made here"; !strings.Contains(said.String(), want) {
		t.Errorf("progress:\n%s\nwant it to say %q", said, want)
	}
	if _, err := TestNames(t.Context(), run.plan(t), run.options()); err != nil {
		t.Errorf("TestNames(warm cache, no sandbox) error = %v; want the cache's names", err)
	}
	forced := run.options()
	forced.Sandbox = SandboxLandlock
	if _, err := Run(t.Context(), run.plan(t), forced); !errors.Is(err, ErrNoSandbox) {
		t.Errorf("Run(-sandbox=landlock, warm cache of namespaces, no sandbox) error = %v; want ErrNoSandbox: it asked for landlock's verdicts", err)
	}

	r = cannedRunner()
	run.Runner = r
	opt := run.options()
	opt.Sandbox = SandboxNone
	for i := range 2 {
		rep, err := Run(t.Context(), run.plan(t), opt)
		if err != nil {
			t.Fatalf("Run(-sandbox=none) error = %v", err)
		}
		if rep.Isolation != report.IsolationReduced || rep.Cached {
			t.Fatalf("run %d: isolation %q, cached %v; want reduced, and nothing from the cache", i+1, rep.Isolation, rep.Cached)
		}
	}
	for _, e := range r.execs {
		if e.Isolate != nil {
			t.Fatalf("a run of %v in a sandbox under -sandbox=none", e.Args)
		}
	}
}

// Where namespaces are refused, test binaries run in Landlock sandboxes:
// the run says so, and what they lack, and its report names the tier and
// the kernel's Landlock ABI. Each run writes its copy of the package,
// HOME and TMPDIR in place, and what it writes there counts as memory it
// holds.
func TestRun_LandlockWhereNamespacesAreRefused(t *testing.T) {
	hostOffers(t, sandbox.Landlock)
	r := cannedRunner()
	run := testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, NoCache: true, Runner: r}
	o, said := withProgress(run.options())
	rep, err := Run(t.Context(), run.plan(t), o)
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	if rep.Isolation != report.IsolationLandlock || rep.LandlockABI != sandbox.LandlockABI() {
		t.Errorf("isolation %q, Landlock ABI %d; want landlock, %d", rep.Isolation, rep.LandlockABI, sandbox.LandlockABI())
	}
	for _, want := range []string{"test binaries run in Landlock sandboxes (ABI ", "as namespaces: namespaces are refused here", "no /tmp", "no network"} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("progress:\n%s\nwant it to say %q", said, want)
		}
	}
	for i, e := range r.execs {
		spec := e.Isolate
		if spec == nil || spec.Tier != sandbox.Landlock {
			t.Fatalf("run %d (%v): sandbox %+v, want Landlock's", i, e.Args, spec)
		}
		runDir := spec.ReadOnly[0]
		own := []string{filepath.Join(runDir, "home"), filepath.Join(runDir, "tmp")}
		if !slices.Equal(spec.Own, own) || !slices.Equal(e.Written, slices.Concat(spec.Copies, own)) {
			t.Errorf("run %d: own %v, written %v; want %v, and the copy of the package with them", i, spec.Own, e.Written, own)
		}
	}
}

// Verdicts reached in sandboxes of one tier are not taken for another's:
// a test may pass behind the walls of one and fail behind the other's.
// The run says why it runs again.
func TestRun_TheCacheKeepsTiersApart(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cache of its own
	run := testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, Runner: cannedRunner()}
	hostOffers(t, sandbox.Namespaces)
	prepareAndRun(t, run)
	hostOffers(t, sandbox.Landlock)
	r := cannedRunner()
	run.Runner = r
	o, said := withProgress(run.options())
	rep, err := Run(t.Context(), run.plan(t), o)
	if err != nil || rep.Cached || len(r.execs) == 0 {
		t.Fatalf("Run(in Landlock, the cache of namespaces) = cached %v, %d runs, %v; want a fresh run", rep != nil && rep.Cached, len(r.execs), err)
	}
	if want := "the cache holds these results from namespaces sandboxes, which this run in landlock sandboxes does not take"; !strings.Contains(said.String(), want) {
		t.Errorf("progress:\n%s\nwant it to say %q", said, want)
	}
	r = cannedRunner()
	run.Runner = r
	if rep := prepareAndRun(t, run); !rep.Cached || len(r.execs) != 0 || rep.Isolation != report.IsolationLandlock {
		t.Errorf("Run(in Landlock again) = cached %v, %d runs, isolation %s; want landlock's verdicts from the cache", rep.Cached, len(r.execs), rep.Isolation)
	}
}

// In a sandbox, a test binary has a network of its own unless -network
// lets it use the host's, cannot see the other runs' directories, and has
// a memory limit, which bounds its private directories too: before the
// baseline a quarter of the machine's memory (at least MemoryFloor), after
// it ten times the baseline's peak (at least MemoryFloor).
func TestRun_EachTestBinaryInASandboxOfItsOwn(t *testing.T) {
	hostOffers(t, sandbox.Namespaces)
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
		if rep.Isolation != report.IsolationNamespaces || rep.MemoryLimit != 3000<<20 {
			t.Errorf("isolation %q, memory limit %d; want namespaces, 10x the peak of 300 MiB", rep.Isolation, rep.MemoryLimit)
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
			if e.Memory < MemoryFloor || spec.PrivateSize != e.Memory || len(e.Written) != 0 {
				t.Errorf("run %d: memory %d, private size %d, written %v; want at least %d, the same for both, and no directory counted (the private size bounds them)", i, e.Memory, spec.PrivateSize, e.Written, MemoryFloor)
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
