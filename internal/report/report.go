// Package report holds the result of a mutation run and writes it as a
// kill matrix, JSON, JUnit XML or GitHub workflow annotations.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/fencelab/fencelab/internal/text"
)

// Status is the verdict on a mutant.
type Status string

// Statuses of a mutant. A verdict rests on the events of the test binary,
// compared with the baseline's tests.
const (
	// Killed: at least one test failed, or the test binary died while a
	// test ran (that test is named, with how the binary ended).
	Killed Status = "killed"
	// Survived: every test of the baseline ran and passed.
	Survived Status = "survived"
	// Crashed: the binary ended before every test of the baseline had
	// reported, with none failing and none running (an exit at init or in
	// TestMain, a crash between tests), or failed although every test
	// passed. The mutant was detected, but by no test.
	Crashed Status = "crashed"
	// Timeout: the binary was still running at the limit and was stopped,
	// with no test failed before.
	Timeout Status = "timeout"
	// BuildFailed: the mutant is not valid Go: a defect of the mutant,
	// never a kill.
	BuildFailed Status = "build-failed"
	// NotCovered: no test reaches the mutant's site (from the switched
	// build with no mutant active, one test per run), so none can kill
	// it; it does not run, and counts as survived in the gate.
	NotCovered Status = "not-covered"
)

// Statuses lists every status, in the order summaries give them.
var Statuses = []Status{Killed, Survived, Crashed, Timeout, BuildFailed, NotCovered}

// Detected reports whether s counts as caught by the suite in the gate.
func (s Status) Detected() bool {
	return s == Killed || s == Crashed
}

// Report is the result of one mutation run. Its JSON form is what
// `mutate run -json` prints and `mutate check -results` reads.
type Report struct {
	Module  string `json:"module"`
	Package string `json:"package"` // relative to the module root, such as "./stock"; or a pattern, "./..."
	// Packages are the packages of a run of a pattern; their mutants' ids
	// and tests' names are qualified ("lease:TestX", see Qualify).
	Packages []string `json:"packages,omitempty"`
	// Shard says which slice of the whole run this report is (-shard).
	Shard     *Shard   `json:"shard,omitempty"`
	GoVersion string   `json:"go_version"`
	Mode      string   `json:"mode"`
	Jobs      int      `json:"jobs"`
	Limit     float64  `json:"timeout_seconds"` // per mutant run
	Baseline  Baseline `json:"baseline"`
	Mutants   []Mutant `json:"mutants"`
	Summary   Summary  `json:"summary"`
	Seconds   float64  `json:"seconds"` // the whole run, wall clock
	Cached    bool     `json:"cached,omitempty"`
	// Dropped are the generated mutants that are not valid Go (a string
	// that an arithmetic operator would subtract, say): not counted, not
	// an error.
	Dropped []Dropped `json:"dropped,omitempty"`
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
		if m.Operator != "" && m.Status == BuildFailed {
			r.Dropped = append(r.Dropped, Dropped{ID: m.ID, Reason: firstLine(m.Output)})
			continue
		}
		kept = append(kept, m)
	}
	r.Mutants, r.Summary = kept, Summarize(kept)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// Baseline is the run of the unmutated suite.
type Baseline struct {
	Tests     int      `json:"tests"`      // tests and subtests that ran
	Seconds   float64  `json:"seconds"`    // wall clock of the test binary's run, without its build
	TestNames []string `json:"test_names"` // every test and subtest, sorted
}

// Mutant is the outcome of one mutant.
type Mutant struct {
	ID string `json:"id"`
	// Package is the mutant's package in a run of a pattern.
	Package string `json:"package,omitempty"`
	// Ordinal is the mutant's place in the whole run, from 1, in a
	// sharded run: merge puts the shards' mutants back in this order.
	Ordinal int    `json:"ordinal,omitempty"`
	Step    int    `json:"step"`
	Title   string `json:"title"`
	Target  string `json:"target"`
	Kind    string `json:"kind,omitempty"` // of the rewrite: expr, stmt, body, string
	// Operator is the rule that generated the mutant (go tool mutate run
	// -generate); empty for one written by hand.
	Operator string `json:"operator,omitempty"`
	File     string `json:"file"` // relative to the module root
	Line     int    `json:"line"`
	// Location is where the rewritten node is in the file (end exclusive),
	// and Replacement the source that takes its place.
	Location    *Location `json:"location,omitempty"`
	Replacement string    `json:"replacement,omitempty"`
	// Diff is the mutant as a unified diff against the code.
	Diff        string   `json:"diff,omitempty"`
	Status      Status   `json:"status"`
	Build       string   `json:"build"`        // "switch": the one switched build; "overlay": a build of its own
	FailedTests []string `json:"failed_tests"` // sorted; a subtest is "Parent/sub"; never null
	// CoveredBy are the top-level tests that reach the mutant's site, the
	// only ones its run needs; absent when that is not known (a mutant
	// with a build of its own runs them all).
	CoveredBy []string `json:"covered_by,omitempty"`
	// FirstFailureOnly says that the run stopped at its first failing
	// test (a generated mutant without -full): FailedTests is not the
	// whole set that fails, and predictions cannot be compared with it.
	FirstFailureOnly bool      `json:"first_failure_only,omitempty"`
	Failures         []Failure `json:"failures"` // one per failed test, in the same order; never null
	// Reason says, for a crashed or timed-out mutant, how its run ended;
	// Running names the tests that had started and not finished then.
	Reason      string   `json:"reason,omitempty"`
	Running     []string `json:"running,omitempty"`
	Output      string   `json:"output,omitempty"` // the compiler's messages, or the binary's output outside any test
	Seconds     float64  `json:"seconds"`          // wall clock of its build, if it had its own, and its test run
	TestSeconds float64  `json:"test_seconds"`     // of which the test binary ran
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
	Total       int `json:"total"`
	Killed      int `json:"killed"`
	Survived    int `json:"survived"`
	Crashed     int `json:"crashed"`
	Timeout     int `json:"timeout"`
	BuildFailed int `json:"build_failed"`
	NotCovered  int `json:"not_covered"`
	// Score is the mutation score: the share of the mutants that ran (all
	// but build-failed) that the suite detected (killed, crashed or timed
	// out, as Stryker and PIT count timeouts); 1 when none ran.
	Score float64 `json:"score"`
}

// Summarize counts the statuses of ms.
func Summarize(ms []Mutant) Summary {
	s := Summary{Total: len(ms)}
	for _, m := range ms {
		if n := s.count(m.Status); n != nil {
			*n++
		}
	}
	s.Score = 1
	if ran := s.Total - s.BuildFailed; ran > 0 {
		s.Score = math.Round(float64(s.Killed+s.Crashed+s.Timeout)/float64(ran)*1e4) / 1e4
	}
	return s
}

// count returns the counter of status st.
func (s *Summary) count(st Status) *int {
	switch st {
	case Killed:
		return &s.Killed
	case Survived:
		return &s.Survived
	case Crashed:
		return &s.Crashed
	case Timeout:
		return &s.Timeout
	case BuildFailed:
		return &s.BuildFailed
	case NotCovered:
		return &s.NotCovered
	}
	return nil
}

// String counts every status, "not-covered" only when some mutant is.
func (s Summary) String() string {
	var counts []string
	for _, st := range Statuses {
		if st == NotCovered && s.NotCovered == 0 {
			continue
		}
		counts = append(counts, fmt.Sprintf("%d %s", *s.count(st), st))
	}
	return text.Count(s.Total, "mutant", "mutants") + ": " + strings.Join(counts, ", ")
}

// Exit codes of a run, as documented in mutate -h.
const (
	ExitKilled   = 0 // every mutant killed
	ExitSurvived = 1 // some mutant survived, or no test reaches it
	ExitError    = 2 // usage, input or harness error, or a build-failed mutant
	ExitTimeout  = 3 // some mutant timed out, and none survived
)

// ExitCodeMinScore returns the exit code of a run gated on its mutation
// score instead of every mutant's fate: 1 if the score is below min, 2 for
// a build-failed mutant, and 0 otherwise (timeouts count as detected).
func (r *Report) ExitCodeMinScore(min float64) int {
	switch {
	case r.Summary.BuildFailed > 0:
		return ExitError
	case r.Summary.Score < min:
		return ExitSurvived
	}
	return ExitKilled
}

// ExitCode returns the exit code for the report. A crashed mutant counts
// as detected.
func (r *Report) ExitCode() int {
	switch s := r.Summary; {
	case s.BuildFailed > 0:
		return ExitError
	case s.Survived > 0, s.NotCovered > 0:
		return ExitSurvived
	case s.Timeout > 0:
		return ExitTimeout
	}
	return ExitKilled
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
