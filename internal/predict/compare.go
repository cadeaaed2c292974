package predict

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fencelab/fencelab/internal/report"
)

// Outcome compares one prediction with what happened to one mutant.
type Outcome struct {
	Mutant       string        `json:"mutant"`
	Step         int           `json:"step"`
	Status       report.Status `json:"status"`
	Predicted    []string      `json:"predicted"`     // as written; nil when NotPredicted
	Failed       []string      `json:"failed"`        // every test that failed, subtests included
	Right        []string      `json:"right"`         // predicted, and failed
	Wrong        []string      `json:"wrong"`         // predicted, but passed
	Missed       []Missed      `json:"missed"`        // failed, but not predicted
	Exact        bool          `json:"exact"`         // nothing wrong and nothing missed
	NotPredicted bool          `json:"not_predicted"` // the file has no prediction for it
	Why          string        `json:"why,omitempty"`
}

// BinaryFailed stands in Missed for a test binary that failed outside any
// test, in TestMain or in a package's initialization.
const BinaryFailed = "(the test binary, outside any test)"

// Missed is a failing test the learner did not foresee, with what it
// reported: the observation that exposed the mutant.
type Missed struct {
	Test    string `json:"test"`
	Message string `json:"message"`
}

// Score is the comparison of one prediction file with one run.
type Score struct {
	File      string    `json:"file"`
	Learner   string    `json:"learner,omitempty"`
	Outcomes  []Outcome `json:"outcomes"` // in the run's mutant order
	Exact     int       `json:"exact"`    // outcomes that are exact
	Total     int       `json:"total"`    // mutants in the run
	Right     int       `json:"right"`
	Wrong     int       `json:"wrong"`
	Missed    int       `json:"missed"`
	Precision float64   `json:"precision"` // right / (right + wrong); 1 when nothing was predicted to fail
	Recall    float64   `json:"recall"`    // right / (right + missed); 1 when nothing failed
}

// Name returns the learner's name, or the file's path.
func (s *Score) Name() string {
	if s.Learner != "" {
		return s.Learner
	}
	return s.File
}

// Compare scores f against the mutants of rep.
//
// The comparison works at the granularity the learner chose. A predicted
// top-level name is compared with that test's outcome, and since a parent
// fails when a subtest does, the failing subtests under a predicted parent
// are not missed. A predicted subtest is compared with that subtest, and
// its failing parent is not missed either.
func Compare(f *File, rep *report.Report) *Score {
	s := &Score{File: f.Path, Learner: f.Learner, Total: len(rep.Mutants)}
	for _, m := range rep.Mutants {
		o := Outcome{Mutant: m.ID, Step: m.Step, Status: m.Status, Failed: m.FailedTests,
			Right: []string{}, Wrong: []string{}, Missed: []Missed{}}
		p := f.Lookup(m.ID)
		if p == nil {
			o.NotPredicted = true
			s.Outcomes = append(s.Outcomes, o)
			continue
		}
		o.Predicted, o.Why = p.Fails, p.Why
		failed := map[string]bool{}
		for _, name := range m.FailedTests {
			failed[name] = true
		}
		for _, name := range p.Fails {
			if failed[name] {
				o.Right = append(o.Right, name)
			} else {
				o.Wrong = append(o.Wrong, name)
			}
		}
		for i, name := range m.FailedTests {
			if !covered(name, p.Fails, failed) {
				o.Missed = append(o.Missed, Missed{Test: name, Message: m.Failures[i].Message})
			}
		}
		if m.Status == report.Crashed {
			// The test binary failed outside any test: whatever was
			// predicted, that was not foreseen.
			o.Missed = append(o.Missed, Missed{Test: BinaryFailed, Message: strings.TrimSpace(m.Reason + "\n" + m.Output)})
		}
		o.Exact = len(o.Wrong) == 0 && len(o.Missed) == 0
		if o.Exact {
			s.Exact++
		}
		s.Right += len(o.Right)
		s.Wrong += len(o.Wrong)
		s.Missed += len(o.Missed)
		s.Outcomes = append(s.Outcomes, o)
	}
	s.Precision = ratio(s.Right, s.Right+s.Wrong)
	s.Recall = ratio(s.Right, s.Right+s.Missed)
	return s
}

// covered reports whether the failure of test name is accounted for by the
// predicted names: predicted itself, under a predicted parent, or the
// parent of a predicted subtest that failed.
func covered(name string, predicted []string, failed map[string]bool) bool {
	for _, p := range predicted {
		switch {
		case p == name:
			return true
		case strings.HasPrefix(name, p+"/"):
			return true
		case strings.HasPrefix(p, name+"/") && failed[p]:
			return true
		}
	}
	return false
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// Class is the comparison of several prediction files with one run.
type Class struct {
	Scores []*Score `json:"files"`
	// Mispredicted counts, for every mutant, the files whose prediction of
	// it was not exact, most mispredicted first.
	Mispredicted []MutantCount `json:"mispredicted"`
}

// MutantCount is how many files mispredicted one mutant.
type MutantCount struct {
	Mutant string `json:"mutant"`
	Files  int    `json:"files"`
}

// NewClass gathers scores and counts the mispredictions of each mutant.
func NewClass(scores []*Score) *Class {
	c := &Class{Scores: scores}
	counts := map[string]int{}
	var order []string
	for _, s := range scores {
		for _, o := range s.Outcomes {
			if !slices.Contains(order, o.Mutant) {
				order = append(order, o.Mutant)
			}
			if !o.Exact && !o.NotPredicted {
				counts[o.Mutant]++
			}
		}
	}
	for _, id := range order {
		c.Mispredicted = append(c.Mispredicted, MutantCount{Mutant: id, Files: counts[id]})
	}
	sort.SliceStable(c.Mispredicted, func(i, j int) bool { return c.Mispredicted[i].Files > c.Mispredicted[j].Files })
	return c
}

// AllExact reports whether every prediction of every file was exact. With
// -partial, a mutant a file does not predict is no prediction at all.
func (c *Class) AllExact() bool {
	for _, s := range c.Scores {
		for _, o := range s.Outcomes {
			if !o.Exact && !o.NotPredicted {
				return false
			}
		}
	}
	return true
}

// Comparable returns an error if a mutant of rep has a status that a
// prediction cannot be compared with (a build failure, a timeout or flaky
// tests say nothing of which tests fail), or failing tests that are not
// all that fail: a run stopped at its limit after some had failed
// (partial), or at its first failing test (early kill).
func Comparable(rep *report.Report) error {
	var bad, partial, early []string
	for _, m := range rep.Mutants {
		switch {
		case m.Partial:
			partial = append(partial, m.ID)
		case !m.Status.Comparable():
			bad = append(bad, fmt.Sprintf("%s (%s)", m.ID, m.Status))
		case m.FirstFailureOnly:
			early = append(early, m.ID)
		}
	}
	if len(partial) > 0 {
		return fmt.Errorf("cannot compare predictions with mutants whose run was stopped at its limit after some tests had failed (the failing tests are partial): %s", strings.Join(partial, ", "))
	}
	if len(bad) > 0 {
		return fmt.Errorf("cannot compare predictions with mutants that timed out, do not compile or have flaky tests: %s", strings.Join(bad, ", "))
	}
	if len(early) > 0 {
		return fmt.Errorf("cannot compare predictions with mutants whose run stopped at the first failing test (run them with -full): %s", strings.Join(early, ", "))
	}
	return nil
}
