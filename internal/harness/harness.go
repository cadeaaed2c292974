// Package harness runs a package's test suite against each mutant and
// records which tests fail.
//
// Mutated files never touch the source tree: they are written to a
// temporary directory and handed to go with -overlay. Every run builds a
// test binary first and then runs it, so that a run's time limit covers
// the tests and never the compiler. Test binaries are linked without a
// symbol table or DWARF (-ldflags=-s -w), which nothing reads, unless
// GOFLAGS sets -ldflags; the plain and the switched one of a package are
// kept in the cache directory,
// so that go links them again only when something changed. In overlay
// mode each mutant gets a build of its own. In switch mode one build holds
// every mutant at once (see mutation.Switched), and its test binary runs
// once per mutant with the mutant named in the environment; a mutant whose
// switched form does not compile falls back to a build of its own. A blind
// run (Options.Blind: a learner's tests) is in overlay mode unless its
// tests are sealed (Options.Sealed: then its switched build names the
// mutants by random names of the run), and its binaries are built with
// -trimpath: they name no directory of the grader's. The
// temporary directory is removed when the run ends, including when it is
// interrupted.
//
// The files, in the order a run meets them:
//
//   - pipeline.go: Run, over a plan's packages and the packages whose
//     tests run them; harness.go: Options, prepare and the source tree's
//     guard; policy.go: every retry, rerun and trust count.
//   - run.go: one package's run: results from the cache and from trivial
//     compiler equivalence (tce.go), then the mutants still missing;
//     reuse.go and testkeys.go: the outcomes of the tests whose functions
//     did not change since an earlier run, which run only the others.
//   - build.go and switched.go: the test binaries, plain and switched;
//     typecheck.go: the types a switched build's helpers are written in.
//   - baseline.go: the suite without mutants, the references every verdict
//     compares with; coverage.go and refcover.go: which tests reach each
//     mutant's site.
//   - schedule.go: the mutants, -j at a time, and the report; limits.go:
//     each run's time, CPU and memory limits; phases.go: the early-kill
//     phases, likeliest killer first.
//   - mutant.go: one mutant's runs; classify.go: what a run of its tests
//     shows; confirm.go: a kill confirmed, with the references it needs;
//     decide.go: a mutant's status, from what those steps saw, decided
//     in one function.
//   - exec.go: one run of a test binary, in a run directory of its own
//     (rundir.go) and in namespaces of its own (package sandbox), under
//     a scratch directory (scratch.go) that no run outlives.
//   - clock.go: the wall and CPU time of the run's phases;
//     fingerprint.go: the files a run must not change.
//
// A file named _linux or _unix holds what that system offers; _other is
// its fallback on every other system than Linux, and _nounix on every
// other than Unix.
package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/filesum"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/third_party/test2json"
)

// Mode is how mutants are built.
type Mode = report.Mode

// Modes of a run.
const (
	ModeSwitch  = report.ModeSwitch
	ModeOverlay = report.ModeOverlay
)

// ParseMode returns the mode named s.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeSwitch, ModeOverlay:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q: want switch or overlay", s)
}

// Options say how a plan runs.
type Options struct {
	Mode     Mode               // "" is ModeSwitch
	Jobs     int                // mutants run at the same time; at least 1
	Timeout  time.Duration      // per mutant run; 0 derives it from the baseline
	Progress *progress.Reporter // nil for none
	NoCache  bool               // run even if the cache holds the results
	// Full runs generated mutants as catalog mutants run: every test, to
	// the end. Without it, a generated mutant runs only the tests that
	// reach its site, and stops at the first that fails.
	Full bool
	// NoTCE runs every generated mutant, without first comparing its
	// compiled code with the reference's and the other mutants' (see
	// prepared.tce).
	NoTCE bool

	// AfterBaseline, if set, is called with the names of the package's
	// baseline tests (from a run, or the cache) before any of its mutants
	// runs; an error stops the run. check validates the learners' subtest
	// names there, in a run of one package (a pattern's are checked
	// after the run, against the report's qualified names).
	AfterBaseline func(tests []string) error

	// Memory limits what a test binary, with every process it starts,
	// may hold in memory, in bytes: 0 derives it from the baseline (see
	// memoryLimit), a negative value sets none. Linux only.
	Memory int64
	// Network lets test binaries use the host's network; without it each
	// has a network of its own, with only a loopback interface.
	Network bool
	// Binds are directories of the host that each sandbox holds, read-only,
	// beside what every one does (see package sandbox): for a suite that
	// reads them. Absolute paths.
	Binds []string
	// Sandbox says what test binaries run in: the strongest sandbox this
	// host allows (SandboxAuto), a tier of sandbox (a run refuses where
	// it is not available), or none (SandboxNone: reduced isolation).
	Sandbox Sandbox

	// Blind runs tests that must not learn which mutant runs: a
	// learner's, graded against chaffs and wheats. Every mutant then gets
	// a build of its own, made as the reference's is (the switched build
	// chooses its mutant at run time, by what a test could read), unless
	// Sealed; no run names its mutant (no id in a variable, the
	// environment or a file beside the binary, no directory); no test
	// binary is kept; and a run's environment is its own directories, a
	// fixed PATH, the locale and the time zone, nothing else of mutate's.
	// A blind run's runs of the unmutated suite stop at a minute unless
	// Timeout says otherwise (see baselineTimeout).
	Blind bool
	// Sealed says that the tests of a Blind run cannot read their
	// environment, files or memory they were not handed (a learner's
	// file held to testgrade's rules, with no import beyond the standard
	// ones they allow): its mutants then share one switched build, which
	// knows each by a random name of this run that the environment of its
	// run holds (see switchNames). Ignored unless Blind.
	Sealed bool
	// Hide are directories that test binaries must not see (the grader's
	// checkout): each sandbox covers them with an empty one.
	Hide []string

	// First, if set, runs the mutants in two stages over one baseline:
	// those First returns true for, then, once their verdicts are in, the
	// others, if Next (nil: always) returns true for the report so far
	// (those verdicts, the suite's flaky tests). Mutants that do not run
	// are left out of the report. A run with First needs NoCache and no
	// Full: every verdict of the first stage comes from its runs. A
	// learner's file is
	// graded so: its wheats first, and its chaffs only while a test of it
	// passed under every wheat.
	First func(*mutation.Mutant) bool
	Next  func(*report.Report) bool

	// Answers are the ids of the mutants whose failing tests are a
	// learner's answers, to predict before seeing them (an exercise's):
	// progress says that such a mutant was killed, not by how many tests.
	Answers map[string]bool

	// Runner builds and runs the test binaries; nil for the go command.
	Runner Runner

	// Started is when the command began, before it loaded the package:
	// the report's Seconds count from it, and its first phase, "load",
	// ends when Run starts. Zero: from Run's start.
	Started time.Time

	// tier is the tier of the sandboxes that test binaries run in, ""
	// if none: set by Run (see resolveIsolation).
	tier sandbox.Tier
	// forced is the tier that Sandbox asks for, where it is not
	// available: the cache may answer with its runs alone.
	forced sandbox.Tier
	// reduced says that test binaries run without a sandbox (SandboxNone).
	reduced bool
	// unsandboxed says why test binaries cannot run in sandboxes here, ""
	// if they can: a run answered from the cache needs none, and one that
	// must run something refuses (see mayRun).
	unsandboxed string
	// clock times the run's phases: set by Run.
	clock *phaseClock
	// pol is the policy of the run; nil for defaultPolicy.
	pol *policy
}

// config is what the runs of one package need: the options, and the
// package's mutants.
type config struct {
	Options
	Mutants []*mutation.Mutant
	// tester is the package whose tests run against the mutants; nil
	// for the mutated package's own.
	tester *exercise.Target
	// reuse holds the outcomes kept from earlier runs of the mutants'
	// tests (see reuse.go); nil for none.
	reuse *reuse
}

// Runner builds and runs test binaries: the go command does, and the
// harness's own tests give canned results instead.
type Runner interface {
	Build(ctx context.Context, c gotest.Compile, out string) error
	Exec(ctx context.Context, e gotest.Exec) (*gotest.Result, error)
}

// goRunner is the Runner of the go command.
type goRunner struct{}

func (goRunner) Build(ctx context.Context, c gotest.Compile, out string) error {
	return c.Build(ctx, out)
}

func (goRunner) Exec(ctx context.Context, e gotest.Exec) (*gotest.Result, error) { return e.Run(ctx) }

func (c Options) runner() Runner {
	if c.Runner == nil {
		return goRunner{}
	}
	return c.Runner
}

// everyTest reports whether every mutant runs every test of the suite:
// with Full, and in a blind run, whose suite is a learner's few tests (a
// coverage of them would cost a build and two runs of each test, more
// than it saves). Otherwise a mutant runs the tests that reach its site
// (see runMutant).
func (c Options) everyTest() bool { return c.Full || c.Blind }

// mode is how the run's mutants are built: overlay when blind and not
// sealed, whatever the Mode.
func (c Options) mode() Mode {
	switch {
	case c.Blind && !c.Sealed:
		return ModeOverlay
	case c.Mode == "":
		return ModeSwitch
	}
	return c.Mode
}

// prepared is a package with its mutants applied, ready to run. It owns a
// temporary directory: Close removes it.
type prepared struct {
	Target    *exercise.Target
	tester    *exercise.Target // whose tests run: Target, or a package that uses it
	compiler  *gotest.Compiler // for trivial compiler equivalence; nil: go build
	Package   *mutation.Package
	Applied   []*mutation.Applied
	test2json string            // the test2json program; "": the converter in this program
	goEnv     map[string]string // go env: goEnvNames
	tree      *fingerprint      // the module's files before anything ran
	tier      sandbox.Tier      // of the sandboxes test binaries run in; "" for none
	// memory is the memory limit of a run of a test binary, in bytes (0:
	// none): before the baseline, a ceiling; after, derived from its
	// peak (see memoryLimit).
	memory  int64
	bins    *binaries // the run's shared test binaries, as they were built
	scratch *scratch
	tmp     string // the scratch directory
}

// prepare readies the mutants of u, applied, to run with cfg.
func prepare(ctx context.Context, u *exercise.Unit, cfg config) (*prepared, error) {
	p := &prepared{Target: u.Target, tester: cmp.Or(cfg.tester, u.Target), Package: u.Source, Applied: u.Applied, bins: &binaries{},
		tier: cfg.tier, memory: baselineMemory(cfg.Options)}
	env, err := gotest.Env(ctx, "", goEnvNames...)
	if err != nil {
		return nil, err
	}
	// A Landlock sandbox's user of its own (when root runs mutate) must
	// pass through every directory above its run's.
	sc, err := newScratch(cfg.Blind, cfg.tier == sandbox.Landlock && sandbox.OwnUsers())
	if err != nil {
		return nil, err
	}
	p.goEnv, p.scratch, p.tmp = env, sc, sc.dir
	return p, nil
}

// goEnvNames are the go command's settings that runs need: those of the
// cache's key, where go keeps its caches (for the sandboxes), and what
// finds test2json.
var goEnvNames = slices.Concat(cache.GoEnvNames, []string{"GOROOT", "GOCACHE", "GOMODCACHE", "GOPATH"})

// Close kills what the runs' tests may have left running and removes the
// temporary files of the runs.
func (p *prepared) Close() error {
	gotest.SweepOrphans("")
	if p.scratch == nil {
		return nil
	}
	return p.scratch.remove()
}

// setUp resolves, once, what runs need besides go: the test2json
// program, unless this program converts the test binaries' output itself
// (for a toolchain of the release its converter came from), and the
// fingerprint of the module's files that every run is checked against.
// One is a go command at worst, the other a git command and a walk of the
// tree, so they go on at the same time.
func (p *prepared) setUp(ctx context.Context, cfg config) error {
	if p.tree != nil {
		return nil
	}
	var (
		wg            sync.WaitGroup
		t2jErr, fpErr error
	)
	if version.Lang(p.goEnv["GOVERSION"]) != test2json.GoVersion {
		wg.Go(func() {
			find := func() (string, error) { return gotest.Test2JSON(ctx, "") }
			if cfg.reduced {
				p.test2json, t2jErr = find() // the cache is not written (see guardCache)
				return
			}
			p.test2json, t2jErr = cache.Tool("test2json", p.goEnv, find)
		})
	}
	wg.Go(func() {
		if p.tree, fpErr = takeFingerprint(p.Target.ModuleDir, p.Target.Dir); fpErr != nil {
			fpErr = fmt.Errorf("fingerprint of the source tree: %w", fpErr)
		}
	})
	wg.Wait()
	return errors.Join(t2jErr, fpErr)
}

// binaries are the content hashes of the test binaries that a run's
// mutants share (the plain and the switched build), taken when they were
// built: a run checks them after each mutant, by their stamps but the
// change time, which each run's link to a binary moves (a binary whose
// identity, size or modification time moved is read again), and reads
// them all again after the last, before any verdict counts.
type binaries struct {
	mu   sync.Mutex
	sums map[string]binary // by path
}

type binary struct {
	sum   string // hex SHA-256
	stamp filesum.Stamp
}

// record takes the hash of the binary at path.
func (bs *binaries) record(path string) error {
	stamp, err := filesum.StampOf(path)
	if err != nil {
		return err
	}
	sum, err := filesum.Hex(path)
	if err != nil {
		return err
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.sums == nil {
		bs.sums = map[string]binary{}
	}
	bs.sums[path] = binary{sum: sum, stamp: stamp}
	return nil
}

// sum returns the hash of the binary at path, as it was built; "" if it was
// not recorded.
func (bs *binaries) sum(path string) string {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return bs.sums[path].sum
}

// changed returns the base names of the binaries whose content is not
// what it was when they were built. A binary whose stamp is what it was,
// but for its change time (see filesum.Stamp.SameExceptLinks), is not read
// again, unless reread says so.
func (bs *binaries) changed(reread bool) []string {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var names []string
	for path, b := range bs.sums {
		if !reread {
			if stamp, err := filesum.StampOf(path); err == nil && stamp.SameExceptLinks(b.stamp) {
				continue
			}
		}
		if got, err := filesum.Hex(path); err != nil || got != b.sum {
			names = append(names, filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path))
		}
	}
	slices.Sort(names)
	return names
}

// Sandbox is what test binaries run in: a tier of package sandbox, the
// strongest the host allows, or none.
type Sandbox string

// The sandboxes of a run.
const (
	SandboxAuto       Sandbox = ""                          // the strongest tier the host allows
	SandboxNamespaces Sandbox = Sandbox(sandbox.Namespaces) // namespaces, or refuse
	SandboxLandlock   Sandbox = Sandbox(sandbox.Landlock)   // Landlock, or refuse
	SandboxNone       Sandbox = "none"                      // none: reduced isolation
)

// ParseSandbox returns the sandbox named s: auto, namespaces, landlock or
// none.
func ParseSandbox(s string) (Sandbox, error) {
	switch s {
	case "auto":
		return SandboxAuto, nil
	case string(SandboxNamespaces), string(SandboxLandlock), string(SandboxNone):
		return Sandbox(s), nil
	}
	return "", fmt.Errorf("unknown sandbox %q: want auto, namespaces, landlock or none", s)
}

// checkSandbox says whether test binaries can run in sandboxes of a tier
// here (nil), or why not; a variable for tests.
var checkSandbox = sandbox.Check

// resolveIsolation decides, once for a run, what its test binaries run
// in: the tier opt.Sandbox names, or with SandboxAuto the strongest that
// this host allows, saying so when it is not namespaces, and what the
// run lacks then. Where there is none, a run answered from the cache
// still is (it runs nothing), and one that must run a test binary refuses
// (see mayRun). A run without sandboxes (SandboxNone) says so, and keeps
// the cache out of the tests' reach as far as it can (see guardCache).
func resolveIsolation(opt *Options) error {
	tiers := sandbox.Tiers
	switch opt.Sandbox {
	case SandboxNone:
		opt.reduced = true
		opt.Progress.Printf("isolation reduced (-sandbox=none): test binaries run without a sandbox, as you, with your network. Each runs in a private copy of its package, with a HOME and TMPDIR of its own, and is killed with its process group; the source tree is checked after every run; nothing is cached. But a test can do what you can: write elsewhere (/tmp, the caches), see and signal other processes")
		return nil
	case SandboxNamespaces, SandboxLandlock:
		tiers = []sandbox.Tier{sandbox.Tier(opt.Sandbox)}
	case SandboxAuto:
	default:
		_, err := ParseSandbox(string(opt.Sandbox))
		return err
	}
	var refused []string
	for _, tier := range tiers {
		err := checkSandbox(tier)
		if err == nil {
			opt.tier = tier
			break
		}
		refused = append(refused, fmt.Sprintf("%s: %v", tier, err))
	}
	switch {
	case opt.tier == "":
		opt.unsandboxed = strings.Join(refused, "; ")
		if opt.Sandbox != SandboxAuto {
			opt.forced = sandbox.Tier(opt.Sandbox)
		}
	case opt.tier == sandbox.Landlock:
		why := ""
		if len(refused) > 0 {
			why = fmt.Sprintf(", as %s", strings.Join(refused, "; "))
		}
		opt.Progress.Printf("test binaries run in Landlock sandboxes (ABI %d)%s. %s", sandbox.LandlockABI(), why, landlockLacks())
	}
	return nil
}

// landlockLacks says what a Landlock sandbox on this host lacks: what
// namespaces would add, and the walls its kernel has not.
func landlockLacks() string {
	s := "Unlike namespaces, they give a test no /tmp or /dev/shm (its TMPDIR is its own), no network, not even a loopback one (-network gives it yours), no unix socket of the host's, no System V IPC and no terminal"
	if gaps := sandbox.LandlockGaps(sandbox.LandlockABI(), os.Geteuid() == 0, sandbox.OwnUsers()); len(gaps) > 0 {
		s += "; and on this kernel " + strings.Join(gaps, "; ")
	}
	return s + " (docs/internals.md, Isolation)"
}

// ErrNoSandbox is what the error of a run that had to run a test binary
// where sandboxes cannot be made is.
var ErrNoSandbox = errors.New("test binaries cannot run in sandboxes here")

// mayRun returns an error, ErrNoSandbox, if test binaries cannot run in
// sandboxes here: what needs one is about to run.
func (o *Options) mayRun() error {
	if o.unsandboxed == "" {
		return nil
	}
	need := "Namespaces need user namespaces that may mount (Ubuntu 24.04 refuses them: sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile that allows them; Docker's default seccomp profile refuses them); Landlock needs Linux 5.13 or newer with landlock among its security modules (lsm=)"
	if o.Blind {
		// A learner's tests: they run in sandboxes or not at all.
		return fmt.Errorf("%w (%s). %s", ErrNoSandbox, o.unsandboxed, need)
	}
	cached := "; nothing cached answers this run"
	if o.NoCache {
		cached = "; -no-cache reads nothing cached"
	}
	return fmt.Errorf("%w (%s)%s. %s. Where only your own code runs, -sandbox=none runs them without (reduced isolation: a test can then do what you can, see docs/internals.md); or run where there are sandboxes, and use the results here (check -results)", ErrNoSandbox, o.unsandboxed, cached, need)
}

// checkTree returns an error if the module's files changed since setUp;
// who names the runs that might have changed them.
func (p *prepared) checkTree(who string) error {
	changed, err := p.tree.changes()
	if err != nil {
		return fmt.Errorf("fingerprint of the source tree: %w", err)
	}
	if len(changed) == 0 {
		return nil
	}
	const show = 10
	list := changed
	if len(list) > show {
		list = append(list[:show:show], fmt.Sprintf("… and %d more", len(changed)-show))
	}
	return &treeChangedError{Who: who, Paths: changed, shown: list}
}

// treeChangedError is returned when the module's files changed during a
// run: by a mutant that writes where it should not, or by an edit made
// meanwhile. No verdict of such a run can be trusted.
type treeChangedError struct {
	Who   string   // the runs that were going on
	Paths []string // "path (new|removed|modified)", relative to the module root
	shown []string
}

func (e *treeChangedError) Error() string {
	return fmt.Sprintf("the source tree changed while %s ran; no verdict of this run can be trusted (restore the files and run again):\n  %s",
		e.Who, strings.Join(e.shown, "\n  "))
}
