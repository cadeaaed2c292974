package report

import (
	"fmt"
	"strings"

	"github.com/fencelab/fencelab/internal/text"
)

// Status is the verdict on a mutant.
type Status string

// Statuses of a mutant. A verdict rests on the events of the test binary,
// compared with the baseline's tests; what each means, and how every
// output shows it, is its row of statuses.
const (
	Killed      Status = "killed"
	Survived    Status = "survived"
	Crashed     Status = "crashed"
	Timeout     Status = "timeout"
	OutOfMemory Status = "out-of-memory"
	BuildFailed Status = "build-failed"
	NotCovered  Status = "not-covered"
	Skipped     Status = "skipped"
	Flaky       Status = "flaky"
	Equivalent  Status = "equivalent"
)

// junitResult is how a mutant's test case reads in JUnit XML.
type junitResult int

const (
	junitPass    junitResult = iota // the mutant was caught
	junitFailure                    // the suite missed it
	junitError                      // no verdict on the suite
	junitSkipped                    // nothing to judge
)

// statusDef is one status: what it means and how every output shows it.
// Adding a status is adding a row to statuses (and teaching the harness's
// decide, internal/harness/decide.go, when to give it).
type statusDef struct {
	status Status
	// detected: the suite caught the mutant, in the score's numerator.
	detected bool
	// scored: in the score's denominator; a status that says nothing of
	// the suite (the mutant is not valid Go, the tests are flaky) is not.
	scored bool
	// exit is the exit code a run with such a mutant gives, at least
	// (see ExitCode for which wins).
	exit int
	// comparable: a prediction can be compared with the mutant's failing
	// tests (see Mutant.Comparable).
	comparable bool
	// always: the summary line counts it even when no mutant has it.
	always bool
	// telling ranks how much a run with this verdict says of a mutant,
	// most first: when several packages' tests run one mutant, the most
	// telling verdict is the mutant's (see MoreTelling).
	telling int
	// help says what it means, one line per line of run's help.
	help string
	// matrix is the kill matrix's line under a mutant that was not killed.
	matrix func(m Mutant) string
	junit  junitResult
	// junitMsg is the message of a JUnit failure or error.
	junitMsg func(m Mutant) string
	// github is the level of the workflow annotation ("" for none), and
	// githubMsg its message; show is the command that shows the mutant.
	github    string
	githubMsg func(m Mutant, show string) string
	// stryker is the status in the mutation-testing-report-schema.
	stryker string
	// css is the class of its colour in the HTML pages: good, bad, warn
	// or none.
	css string
	// cacheable says whether a mutant with this verdict may be kept in
	// the cache and not run again. A verdict that can come from a loaded
	// machine rather than from the mutant is not kept.
	cacheable caching
}

// caching is the status table's cacheable column.
type caching int

const (
	cacheNever  caching = iota
	cacheAlways         // the verdict follows from the code alone
	// cacheIfSpins keeps a timeout stopped at the limit of CPU time (the
	// mutant spins wherever it runs), never one stopped by the clock.
	cacheIfSpins
)

func (c caching) String() string {
	return [...]string{cacheNever: "never", cacheAlways: "yes", cacheIfSpins: "when it spins"}[c]
}

// statuses lists every status, in the order summaries give them.
var statuses = []statusDef{
	{
		status: Killed, detected: true, scored: true, exit: ExitKilled, comparable: true, always: true, telling: 1,
		cacheable: cacheAlways,
		help: `a test failed, or the test binary died while a test ran (that
test is named, with how the binary ended); each such failure
reproduced when run again`,
		junit:   junitPass,
		stryker: "Killed", css: "good",
	},
	{
		status: Survived, scored: true, exit: ExitSurvived, comparable: true, always: true, telling: 8,
		cacheable: cacheAlways,
		help: `every test of the baseline ran and passed: the suite cannot
tell the mutant from the reference`,
		matrix: func(m Mutant) string {
			if len(m.FlakyTests) > 0 && m.Reason != "" {
				return "no failure counts: " + m.Reason
			}
			return "no test failed: the suite cannot tell this mutant from the reference"
		},
		junit:    junitFailure,
		junitMsg: func(Mutant) string { return "mutant survived: no test failed" },
		github:   "error",
		githubMsg: func(_ Mutant, show string) string {
			return "no test failed under this mutant: the suite cannot tell it from the reference. Add a test that observes the difference (" + show + ")."
		},
		stryker: "Survived", css: "bad",
	},
	{
		status: Crashed, detected: true, scored: true, exit: ExitKilled, comparable: true, always: true, telling: 4,
		cacheable: cacheAlways,
		help: `the binary ended before every test ran, with none failing and
none running (an exit at init, in TestMain, between tests), or
failed after every test passed: detected, but by no test`,
		matrix: func(m Mutant) string { return "detected, but by no test: " + m.Reason },
		junit:  junitPass,
		github: "notice",
		githubMsg: func(m Mutant, _ string) string {
			return "no test failed, but the test binary crashed under this mutant: " + m.Reason
		},
		stryker: "RuntimeError", css: "warn",
	},
	{
		status: Timeout, detected: true, scored: true, exit: ExitTimeout, always: true, telling: 2,
		cacheable: cacheIfSpins,
		help: `the binary was still running at the limit and was stopped
(10x the baseline's test run plus 5s, or -timeout; for an
early-kill run, 10x the baseline time of its tests plus 5s), or,
on Linux, had used more CPU time than 10x that baseline time on
every CPU and 10x the binary's start, plus 1s (a run that spins:
"stopped at the limit of 1.2s of CPU time"). If tests had
failed, in a run of every test each test that had not finished
runs alone: those that fail join the failing set, those stopped
again are named as hanging (all passing: killed); in an
early-kill run the failing tests are partial`,
		matrix: func(m Mutant) string {
			if m.Partial {
				return m.Reason + ": the mutant probably hangs; the tests above failed before it was stopped, others might have"
			}
			return m.Reason + ": the mutant probably hangs"
		},
		junit:     junitError,
		junitMsg:  func(m Mutant) string { return "mutant timed out: " + m.Reason },
		github:    "error",
		githubMsg: func(m Mutant, _ string) string { return "the test run under this mutant was " + m.Reason },
		stryker:   "Timeout", css: "warn",
	},
	{
		status: OutOfMemory, detected: true, scored: true, exit: ExitTimeout, telling: 3,
		help: `(Linux) the binary, with the processes it started, held more
memory than its limit (10x the baseline's peak, at least 1GiB,
and at most its share of half the machine's memory among the -j
runs at a time, unless twice the peak is more; or -memory) and
was stopped: detected, like a timeout; tests that failed before
are partial`,
		matrix: func(m Mutant) string {
			if m.Partial {
				return m.Reason + ": the tests above failed before it was stopped, others might have"
			}
			return m.Reason
		},
		junit:     junitError,
		junitMsg:  func(m Mutant) string { return "mutant ran out of memory: " + m.Reason },
		github:    "error",
		githubMsg: func(m Mutant, _ string) string { return "the test run under this mutant was " + m.Reason },
		stryker:   "RuntimeError", css: "warn",
	},
	{
		status: BuildFailed, exit: ExitError, always: true, telling: 6,
		cacheable: cacheAlways,
		help:      `the mutant is not valid Go: a defect of the mutant, never a kill`,
		matrix: func(m Mutant) string {
			return "the mutant does not compile (a defect of the mutant, not a kill):\n" + text.Indent(m.Output, "      ")
		},
		junit:     junitError,
		junitMsg:  func(Mutant) string { return "mutant does not compile" },
		github:    "error",
		githubMsg: func(m Mutant, _ string) string { return "this mutant does not compile:\n" + m.Output },
		stryker:   "CompileError", css: "warn",
	},
	{
		status: NotCovered, scored: true, exit: ExitSurvived, comparable: true, telling: 9,
		cacheable: cacheAlways,
		help: `(generated mutants) no test reaches the mutant's site, so
none runs: the suite cannot see it`,
		matrix:   func(Mutant) string { return "no test reaches it: no test can tell this mutant from the reference" },
		junit:    junitFailure,
		junitMsg: func(Mutant) string { return "mutant not covered: no test reaches it" },
		github:   "error",
		githubMsg: func(_ Mutant, show string) string {
			return "no test reaches this code, so no test can catch a fault in it. Add a test that runs it (" + show + ")."
		},
		stryker: "NoCoverage", css: "bad",
	},
	{
		status: Skipped, scored: true, exit: ExitSurvived, comparable: true, telling: 7,
		cacheable: cacheAlways,
		help: `no test failed, but tests that passed without the mutant
skipped under it: not every test ran, so it did not survive
them all (the tests are named); counted as not detected`,
		matrix: func(m Mutant) string {
			return "no test failed, but these passed without the mutant and skipped under it: " + strings.Join(m.SkippedTests, ", ")
		},
		junit: junitFailure,
		junitMsg: func(m Mutant) string {
			return "no test failed; tests skipped under the mutant: " + strings.Join(m.SkippedTests, ", ")
		},
		github: "error",
		githubMsg: func(m Mutant, show string) string {
			return "no test failed under this mutant, and these tests skipped under it, though they pass without it: " + strings.Join(m.SkippedTests, ", ") + ". Make them observe the difference (" + show + ")."
		},
		stryker: "Survived", css: "bad",
	},
	{
		status: Flaky, exit: ExitError, telling: 5,
		help: `tests failed under the mutant, twice, but no failure
reproduced when run again, or the test also fails without the
mutant: the suite gives no verdict (the tests are named)`,
		matrix: func(m Mutant) string {
			if m.Reason != "" {
				return "no verdict: " + m.Reason
			}
			return "no verdict: these tests failed but did not fail again, or fail without the mutant too: " + strings.Join(m.FlakyTests, ", ")
		},
		junit:    junitError,
		junitMsg: func(m Mutant) string { return "flaky tests, no verdict: " + strings.Join(m.FlakyTests, ", ") },
		github:   "error",
		githubMsg: func(m Mutant, _ string) string {
			return "the tests that failed under this mutant did not fail again, or fail without it too: " + strings.Join(m.FlakyTests, ", ") + ". Make them deterministic."
		},
		stryker: "RuntimeError", css: "warn",
	},
	{
		status: Equivalent, exit: ExitKilled, comparable: true, telling: 0,
		cacheable: cacheAlways,
		help: `(generated mutants) it compiles to the very code of the
reference (trivial compiler equivalence): no test can tell them
apart, so it is not in the score (with -full it does not run)`,
		matrix: func(Mutant) string {
			return "equivalent: it compiles to the reference's code, so no test can tell them apart"
		},
		junit:    junitSkipped,
		junitMsg: func(Mutant) string { return "equivalent: it compiles to the reference's code" },
		stryker:  "Ignored", css: "none",
	},
}

// def returns the row of s; an unknown status (from a newer version's
// results) reads as one that says nothing of the suite.
func (s Status) def() statusDef {
	for _, d := range statuses {
		if d.status == s {
			return d
		}
	}
	return statusDef{status: s, exit: ExitError, junit: junitError, telling: len(statuses),
		junitMsg:  func(Mutant) string { return "unknown status " + string(s) },
		github:    "error",
		githubMsg: func(Mutant, string) string { return "unknown status " + string(s) },
		matrix:    func(Mutant) string { return "unknown status " + string(s) },
		stryker:   "RuntimeError", css: "warn"}
}

// Statuses lists every status, in the order summaries give them.
func Statuses() []Status {
	list := make([]Status, len(statuses))
	for i, d := range statuses {
		list[i] = d.status
	}
	return list
}

// Detected reports whether s counts as caught by the suite in the score:
// killed, crashed or timed out, as Stryker and PIT count timeouts.
func (s Status) Detected() bool { return s.def().detected }

// Comparable reports whether a prediction can be compared with the failing
// tests of a mutant of status s: not if the status says nothing of which
// tests fail (a timeout, a build failure, flaky tests).
func (s Status) Comparable() bool { return s.def().comparable }

// Scored reports whether s counts in the score's denominator.
func (s Status) Scored() bool { return s.def().scored }

// MoreTelling reports whether a run that gave s says more of a mutant than
// one that gave o: equivalent (the compiler's proof, whichever package's
// tests ran), then killed, timeout, out-of-memory, crashed, flaky,
// build-failed, skipped, survived and not-covered.
func (s Status) MoreTelling(o Status) bool { return s.def().telling < o.def().telling }

// CSS returns the class of s's colour in the HTML pages.
func (s Status) CSS() string { return s.def().css }

// StatusHelp returns what each status means, as run's help lists them.
func StatusHelp() string {
	var b strings.Builder
	for _, d := range statuses {
		for i, line := range strings.Split(d.help, "\n") {
			name := ""
			if i == 0 {
				name = string(d.status)
			}
			fmt.Fprintf(&b, "  %-13s %s\n", name, line)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// StatusReference returns every status with what it means and how each
// output counts and shows it, as "mutate help statuses" prints it.
func StatusReference() string {
	var b strings.Builder
	for i, d := range statuses {
		if i > 0 {
			b.WriteString("\n")
		}
		score := "not in the score"
		switch {
		case d.detected:
			score = "detected"
		case d.scored:
			score = "not detected"
		}
		junit := map[junitResult]string{junitPass: "passed", junitFailure: "failure", junitError: "error", junitSkipped: "skipped"}[d.junit]
		github := d.github
		if github == "" {
			github = "none"
		}
		fmt.Fprintf(&b, "%s\n", d.status)
		b.WriteString("    " + text.Wrap(d.help, 78, "    ") + "\n")
		b.WriteString("    " + text.Wrap(fmt.Sprintf("score: %s; exit code: %d; Stryker: %s; JUnit: %s; GitHub annotation: %s; cached: %s",
			score, d.exit, d.stryker, junit, github, d.cacheable), 78, "    ") + "\n")
	}
	return b.String()
}

// Cacheable reports whether m may be kept in the cache and not run again:
// its status's row says so (a timeout at the wall limit, or a run stopped
// at a memory limit that follows from the baseline's peak, may come from
// the machine), and its failing set is complete and saw no flaky test.
func (m Mutant) Cacheable() bool {
	switch m.Status.def().cacheable {
	case cacheNever:
		return false
	case cacheIfSpins:
		if !m.SpinsAlone {
			return false
		}
	}
	return !m.Partial && len(m.FlakyTests) == 0
}

// key returns the name of s's count in the JSON summary: build_failed.
func (s Status) key() string { return strings.ReplaceAll(string(s), "-", "_") }
