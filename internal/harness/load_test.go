package harness

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/sandbox"
)

// Load never decides a run: a limit met because the machine was loaded
// is met again further on, or by a limit no load moves (docs/statuses.md).

// A coverage run of a test alone that a loaded machine held past its
// wall limit runs again with a limit four times as long: the test is not
// flaky, no mutant's verdict changes, and the run exits as it would on a
// quiet machine.
func TestCoverage_ATestSlowedPastItsWallLimitRunsAgain(t *testing.T) {
	slowed := `{"Action":"run","Test":"TestMax"}
TIMEOUT
`
	gen := &mutation.Mutant{ID: "m", Target: "Max", Kind: mutation.Expr, Find: "a > b", Replace: "a < b", Operator: mutation.OpNegation}
	var limits []time.Duration
	r := &canned{
		reach: map[string][]string{"TestMax": {"m"}},
		respond: func(active string, args []string, n int) (string, bool) {
			if active == "" && slices.Equal(args, []string{alone("TestMax")}) && n == 0 {
				return slowed, true
			}
			return "", false
		},
		events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")},
		onExec: func(e gotest.Exec, active string) {
			if active == "" && slices.Equal(e.Args, []string{alone("TestMax")}) {
				limits = append(limits, e.Timeout)
			}
		},
	}
	rep := runCanned(t, r, gen)
	checkMutants(t, rep, []report.Mutant{{ID: "m", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}}})
	if len(rep.FlakyTests) != 0 {
		t.Errorf("flaky tests %v, want none: a run stopped at its wall limit is no failure", rep.FlakyTests)
	}
	if len(limits) < 2 || limits[1] != defaultPolicy.RefRetryFactor*limits[0] {
		t.Errorf("wall limits of TestMax's runs alone %v, want the second %d times the first", limits, defaultPolicy.RefRetryFactor)
	}
	if got := rep.ExitCode(); got != report.ExitKilled {
		t.Errorf("ExitCode() = %d, want %d", got, report.ExitKilled)
	}
}

// A mutant that computes while it allocates, stopped at its wall limit
// because the machine was loaded, runs again with a wall limit four times
// as long: its memory limit, which no load moves, decides, and it is
// out-of-memory on a loaded machine as on a quiet one.
func TestRun_AMutantComputingPastItsWallLimitMeetsItsOwnLimits(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var walls []time.Duration
	r := &canned{
		events: map[string]string{"": suiteRun()},
		cpu:    map[string]time.Duration{"m": time.Millisecond}, // computing, below its CPU limit
		respond: func(active string, args []string, n int) (string, bool) {
			switch {
			case active == "m" && n == 0:
				return `{"Action":"run","Test":"TestMax"}` + "\nHUNG\n", true // the wall limit, first
			case active == "m":
				return `{"Action":"run","Test":"TestMax"}` + "\nOVERMEMORY\n", true
			}
			return "", false
		},
		onExec: func(e gotest.Exec, active string) {
			if active == "m" {
				walls = append(walls, e.Timeout)
			}
		},
	}
	rep := runCanned(t, r, flipped)
	if m := rep.Mutants[0]; m.Status != report.OutOfMemory {
		t.Fatalf("status %s (%s), want out-of-memory: the wall limit met under load decides nothing", m.Status, m.Reason)
	}
	if len(walls) < 2 || walls[1] != defaultPolicy.RefRetryFactor*walls[0] {
		t.Errorf("wall limits of the mutant's runs %v, want the second %d times the first", walls, defaultPolicy.RefRetryFactor)
	}
}

// A baseline that fails twice names the network as the cause only when
// its failing tests, on their own, fail without the host's network and
// pass with it; when they pass on their own without it, the suite is
// flaky, and the message says what each run showed.
func TestBaseline_NamesTheNetworkOnlyOnEvidence(t *testing.T) {
	sandbox.Need(t, sandbox.Namespaces)
	for _, tc := range []struct {
		name         string
		aloneFails   int // how many runs of TestMax alone fail, first
		flaky, needs bool
		says         string
	}{
		{"a timing flake", 0, true, false, "the failing tests on their own: passed"},
		{"the network", 1, false, true, "Alone, they passed with the host's network and failed without it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &canned{events: map[string]string{"": suiteRun("TestMax")}, respond: func(active string, args []string, n int) (string, bool) {
				if active == "" && slices.Equal(args, []string{alone("TestMax")}) {
					if n < tc.aloneFails {
						return suiteOf(args, "TestMax"), true
					}
					return suiteOf(args), true
				}
				return "", false
			}}
			_, err := testRun{Dir: writeModule(t), Package: ".", Mutants: []*mutation.Mutant{flipped}, Jobs: 1, NoCache: true, Runner: r}.run(t)
			var be *BaselineError
			if !errors.As(err, &be) {
				t.Fatalf("Run() error = %v, want a *BaselineError", err)
			}
			if be.Flaky != tc.flaky || be.NeedsNetwork != tc.needs {
				t.Errorf("flaky %v, needs the network %v; want %v, %v", be.Flaky, be.NeedsNetwork, tc.flaky, tc.needs)
			}
			msg := be.Error()
			if !strings.Contains(msg, "the whole suite: failed TestMax\n  the whole suite, again: failed TestMax") || !strings.Contains(msg, tc.says) {
				t.Errorf("message:\n%s\nwant what each run showed, and %q", msg, tc.says)
			}
			if tc.flaky == strings.Contains(msg, "-network lets") {
				t.Errorf("message:\n%s\nnames the network without evidence, or not with it", msg)
			}
		})
	}
}

// Every run of the reference that the machine's load holds past its wall
// limit runs again with a limit four times as long, and the run ends as
// on a quiet machine: the baseline, the switched build's run with no
// mutant active, the runs that trust every test before the mutants, and
// the reference's run after them (which, stopped so, once turned a gate
// of killed mutants into exit 2).
func TestReference_EveryRunSlowedPastItsWallLimitRunsAgain(t *testing.T) {
	for _, slowed := range []string{"the baseline", "the switched build, no mutant active", "trust", "after the mutants"} {
		t.Run(slowed, func(t *testing.T) {
			var mu sync.Mutex
			mutants := false          // a mutant's run came
			var walls []time.Duration // of the runs of the kind slowed
			// kind names a run of the reference of the whole suite: the
			// plain build's (the baseline), or the switched build's with
			// no mutant active: with the mutants' wall limit, the trust
			// runs; before them, the check of the switched build; after
			// them, the reference's run after the mutants.
			kind := func(e gotest.Exec) string {
				switched := slices.Contains(e.Env, mutation.SwitchEnv+"=")
				switch {
				case len(e.Args) > 0:
					return ""
				case !switched:
					return "the baseline"
				case e.Timeout < baselineLimit:
					return "trust"
				case mutants:
					return "after the mutants"
				}
				return "the switched build, no mutant active"
			}
			first := true
			r := &canned{
				events: map[string]string{"": suiteRun(), "m": suiteRun("TestMax")},
				respondExec: func(e gotest.Exec, active string, n int) (string, bool) {
					mu.Lock()
					defer mu.Unlock()
					if active != "" {
						mutants = true
						return "", false
					}
					if kind(e) == slowed {
						walls = append(walls, e.Timeout)
						if first {
							first = false
							return `{"Action":"run","Test":"TestMax"}` + "\nTIMEOUT\n", true
						}
					}
					return "", false
				},
			}
			rep := runCanned(t, r, flipped)
			checkMutants(t, rep, []report.Mutant{{ID: "m", Status: report.Killed, Build: ModeSwitch, FailedTests: []string{"TestMax"}}})
			if got := rep.ExitCode(); got != report.ExitKilled {
				t.Errorf("ExitCode() = %d, want %d", got, report.ExitKilled)
			}
			if len(rep.FlakyTests) != 0 {
				t.Errorf("flaky tests %v, want none", rep.FlakyTests)
			}
			if len(walls) < 2 || walls[1] != defaultPolicy.RefRetryFactor*walls[0] {
				t.Errorf("wall limits of %s's runs %v, want a second run with %d times the first's", slowed, walls, defaultPolicy.RefRetryFactor)
			}
		})
	}
}
