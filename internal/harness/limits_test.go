package harness

import (
	"runtime"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
)

// A test can lower the memory bound of a blind run's builds, never raise
// it: what is not a number of MiB below the bound leaves it as it is.
func TestBlindLimits_TheEnvironmentOnlyLowersTheMemoryBound(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int64
	}{
		{"", 2 << 30},
		{"256", 256 << 20},
		{"4096", 2 << 30},
		{"0", 2 << 30},
		{"-5", 2 << 30},
		{"256MiB", 2 << 30},
		{"9007199254740993", 2 << 30},
	} {
		t.Setenv(BlindBuildMemoryEnv, tc.env)
		got := blindLimits()
		if got.Memory != tc.want {
			t.Errorf("%s=%q: memory bound %d, want %d", BlindBuildMemoryEnv, tc.env, got.Memory, tc.want)
		}
		if got.Wall != blindBuildLimits.Wall || got.CPU != blindBuildLimits.CPU || got.FileSize != blindBuildLimits.FileSize {
			t.Errorf("%s=%q changed another bound: %+v", BlindBuildMemoryEnv, tc.env, got)
		}
	}
}

func TestLimitOf_TheTestsOwnShareOfTheLimit(t *testing.T) {
	durations := map[string]float64{"TestFast": 0.01, "TestSlow": 2}
	limit := 45 * time.Second
	for _, tc := range []struct {
		tests []string
		want  time.Duration
	}{
		{[]string{"TestFast"}, TimeoutFactor*10*time.Millisecond + TimeoutSlack},
		{[]string{"TestFast", "TestSlow"}, TimeoutFactor*2010*time.Millisecond + TimeoutSlack},
		{[]string{"TestSlow", "TestSlow", "TestSlow"}, limit},
	} {
		if got := limitOf(tc.tests, durations, limit); got != tc.want {
			t.Errorf("limitOf(%v) = %v, want %v", tc.tests, got, tc.want)
		}
	}
}

// A run's CPU limit is ten times its tests' baseline time on every CPU
// and the binary's own start, plus a second.
func TestCPULimit_TenTimesTheTestsOnEveryCPUAndTheStartPlusASecond(t *testing.T) {
	cpus := time.Duration(runtime.NumCPU())
	if got, want := cpuLimit(20*time.Millisecond, 40*time.Millisecond), 10*(20*time.Millisecond*cpus+40*time.Millisecond)+time.Second; got != want {
		t.Errorf("cpuLimit(20ms, start 40ms) = %v, want %v", got, want)
	}
	if got := cpuLimit(0, 0); got != cpuSlack {
		t.Errorf("cpuLimit(0, 0) = %v, want cpuSlack, %v", got, cpuSlack)
	}
}

// A mutant's limit is ten times the baseline's test run (not its build)
// plus five seconds, unless -timeout sets it.
func TestLimitFor_TenTimesTheBaselinesRunPlusFiveSeconds(t *testing.T) {
	if got, want := limitFor(config{}, 2700*time.Millisecond), 32*time.Second; got != want {
		t.Errorf("limitFor(baseline 2.7s) = %v, want %v", got, want)
	}
	if got, want := limitFor(config{Options: Options{Timeout: 3 * time.Second}}, 2700*time.Millisecond), 3*time.Second; got != want {
		t.Errorf("limitFor(-timeout 3s) = %v, want %v", got, want)
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

// The other limits, each by its rule: the baseline's runs, a coverage
// run of one test, the CPU time a reference's run asks of a mutant's, and
// the baseline's memory.
func TestLimits_EachFollowsItsRule(t *testing.T) {
	b := &Baseline{Wall: 2 * time.Second, Result: &gotest.Result{Tests: map[string]*gotest.Test{
		"TestFast": {Name: "TestFast", Elapsed: 0.01}, "TestSlow": {Name: "TestSlow", Elapsed: 3},
	}}}
	for _, tc := range []struct {
		name      string
		got, want time.Duration
	}{
		{"baseline, default", baselineTimeout(config{}), baselineLimit},
		{"baseline of a blind run (a learner's file)", baselineTimeout(config{Options: Options{Blind: true}}), time.Minute},
		{"baseline of a blind run, -timeout", baselineTimeout(config{Options: Options{Timeout: 7 * time.Second, Blind: true}}), 7 * time.Second},
		{"coverage of a fast test: its own share", coverLimit(config{}, b, "TestFast"), TimeoutFactor*10*time.Millisecond + TimeoutSlack},
		{"coverage of a slow test: at most the mutant's", coverLimit(config{}, b, "TestSlow"), TimeoutFactor*2*time.Second + TimeoutSlack},
		{"coverage with -timeout", coverLimit(config{Options: Options{Timeout: 3 * time.Second}}, b, "TestFast"), 3 * time.Second},
		{"CPU a reference's run asks", cpuNeed(&gotest.Result{CPU: 0.3}), TimeoutFactor*300*time.Millisecond + cpuSlack},
		{"CPU a stopped reference's run asks: none", cpuNeed(&gotest.Result{CPU: 0.3, TimedOut: true}), 0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		opt  Options
		want int64
	}{
		{Options{Memory: 7 << 20}, 7 << 20},
		{Options{Memory: -1}, 0},
		{Options{}, max(MemoryFloor, gotest.MachineMemory()/4)},
	} {
		if got := baselineMemory(tc.opt); got != tc.want {
			t.Errorf("baselineMemory(-memory %d) = %d, want %d", tc.opt.Memory, got, tc.want)
		}
	}
}
