package predict

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// Match compares one prediction with what happened to one mutant.
type Match struct {
	Mutant       string        `json:"mutant"`
	Step         int           `json:"step"`
	Title        string        `json:"title,omitempty"`
	Status       report.Status `json:"status"`
	Predicted    []string      `json:"predicted"`     // as written; nil when NotPredicted
	Failed       []string      `json:"failed"`        // every test that failed, subtests included
	Right        []string      `json:"right"`         // predicted, and failed
	Wrong        []string      `json:"wrong"`         // predicted, but passed
	Missed       []Missed      `json:"missed"`        // failed, but not predicted
	Exact        bool          `json:"exact"`         // nothing wrong and nothing missed
	NotPredicted bool          `json:"not_predicted"` // the file has no prediction for it, or leaves it blank: not answered
	Why          string        `json:"why,omitempty"`
	Answer       string        `json:"answer,omitempty"` // to the step's question, if the exercise asks one
	// F1 is the harmonic mean of the prediction's precision and recall
	// against the failing set (see Compare); Points what it earned of
	// MaxPoints, the mutant's worth, under the score's credit.
	F1        float64 `json:"f1"`
	Points    float64 `json:"points"`
	MaxPoints int     `json:"max_points"`
}

// binaryFailed stands in Missed for a test binary that failed outside any
// test, in TestMain or in a package's initialization.
const binaryFailed = "(the test binary, outside any test)"

// Missed is a failing test the learner did not foresee, with what it
// reported: the observation that exposed the mutant.
type Missed struct {
	Test    string `json:"test"`
	Message string `json:"message"`
}

// Credit says how a prediction earns its mutant's points.
type Credit string

const (
	// CreditExact gives a mutant's points to an exact prediction only.
	CreditExact Credit = "exact"
	// CreditPartial gives them in proportion to the prediction's F1.
	CreditPartial Credit = "partial"
)

// ParseCredit reads a -credit flag.
func ParseCredit(s string) (Credit, error) {
	switch c := Credit(s); c {
	case CreditExact, CreditPartial:
		return c, nil
	}
	return "", fmt.Errorf("-credit %q: want exact (a mutant's points for an exact prediction) or partial (in proportion to its F1)", s)
}

// Ratio is a share that may be undefined: the precision of a file that
// predicts no failure, the recall of a run where nothing failed. It is
// written as "–" in text and null in JSON then, never as a score.
type Ratio struct {
	N, D int
}

// Defined reports whether the ratio has a denominator.
func (r Ratio) Defined() bool { return r.D > 0 }

// Value returns N/D, 0 when undefined.
func (r Ratio) Value() float64 {
	if r.D == 0 {
		return 0
	}
	return float64(r.N) / float64(r.D)
}

// String returns the ratio with two decimals, or "–".
func (r Ratio) String() string {
	if !r.Defined() {
		return "–"
	}
	return fmt.Sprintf("%.2f", r.Value())
}

// MarshalJSON writes the ratio as a number, or null when undefined.
func (r Ratio) MarshalJSON() ([]byte, error) {
	if !r.Defined() {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(r.Value(), 'f', -1, 64)), nil
}

// Score is the comparison of one prediction file with one run.
type Score struct {
	File      string  `json:"file"`
	Learner   string  `json:"learner,omitempty"`
	Matches   []Match `json:"outcomes"` // in the run's mutant order (the key is kept: check -json's format)
	Exact     int     `json:"exact"`    // matches that are exact
	Answered  int     `json:"answered"` // matches predicted, not left blank or out
	Total     int     `json:"total"`    // mutants in the run
	Right     int     `json:"right"`
	Wrong     int     `json:"wrong"`
	Missed    int     `json:"missed"`
	Precision Ratio   `json:"precision"` // right / (right + wrong); undefined when nothing was predicted to fail
	Recall    Ratio   `json:"recall"`    // right / (right + missed); undefined when nothing failed
	// Points is what the file earned of MaxPoints, the sum of the
	// mutants' worth, under Credit.
	Points    float64 `json:"points"`
	MaxPoints int     `json:"max_points"`
	Credit    Credit  `json:"credit"`
	// Model says that the file is the exercise's model answer (the
	// catalog's report.predictions), not a learner's.
	Model bool `json:"model_answer,omitempty"`
	// Problems are why the file could not be compared: it earns nothing.
	Problems []string `json:"problems,omitempty"`
	// Worksheet are the file's answers to the exercise's closing
	// questions, in the exercise's order (see Outputs.Class): read by the
	// instructor, never graded.
	Worksheet []WorksheetAnswer `json:"worksheet,omitempty"`
	// ShowAnswers makes the text outputs show what failed under the
	// mutants the file did not answer (check -answers); without it they
	// say only that they were not answered.
	ShowAnswers bool `json:"-"`
}

// WorksheetAnswer is a learner's answer to one of the exercise's closing
// questions.
type WorksheetAnswer struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Answer   string `json:"answer"` // "" when not answered
}

// answerWorksheet sets s's worksheet: f's answer to each of questions.
func (s *Score) answerWorksheet(questions []exercise.Question, f *File) {
	s.Worksheet = nil
	for _, q := range questions {
		s.Worksheet = append(s.Worksheet, WorksheetAnswer{ID: q.ID, Question: q.Question, Answer: f.Worksheet[q.ID]})
	}
}

// WorksheetAnswered returns how many of the worksheet's questions s
// answers.
func (s *Score) WorksheetAnswered() int {
	n := 0
	for _, a := range s.Worksheet {
		if a.Answer != "" {
			n++
		}
	}
	return n
}

// Name returns the learner's name, or the file's path, as one line
// of output shows it (see text.Name).
func (s *Score) Name() string {
	if s.Learner != "" {
		return text.Name(s.Learner)
	}
	return text.Name(s.File)
}

// Compare scores f against the mutants of rep, each prediction earning
// its mutant's points under credit.
//
// The comparison works at the granularity the learner chose. A predicted
// top-level name is compared with that test's outcome, and since a parent
// fails when a subtest does, the failing subtests under a predicted parent
// are not missed. A predicted subtest is compared with that subtest, and
// its failing parent is not missed either.
//
// A prediction's F1 is 2·right / (2·right + wrong + missed), counted at
// that granularity: 1 when it is exact (a survivor predicted to survive
// included), 0 when nothing it predicted failed or it is missing. With
// CreditExact an exact prediction earns the mutant's points and any other
// none; with CreditPartial it earns points × F1.
func Compare(f *File, rep *report.Report, credit Credit) *Score {
	s := &Score{File: f.Path, Learner: f.Learner, Total: len(rep.Mutants), Credit: credit}
	for _, m := range rep.Mutants {
		o := Match{Mutant: m.ID, Step: m.Step, Title: m.Title, Status: m.Status, Failed: m.FailedTests,
			Right: []string{}, Wrong: []string{}, Missed: []Missed{}, MaxPoints: m.Worth()}
		s.MaxPoints += o.MaxPoints
		p := f.Lookup(m.ID)
		if p == nil || !p.Answered {
			o.NotPredicted = true
			s.Matches = append(s.Matches, o)
			continue
		}
		s.Answered++
		o.Predicted, o.Why, o.Answer = p.Fails, p.Why, p.Answer
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
			o.Missed = append(o.Missed, Missed{Test: binaryFailed, Message: strings.TrimSpace(m.Reason + "\n" + m.Output)})
		}
		o.Exact = len(o.Wrong) == 0 && len(o.Missed) == 0
		o.F1 = f1(len(o.Right), len(o.Wrong), len(o.Missed))
		switch {
		case o.Exact:
			o.Points = float64(o.MaxPoints)
			s.Exact++
		case credit == CreditPartial:
			o.Points = float64(o.MaxPoints) * o.F1
		}
		s.Points += o.Points
		s.Right += len(o.Right)
		s.Wrong += len(o.Wrong)
		s.Missed += len(o.Missed)
		s.Matches = append(s.Matches, o)
	}
	s.Precision = Ratio{s.Right, s.Right + s.Wrong}
	s.Recall = Ratio{s.Right, s.Right + s.Missed}
	return s
}

// invalidScore is the score of a file that could not be compared with
// rep's mutants: every prediction missing, nothing earned, and why.
func invalidScore(inv Invalid, rep *report.Report) *Score {
	s := &Score{File: inv.File, Learner: inv.Learner, Total: len(rep.Mutants), Credit: CreditExact, Problems: inv.Problems}
	for _, m := range rep.Mutants {
		o := Match{Mutant: m.ID, Step: m.Step, Title: m.Title, Status: m.Status, NotPredicted: true, MaxPoints: m.Worth()}
		s.MaxPoints += o.MaxPoints
		s.Matches = append(s.Matches, o)
	}
	return s
}

// f1 is 2r / (2r + w + m), and 1 when all three are 0.
func f1(right, wrong, missed int) float64 {
	if right+wrong+missed == 0 {
		return 1
	}
	return float64(2*right) / float64(2*right+wrong+missed)
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

// Class is the comparison of several prediction files with one run: the
// learners' files, the invalid ones, and the model answer apart.
type Class struct {
	Scores []*Score `json:"files"` // the learners' valid files, in the order given
	// Invalid are the files that could not be compared, with their
	// problems.
	Invalid []Invalid `json:"invalid,omitempty"`
	// Model is the exercise's model answer, when it was among the files:
	// shown, never counted in the class's figures.
	Model *Score `json:"model_answer,omitempty"`
	// Mispredicted counts, for every mutant, the learners whose prediction
	// of it was not exact, most mispredicted first.
	Mispredicted []mutantCount `json:"mispredicted"`
	showAnswers  bool
}

// mutantCount is how many files mispredicted one mutant.
type mutantCount struct {
	Mutant string `json:"mutant"`
	Files  int    `json:"files"`
}

// ShowAnswers makes every score's text show what failed under the
// mutants it did not answer, and the model answer's predictions whole
// (check -answers).
func (c *Class) ShowAnswers() {
	for _, s := range c.all() {
		s.ShowAnswers = true
	}
	c.showAnswers = true
}

// newClass gathers the scores, with the files that could not be
// compared, and counts the mispredictions of each mutant. A score marked
// Model is the model answer: set apart, out of the counts.
func newClass(scores []*Score, invalid []Invalid) *Class {
	c := &Class{Invalid: invalid}
	for _, s := range scores {
		if s.Model && c.Model == nil {
			c.Model = s
			continue
		}
		c.Scores = append(c.Scores, s)
	}
	counts := map[string]int{}
	var order []string
	for _, s := range scores {
		for _, o := range s.Matches {
			if !slices.Contains(order, o.Mutant) {
				order = append(order, o.Mutant)
			}
			if !o.Exact && !o.NotPredicted && !s.Model {
				counts[o.Mutant]++
			}
		}
	}
	for _, id := range order {
		c.Mispredicted = append(c.Mispredicted, mutantCount{Mutant: id, Files: counts[id]})
	}
	sort.SliceStable(c.Mispredicted, func(i, j int) bool { return c.Mispredicted[i].Files > c.Mispredicted[j].Files })
	return c
}

// Identify says who the learner of the class's files is, as the platform
// the file was handed in on knows it (Gradescope's submission metadata):
// it replaces what each file says of itself. "" changes nothing.
func (c *Class) Identify(learner string) {
	if learner == "" {
		return
	}
	for _, s := range c.Scores {
		s.Learner = learner
	}
	for i := range c.Invalid {
		c.Invalid[i].Learner = learner
	}
}

// Learners returns how many learners' files the class has, invalid ones
// included.
func (c *Class) Learners() int { return len(c.Scores) + len(c.Invalid) }

// all returns the valid scores, the model answer last.
func (c *Class) all() []*Score {
	if c.Model == nil {
		return c.Scores
	}
	return append(slices.Clip(c.Scores), c.Model)
}

// AllExact reports whether every prediction of every file, the model
// answer's included, was exact. With -partial, a mutant a file does not
// predict is no prediction at all.
func (c *Class) AllExact() bool {
	for _, s := range c.all() {
		for _, o := range s.Matches {
			if !o.Exact && !o.NotPredicted {
				return false
			}
		}
	}
	return true
}

// AllAnswered reports whether every file, the model answer's included,
// answers every mutant of the run.
func (c *Class) AllAnswered() bool {
	for _, s := range c.all() {
		if s.Answered < s.Total {
			return false
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
