// Package report holds the result of a mutation run and writes it as a
// kill matrix, JSON, JUnit XML or GitHub workflow annotations.
package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/text"
)

// Report is the result of one mutation run. Its JSON form (see wire.go)
// is what `mutate run -json` prints and `mutate check -results` reads.
type Report struct {
	Module  string
	Package string // relative to the module root, such as "./stock"; or a pattern, "./..."
	// Packages are the packages of a run of a pattern; their mutants' ids
	// and tests' names are qualified ("lease:TestX", see Qualify).
	Packages []string
	// Shard says which slice of the whole run this report is (-shard).
	Shard     *Shard
	GoVersion string
	Mode      Mode
	Jobs      int
	Limit     float64 // per mutant run
	// MemoryLimit is what a test binary could hold in memory, in bytes;
	// 0 for no limit (another system than Linux, or -memory off).
	MemoryLimit int64
	// Isolation says how the test binaries ran: in sandboxes of their
	// own, of namespaces or of Landlock, or without (IsolationReduced).
	Isolation Isolation
	// LandlockABI is the version of Landlock's ABI that the kernel of a
	// run in Landlock sandboxes offered: which walls they had (see
	// sandbox.LandlockGaps). 0 for another isolation.
	LandlockABI int
	// Binds are the host's directories that each sandbox held, read-only,
	// beside what every one does (-bind).
	Binds    []string
	Baseline Baseline
	Mutants  []Mutant
	// FlakyTests are the tests that passed and failed in runs with the
	// same flags and no mutant: their failures are never kills. Sorted.
	FlakyTests []string
	Seconds    float64 // the whole run, wall clock, from loading the package on
	// Phases break Seconds down: the wall clock of each of the run's
	// phases, in the order they first started.
	Phases []Phase
	// CPUSeconds is the CPU time (user and system) of the run and of every
	// process it started, on CPUs processors: 0 where it is not measured.
	CPUSeconds float64
	CPUs       int
	// Efficiency is the share of the mutants' time spent in the runs that
	// decided their verdicts (see Mutant.DecidingSeconds), of the mutants
	// that ran: what confirming, building and starting cost shows in the
	// rest.
	Efficiency float64
	Cached     bool
	// Dropped are the generated mutants that are not valid Go (a string
	// that an arithmetic operator would subtract, say): not counted, not
	// an error.
	Dropped []Dropped
	// TCE says what trivial compiler equivalence did before the mutants
	// ran; nil when it did not run.
	TCE *TCE
	// NotRun are the packages of a run of a pattern that gave no result
	// (a red or flaky baseline, a build that failed), and why; the run
	// exits 2.
	NotRun []NotRun
	// Interrupted says that a signal stopped the run: Mutants are those
	// that finished, the others are missing. It exits 2.
	Interrupted bool
}

// Isolation is how a run's test binaries ran: the tier of the sandboxes
// they ran in, or none.
type Isolation string

// Isolations of a run, strongest first.
const (
	IsolationNamespaces Isolation = "namespaces" // in sandboxes of namespaces
	IsolationLandlock   Isolation = "landlock"   // in sandboxes of Landlock
	IsolationReduced    Isolation = "reduced"    // without (-sandbox=none): as the user
)

// isolationFull is what version 2 of the JSON form called namespaces,
// then the only sandboxes.
const isolationFull = "full"

// isolations are the isolations, strongest first.
var isolations = []Isolation{IsolationNamespaces, IsolationLandlock, IsolationReduced}

// join returns the isolation of a run of two parts that ran with i and
// o: the weaker.
func (i Isolation) join(o Isolation) Isolation {
	if i == "" || o == "" {
		return cmp.Or(i, o)
	}
	return isolations[max(slices.Index(isolations, i), slices.Index(isolations, o))]
}

// joinABI returns the Landlock ABI of a run of two parts whose Landlock
// sandboxes ran on kernels of ABI a and b (0: none): the older.
func joinABI(a, b int) int {
	if a == 0 || b == 0 {
		return max(a, b)
	}
	return min(a, b)
}

// NotRun is a package of a run of a pattern that gave no result.
type NotRun struct {
	Package string `json:"package"`
	Reason  string `json:"reason"`
}

// TCE is what trivial compiler equivalence did in a run: how many
// generated mutants it compiled, how many it found equivalent to the
// reference or duplicates of another mutant, and in how long.
type TCE struct {
	Compiled   int     `json:"compiled"`
	Equivalent int     `json:"equivalent"`
	Duplicates int     `json:"duplicates"`
	Seconds    float64 `json:"seconds"`
}

// Phase is one phase of a run ("load", "build", "baseline", "coverage",
// "mutants", "equivalence", "reference"), and the wall clock it took,
// summed over the packages of a run of a pattern.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// Dropped is a generated mutant left out of a run, and why.
type Dropped struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// DropInvalidGenerated moves the generated mutants that did not build
// from r's mutants to r.Dropped, and counts the rest again.
func (r *Report) DropInvalidGenerated() {
	kept := r.Mutants[:0:0]
	for _, m := range r.Mutants {
		if m.Generated() && m.Status == BuildFailed {
			r.Dropped = append(r.Dropped, Dropped{ID: m.ID, Reason: text.FirstLine(m.Output)})
			continue
		}
		kept = append(kept, m)
	}
	r.Mutants = kept
}

// IDs returns the ids of r's mutants, in order.
func (r *Report) IDs() []string {
	ids := make([]string, len(r.Mutants))
	for i, m := range r.Mutants {
		ids[i] = m.ID
	}
	return ids
}

// Baseline is the run of the unmutated suite.
type Baseline struct {
	Tests     int      `json:"tests"`      // tests and subtests that ran
	Seconds   float64  `json:"seconds"`    // wall clock of the test binary's run, without its build
	TestNames []string `json:"test_names"` // every test and subtest, sorted
}

// Mutant is the outcome of one mutant.
type Mutant struct {
	ID string
	// Package is the mutant's package in a run of a pattern.
	Package string
	// Ordinal is the mutant's place in the whole run, from 1, in a
	// sharded run: merge puts the shards' mutants back in this order.
	Ordinal int
	Step    int
	Title   string
	Target  string
	Kind    mutation.Kind // of the rewrite: expr, stmt, body, string
	// Operator is the rule that generated the mutant (go tool mutate run
	// -generate); empty for one written by hand.
	Operator mutation.Operator
	File     string // relative to the module root
	Line     int
	// Location is where the rewritten node is in the file (end exclusive),
	// and Replacement the source that takes its place.
	Location    *Location
	Replacement string
	// Contract, Rationale and Seed are what a catalog says the mutant
	// stands for: the contract it breaks, why the contract says so, and
	// the faulty fragment as a design note wrote it.
	Contract  string
	Rationale string
	Seed      string
	// Diff is the mutant as a unified diff against the code.
	Diff string
	// Points is what a prediction of the mutant is worth when graded (the
	// catalog's points:); 0 reads as 1 (see Worth).
	Points      int
	Status      Status
	Build       Mode     // "switch": the one switched build; "overlay": a build of its own
	FailedTests []string // sorted; a subtest is "Parent/sub"; never null
	// CoveredBy are the top-level tests that reach the mutant's site, the
	// only ones its run needs; absent when that is not known (a mutant
	// with a build of its own runs them all).
	CoveredBy []string
	// FirstFailureOnly says that the run stopped at its first failing
	// test (a generated mutant without -full): FailedTests is not the
	// whole set that fails, and predictions cannot be compared with it.
	FirstFailureOnly bool
	// Partial says that the run was stopped at its limit after some tests
	// had failed: FailedTests are those that failed before it, and others
	// might have.
	Partial  bool
	Failures []Failure // one per failed test, in the same order; never null
	// SkippedTests are the tests that passed without the mutant and
	// skipped under it. Sorted.
	SkippedTests []string
	// FlakyTests are the tests that failed under the mutant but are not
	// counted as killers: they passed when run again under it, or failed
	// without it too. Sorted.
	FlakyTests []string
	// Reason says, for a crashed or timed-out mutant, how its run ended;
	// Running names the tests that had started and not finished then.
	Reason  string
	Running []string
	// SpinsAlone says that a timed-out mutant's run was stopped at its
	// limit of CPU time: it spins, which a machine's load does not bring
	// about, so the verdict is kept like a kill.
	SpinsAlone bool
	// DuplicateOf names the mutant that compiles to the same code as this
	// one (trivial compiler equivalence): this one has that one's
	// verdict (and in a -full run, did not run).
	DuplicateOf string
	// Dominator and SubsumedBy place a killed mutant of a full run in the
	// subsumption of the kill matrix (see Subsume): a dominator has a
	// minimal set of killing tests; a subsumed mutant is killed by every
	// test that kills the dominators named.
	Dominator   bool
	SubsumedBy  []string
	Output      string  // the compiler's messages, or the binary's output outside any test
	Seconds     float64 // wall clock of its build, if it had its own, and its test run
	TestSeconds float64 // of which the test binary ran
	// DecidingSeconds is the wall clock of the run that decided its
	// verdict: the run in which its killers first failed, or its
	// survivor's run of every test; the rest of Seconds went to
	// confirming, building, starting.
	DecidingSeconds float64
	// Reused counts the top-level tests whose outcomes under the mutant
	// came from an earlier run, their functions unchanged since (see
	// harness's per-test reuse); ReusedFrom is when the oldest of them
	// ran.
	Reused     int
	ReusedFrom time.Time
}

// Location is a range of a file: start inclusive, end exclusive.
type Location struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is a place in a file; both count from 1.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Generated reports whether an operator generated m from the code, rather
// than a catalog's author (see mutation.Operator.Generated).
func (m *Mutant) Generated() bool { return m.Operator.Generated() }

// Worth returns what a prediction of m is worth when graded: its points,
// 1 by default.
func (m *Mutant) Worth() int {
	if m.Points < 1 {
		return 1
	}
	return m.Points
}

// AddFailure records that test failed under m, with its message.
func (m *Mutant) AddFailure(test, message string) {
	m.FailedTests = append(m.FailedTests, test)
	m.Failures = append(m.Failures, Failure{Test: test, Message: message})
}

// Failure is what one failing test reported: the observation that exposed
// the mutant.
type Failure struct {
	Test    string `json:"test"`
	Message string `json:"message"`
}

// Summary counts the mutants by status.
type Summary struct {
	Total  int
	counts map[Status]int
	// Score is the mutation score: the share of the scored mutants (all
	// but build-failed and flaky) that the suite detected (killed,
	// crashed or timed out, as Stryker and PIT count timeouts); 1 when
	// none is scored.
	Score float64
	// Dominators and SubsumingScore are the subsumption of a full run's
	// kill matrix (see Subsume), when Subsumed: the dominator mutants, and
	// the share of the dominators and undetected mutants that are killed
	// dominators.
	Subsumed       bool
	Dominators     int
	SubsumingScore float64
}

// Summary counts the statuses of the report's mutants: derived, never
// stored.
func (r *Report) Summary() Summary { return Summarize(r.Mutants) }

// Summarize counts the statuses of ms.
func Summarize(ms []Mutant) Summary {
	s := Summary{Total: len(ms), counts: map[Status]int{}}
	scored, detected := 0, 0
	for _, m := range ms {
		s.counts[m.Status]++
		if m.Status.Scored() {
			scored++
			if m.Status.Detected() {
				detected++
			}
		}
	}
	s.Score = 1
	if scored > 0 {
		s.Score = math.Round(float64(detected)/float64(scored)*1e4) / 1e4
	}
	s.Dominators, s.SubsumingScore, s.Subsumed = subsumingScore(ms)
	return s
}

// Count returns how many mutants have status st.
func (s Summary) Count(st Status) int { return s.counts[st] }

// Equal reports whether s and o give the same figures.
func (s Summary) Equal(o Summary) bool {
	if s.Total != o.Total || s.Score != o.Score {
		return false
	}
	for _, st := range []map[Status]int{s.counts, o.counts} {
		for k := range st {
			if s.counts[k] != o.counts[k] {
				return false
			}
		}
	}
	return true
}

// String counts every status, those that are not always counted only
// when some mutant has them.
func (s Summary) String() string {
	var counts []string
	for _, d := range statuses {
		if !d.always && s.counts[d.status] == 0 {
			continue
		}
		counts = append(counts, fmt.Sprintf("%d %s", s.counts[d.status], d.status))
	}
	return text.Count(s.Total, "mutant", "mutants") + ": " + strings.Join(counts, ", ")
}

// MarshalJSON writes the summary as an object: total, a count per status
// (build_failed for build-failed), and score.
func (s Summary) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `{"total":%d`, s.Total)
	for _, d := range statuses {
		fmt.Fprintf(&b, `,%q:%d`, d.status.key(), s.counts[d.status])
	}
	score, err := json.Marshal(s.Score)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, `,"score":%s`, score)
	if s.Subsumed {
		sub, err := json.Marshal(s.SubsumingScore)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, `,"dominators":%d,"subsuming_score":%s`, s.Dominators, sub)
	}
	b.WriteString("}")
	return []byte(b.String()), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Summary) UnmarshalJSON(data []byte) error {
	var raw map[string]json.Number
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*s = Summary{counts: map[Status]int{}}
	for k, v := range raw {
		switch k {
		case "total":
			n, err := v.Int64()
			if err != nil {
				return fmt.Errorf("summary total: %w", err)
			}
			s.Total = int(n)
		case "score", "subsuming_score":
			f, err := v.Float64()
			if err != nil {
				return fmt.Errorf("summary %s: %w", k, err)
			}
			if k == "score" {
				s.Score = f
			} else {
				s.SubsumingScore, s.Subsumed = f, true
			}
		case "dominators":
			n, err := v.Int64()
			if err != nil {
				return fmt.Errorf("summary dominators: %w", err)
			}
			s.Dominators = int(n)
		default:
			n, err := v.Int64()
			if err != nil {
				return fmt.Errorf("summary %s: %w", k, err)
			}
			s.counts[Status(strings.ReplaceAll(k, "_", "-"))] = int(n)
		}
	}
	return nil
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// ReadFile reads a report written by WriteJSON.
func ReadFile(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a mutate run -json result: %w", path, err)
	}
	if len(r.Mutants) == 0 || len(r.Baseline.TestNames) == 0 {
		return nil, fmt.Errorf("%s: not a mutate run -json result: no mutants or no baseline tests", path)
	}
	for i := range r.Mutants {
		m := &r.Mutants[i]
		if m.FailedTests == nil {
			m.FailedTests = []string{}
		}
		if m.Failures == nil {
			m.Failures = []Failure{}
		}
		if len(m.Failures) != len(m.FailedTests) {
			return nil, fmt.Errorf("%s: mutant %s has %d failed tests but %d failures", path, m.ID, len(m.FailedTests), len(m.Failures))
		}
		for i, f := range m.Failures {
			if f.Test != m.FailedTests[i] {
				return nil, fmt.Errorf("%s: mutant %s: failure %d is for %s, not %s", path, m.ID, i, f.Test, m.FailedTests[i])
			}
		}
	}
	return &r, nil
}

// Mode is how mutants are built: one switched build that holds them all,
// or a build of each one's own.
type Mode string

// Modes of a build.
const (
	ModeSwitch  Mode = "switch"  // one build for all mutants, chosen at run time
	ModeOverlay Mode = "overlay" // one build per mutant
)
