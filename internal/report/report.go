// Package report holds the result of a mutation run and writes it as a
// kill matrix, JSON, JUnit XML or GitHub workflow annotations.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Statuses of a mutant.
const (
	Killed      = "killed"       // at least one test failed
	Survived    = "survived"     // every test passed
	Timeout     = "timeout"      // the run exceeded its limit, twice
	BuildFailed = "build-failed" // the mutant did not compile: a catalog defect
)

// Report is the result of one mutation run. Its JSON form is what
// `mutate run -json` prints and `mutate check -results` reads.
type Report struct {
	Module    string   `json:"module"`
	Package   string   `json:"package"` // relative to the module root, such as "./lease"
	GoVersion string   `json:"go_version"`
	Mode      string   `json:"mode"`
	Jobs      int      `json:"jobs"`
	Limit     float64  `json:"timeout_seconds"` // per mutant run
	Baseline  Baseline `json:"baseline"`
	Mutants   []Mutant `json:"mutants"`
	Summary   Summary  `json:"summary"`
	Seconds   float64  `json:"seconds"` // the whole run, wall clock
	Cached    bool     `json:"cached,omitempty"`
}

// Baseline is the run of the unmutated suite.
type Baseline struct {
	Tests     int      `json:"tests"`      // tests and subtests that ran
	Seconds   float64  `json:"seconds"`    // wall clock of the test binary's run, without its build
	TestNames []string `json:"test_names"` // every test and subtest, sorted
}

// Mutant is the outcome of one mutant.
type Mutant struct {
	ID          string    `json:"id"`
	Step        int       `json:"step"`
	Title       string    `json:"title"`
	Target      string    `json:"target"`
	File        string    `json:"file"` // relative to the module root
	Line        int       `json:"line"`
	Status      string    `json:"status"`
	Build       string    `json:"build"`        // "switch": the one switched build; "overlay": a build of its own
	FailedTests []string  `json:"failed_tests"` // sorted; a subtest is "Parent/sub"
	Failures    []Failure `json:"failures"`     // one per failed test, in the same order
	Output      string    `json:"output,omitempty"`
	Seconds     float64   `json:"seconds"`      // wall clock of its build, if it had its own, and its test run
	TestSeconds float64   `json:"test_seconds"` // of which the test binary ran
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
	Timeout     int `json:"timeout"`
	BuildFailed int `json:"build_failed"`
}

// Summarize counts the statuses of ms.
func Summarize(ms []Mutant) Summary {
	s := Summary{Total: len(ms)}
	for _, m := range ms {
		switch m.Status {
		case Killed:
			s.Killed++
		case Survived:
			s.Survived++
		case Timeout:
			s.Timeout++
		case BuildFailed:
			s.BuildFailed++
		}
	}
	return s
}

func (s Summary) String() string {
	return fmt.Sprintf("%d mutants: %d killed, %d survived, %d timeout, %d build-failed",
		s.Total, s.Killed, s.Survived, s.Timeout, s.BuildFailed)
}

// Exit codes of a run, as documented in mutate -h.
const (
	ExitKilled   = 0 // every mutant killed
	ExitSurvived = 1 // some mutant survived
	ExitError    = 2 // usage, input or harness error, or a build-failed mutant
	ExitTimeout  = 3 // some mutant timed out, and none survived
)

// ExitCode returns the exit code for the report.
func (r *Report) ExitCode() int {
	switch s := r.Summary; {
	case s.BuildFailed > 0:
		return ExitError
	case s.Survived > 0:
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
	for _, m := range r.Mutants {
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
