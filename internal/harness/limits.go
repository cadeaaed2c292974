package harness

// Every limit of a run, in one place: of a mutant's test run (wall time,
// CPU time, memory), of the reference's runs, of a coverage run, and of a
// blind run's builds. What a run does once a limit stops it is policy's
// (policy.go: retries, factors, trust).

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/text"
)

// Limits of a mutant's test run when Options.Timeout is zero: this many
// times the baseline's test run, plus TimeoutSlack; and, on Linux, this
// many times the baseline's test run on every CPU, plus cpuSlack, of CPU
// time (see limitsOf).
const (
	TimeoutFactor = 10
	TimeoutSlack  = 5 * time.Second
	cpuSlack      = time.Second
)

// baselineLimit bounds the runs of the unmutated suite when Options.Timeout
// is zero; it is go test's own default. A blind run's (a learner's file,
// see Options.Blind) are bounded by blindBaselineLimit instead: a file's
// tests take seconds, and one that hangs costs the grader this at most.
const (
	baselineLimit      = 10 * time.Minute
	blindBaselineLimit = time.Minute
)

// Memory limits of a test binary when Options.Memory is zero: MemoryFactor
// times the baseline's peak, at least MemoryFloor (see memoryLimit).
const (
	MemoryFactor = 10
	MemoryFloor  = 1 << 30
)

// limitFor returns the limit of one mutant's test run: the configured one,
// or TimeoutFactor times the baseline's test run plus TimeoutSlack.
func limitFor(cfg config, baseline time.Duration) time.Duration {
	if cfg.Timeout > 0 {
		return cfg.Timeout
	}
	return TimeoutFactor*baseline + TimeoutSlack
}

// limitOf returns the limit of an early-kill run of some of the tests:
// TimeoutFactor times their baseline durations plus TimeoutSlack, at most
// limit. A hang in a test that takes milliseconds is stopped in seconds,
// not at the limit of the whole suite.
func limitOf(tests []string, durations map[string]float64, limit time.Duration) time.Duration {
	return min(limit, TimeoutFactor*timeOf(tests, durations)+TimeoutSlack)
}

// timeOf returns the sum of the baseline durations of tests, to the
// millisecond.
func timeOf(tests []string, durations map[string]float64) time.Duration {
	var sum float64
	for _, t := range tests {
		sum += durations[t]
	}
	return time.Duration(math.Round(sum*1000)) * time.Millisecond
}

// limits are the limits of one run of a test binary: of its wall time,
// and of the CPU time it may use (0: none). Its memory limit is the
// run's, the same for every binary (see memoryLimit).
type limits struct {
	wall, cpu time.Duration
}

// stoppedByWall reports whether res was stopped at its wall-clock limit,
// not at its memory or CPU limit and not by its own end. A run of the
// reference (a test that passed in the baseline) so stopped was slowed
// down, by the machine's load, not stuck: it runs again with a limit
// policy.RefRetryFactor times as long (references.fresh, coverage's
// probes), and is never a failure of its own.
func stoppedByWall(res *gotest.Result) bool {
	return res.TimedOut && !res.OverMemory && !res.OverCPU
}

// runReference runs bin with env and args and no mutant active, a run of
// the reference, with lim: of tests that passed in the baseline (or, for
// the baseline, that must pass). Stopped at its wall limit, not at its CPU
// or memory limit, it was slowed by the machine, not stuck: it runs again,
// once, with a wall limit policy.RefRetryFactor times as long, and says
// so, naming the run (what). Load then decides nothing: only a limit no
// load moves, or a failure, does. onEvent sees the events of each run.
func runReference(ctx context.Context, cfg config, p *prepared, what, bin string, env, args []string, lim limits, onEvent func(gotest.Event)) (*gotest.Result, error) {
	res, err := p.exec(ctx, cfg, bin, env, args, lim, onEvent)
	if err == nil && stoppedByWall(res) {
		retry := lim
		retry.wall *= cfg.policy().RefRetryFactor
		cfg.Progress.Printf("%s was %s: the machine slowed it; once more, with %s", what, lim.stopped(res), retry.wall)
		res, err = p.exec(ctx, cfg, bin, env, args, retry, onEvent)
	}
	return res, err
}

// stopped says which of the limits stopped res.
func (l limits) stopped(res *gotest.Result) string {
	switch {
	case res.OverMemory:
		return fmt.Sprintf("stopped at its memory limit, holding %s", text.Bytes(res.PeakMemory))
	case res.OverCPU:
		return fmt.Sprintf("stopped at the limit of %s of CPU time", l.cpu.Round(time.Millisecond))
	}
	return fmt.Sprintf("stopped at the limit of %s", l.wall.Round(time.Millisecond))
}

// memoryLimit returns the memory limit of a run of a test binary, in bytes
// (0: none), of a package whose baseline held peak bytes at most:
// opt.Memory when set; else MemoryFactor times the peak, at least
// MemoryFloor, and at most its share of half the machine's memory, shared
// by the opt.Jobs runs at a time, unless twice the peak is more. Mutants
// that allocate without end are stopped there: together they take at most
// half the machine.
func memoryLimit(opt Options, peak int64) int64 {
	if opt.Memory != 0 {
		return max(opt.Memory, 0)
	}
	share := gotest.MachineMemory() / int64(2*max(opt.Jobs, 1))
	return max(MemoryFloor, min(MemoryFactor*peak, max(share, 2*peak)))
}

// baselineMemory returns the memory limit of the baseline's runs, before
// its peak is known: opt.Memory when set, else a quarter of the machine's
// memory, at least MemoryFloor.
func baselineMemory(opt Options) int64 {
	if opt.Memory != 0 {
		return max(opt.Memory, 0)
	}
	return max(MemoryFloor, gotest.MachineMemory()/4)
}

// cpuLimit returns the CPU time that a run of tests that took base in the
// baseline may use, in a binary that had used start before its first
// test: TimeoutFactor times start and base on every CPU, plus cpuSlack.
// A run that does what the baseline's did cannot use more than base on
// each CPU after its start, however loaded the machine (a load stretches
// its wall time, not its CPU time); one past this limit spins, and is
// stopped in about a second instead of TimeoutSlack. A waiting test uses
// none: only the wall limit ends a deadlock.
func cpuLimit(base, start time.Duration) time.Duration {
	return TimeoutFactor*(base*time.Duration(runtime.NumCPU())+start) + cpuSlack
}

// cpuNeed returns the CPU limit that the reference's run ref of some tests
// asks of a mutant's run of the same tests: TimeoutFactor times its CPU
// time, plus cpuSlack; 0, no CPU limit, when ref was stopped at its own
// limit (its CPU time is then not the whole run's).
func cpuNeed(ref *gotest.Result) time.Duration {
	if ref.TimedOut {
		return 0
	}
	return TimeoutFactor*time.Duration(ref.CPU*float64(time.Second)) + cpuSlack
}

// blindBuildLimits bound each build of a blind run (a learner's file, see
// Options.Blind): a cold build of lease and its dependencies takes 33 s
// of CPU time in all, 0.75 GB at most in one compile, and writes no file
// over 40 MB; a file whose generics or literals would take more is too
// costly to build.
var blindBuildLimits = gotest.BuildLimits{Wall: 3 * time.Minute, CPU: 2 * time.Minute, Memory: 2 << 30, FileSize: 256 << 20}

// BlindBuildMemoryEnv, set to a number of MiB below blindBuildLimits'
// memory, lowers that bound: a script's compile bomb meets 256 MiB in a
// second of CPU time, where 2 GiB takes twenty. It can only lower it, and
// only tests set it (learners set nothing of a grader's environment).
const BlindBuildMemoryEnv = "MUTATE_TEST_BLIND_BUILD_MIB"

// blindLimits returns the bounds of each build of a blind run.
func blindLimits() gotest.BuildLimits {
	l := blindBuildLimits
	if mib, err := strconv.ParseInt(os.Getenv(BlindBuildMemoryEnv), 10, 64); err == nil && mib > 0 && mib < l.Memory>>20 {
		l.Memory = mib << 20
	}
	return l
}

// baselineTimeout is the limit of each run of the unmutated suite: the
// configured -timeout, else blindBaselineLimit for a blind run, else
// baselineLimit.
func baselineTimeout(cfg config) time.Duration {
	switch {
	case cfg.Timeout > 0:
		return cfg.Timeout
	case cfg.Blind:
		return blindBaselineLimit
	}
	return baselineLimit
}

// coverLimit is the limit of a coverage run of test alone.
func coverLimit(cfg config, b *Baseline, test string) time.Duration {
	limit := limitFor(cfg, b.Wall)
	if cfg.Timeout == 0 {
		limit = limitOf([]string{test}, b.durations(), limit)
	}
	return limit
}

// limitsOf returns the limits of a run of tests: -timeout, with no CPU
// limit; or, for every test, the mutant's limit, and for some of the tests
// their own share (see limitOf), at most the mutant's; with the CPU time
// the run may use (see cpuLimit).
func (m *mutantRun) limitsOf(tests []string) limits {
	if m.cfg.Timeout > 0 {
		return limits{wall: m.limit}
	}
	start := time.Duration(m.b.Result.StartCPU * float64(time.Second))
	if len(tests) == len(m.b.Result.TopLevel()) {
		return limits{wall: m.limit, cpu: cpuLimit(m.b.Wall, start)}
	}
	durations := m.b.durations()
	return limits{wall: limitOf(tests, durations, m.limit), cpu: cpuLimit(timeOf(tests, durations), start)}
}
