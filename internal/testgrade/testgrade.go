// Package testgrade grades a learner's test file as a test suite, as
// Brown's Examplar does (Wrenn and Krishnamurthi, "Executable Examples for
// Programming Problem Comprehension", ICER 2019): every test must pass on
// the reference and on every wheat, a correct alternative that changes
// only what the contract leaves open (else the test is wrong, or pins what
// is open); each chaff, a mutant of the catalog, is caught when a valid
// test fails under it. An invalid test earns nothing.
package testgrade

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/classout"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// Reference is what an invalid test failed on when it failed without any
// rewrite.
const Reference = "reference"

// Invalid is a test that failed where it must pass.
type Invalid struct {
	Test string `json:"test"`
	// On is Reference, or the id of the wheat it failed on, whose Title
	// says what the contract leaves open.
	On    string `json:"on"`
	Title string `json:"title,omitempty"`
	// Sometimes: it failed once and not again, on the reference or
	// under a wheat.
	Sometimes bool   `json:"sometimes,omitempty"`
	Message   string `json:"message"`
}

// reason says where the test failed, and what that means.
func (inv Invalid) reason() string {
	switch {
	case inv.On == Reference && inv.Sometimes:
		return "fails, and not again: it depends on an order or a timing the contract leaves open"
	case inv.On == Reference:
		return "fails on the reference: the test is wrong"
	}
	return fmt.Sprintf("fails on wheat %s, a correct alternative: %s", inv.On, inv.Title)
}

// Chaff is a mutant of the catalog, and the valid tests that caught it.
// Its id and title say what the fault is, which the instructor's outputs
// show; a learner's (Gradescope, Classroom) name its step and the
// contract it breaks, never its code.
type Chaff struct {
	ID       string   `json:"id"`
	Step     int      `json:"step,omitempty"`
	Title    string   `json:"title"`
	Contract string   `json:"contract,omitempty"`
	Points   int      `json:"points"`
	Status   string   `json:"status"`
	CaughtBy []string `json:"caught_by"`
}

// learnerName names the i-th chaff of n to a learner: by its place and
// step.
func (c Chaff) learnerName(i, n int) string {
	if c.Step > 0 {
		return fmt.Sprintf("chaff %d of %d (step %d)", i+1, n, c.Step)
	}
	return fmt.Sprintf("chaff %d of %d", i+1, n)
}

// learnerOutput says to a learner what became of the chaff: the tests
// that caught it, or the contract that no valid test pins.
func (c Chaff) learnerOutput() string {
	if c.Caught() {
		return "caught by " + strings.Join(c.CaughtBy, ", ")
	}
	if c.Contract == "" {
		return "no valid test fails under this chaff"
	}
	return "no valid test fails under this chaff. The contract it breaks: " + c.Contract
}

// Caught reports whether a valid test caught the chaff.
func (c Chaff) Caught() bool { return len(c.CaughtBy) > 0 }

// Grade is one learner's test file, graded.
type Grade struct {
	File string `json:"file"`
	// Learner is who wrote the file: as Gradescope's submission metadata
	// says, or the file's "// learner:" line; "" if neither does.
	Learner string `json:"learner,omitempty"`
	// Problem says why the file could not be graded (it does not
	// compile, breaks the rules of learners' files, holds no test, its
	// binary ends before any test): it earns nothing, and its chaffs are
	// all missed.
	Problem string `json:"problem,omitempty"`
	// Withheld says that the chaffs and wheats are with the grader (a
	// hand-out's check): the file ran on the package alone.
	Withheld bool      `json:"withheld,omitempty"`
	Tests    []string  `json:"tests"` // the file's top-level tests
	Invalid  []Invalid `json:"invalid"`
	Chaffs   []Chaff   `json:"chaffs"`
	Caught   int       `json:"caught"`
	Points   int       `json:"points"`
	Max      int       `json:"max_points"`
	// Err is what Problem says, as the error it came from: a list of
	// problems at their file:line:col, for stderr.
	Err error `json:"-"`
}

// Exact reports whether every test is valid and every chaff caught.
func (g *Grade) Exact() bool {
	return g.Problem == "" && len(g.Invalid) == 0 && g.Caught == len(g.Chaffs)
}

// ungraded is the grade of a file that could not be graded, for problem:
// nothing, out of the points of rep's chaffs, whatever their verdicts.
func ungraded(file, problem string, rep *report.Report, wheats map[string]bool) *Grade {
	pending := &report.Report{}
	for _, m := range rep.Mutants {
		pending.Mutants = append(pending.Mutants, report.Mutant{ID: m.ID, Step: m.Step, Title: m.Title, Points: m.Points})
	}
	g := New(file, []string{}, nil, pending, wheats)
	g.Problem = problem
	return g
}

// anyValid reports whether a test of the file is not invalid.
func (g *Grade) anyValid() bool {
	return slices.ContainsFunc(g.Tests, func(t string) bool {
		return !slices.ContainsFunc(g.Invalid, func(i Invalid) bool { return i.Test == t })
	})
}

// New grades the tests of file from a run of the chaffs and wheats of
// rep, where wheats are the ids of the wheats; onReference are the tests
// that failed without any rewrite (and did not run under the mutants).
func New(file string, tests []string, onReference []Invalid, rep *report.Report, wheats map[string]bool) *Grade {
	g := &Grade{File: file, Tests: tests, Invalid: append([]Invalid{}, onReference...), Chaffs: []Chaff{}}
	invalid := map[string]bool{}
	for _, inv := range onReference {
		invalid[inv.Test] = true
	}
	// A test that fails under a wheat, confirmed (again under it, and not
	// without it), pins what that wheat leaves open. One whose failure
	// under a wheat did not reproduce depends on an order or a timing:
	// the reference's own, whichever wheat it met.
	add := func(inv Invalid) {
		if !invalid[inv.Test] {
			invalid[inv.Test] = true
			g.Invalid = append(g.Invalid, inv)
		}
	}
	for _, m := range rep.Mutants {
		if !wheats[m.ID] {
			continue
		}
		culprits := culprits(m)
		for _, name := range culprits {
			top, _, _ := strings.Cut(name, "/")
			add(Invalid{Test: top, On: m.ID, Title: m.Title, Message: cmp.Or(messageOf(m, name), m.Reason)})
		}
		if len(culprits) == 0 && m.Status.Detected() && g.Problem == "" {
			// Under a correct alternative the binary ended, and no test
			// of the file was running: the file as a whole.
			g.Problem = fmt.Sprintf("%s: under wheat %s, a correct alternative (%s), no test of the file was running when its run ended: %s", file, m.ID, m.Title, cmp.Or(m.Reason, string(m.Status)))
		}
	}
	for _, m := range rep.Mutants {
		if wheats[m.ID] {
			for _, name := range m.FlakyTests {
				top, _, _ := strings.Cut(name, "/")
				add(Invalid{Test: top, On: Reference, Sometimes: true, Message: messageOf(m, name)})
			}
		}
	}
	// A test that both passed and failed with no chaff or wheat (the
	// run's own flaky tests) depends on an order or a timing too.
	for _, name := range rep.FlakyTests {
		if top, _, _ := strings.Cut(name, "/"); slices.Contains(tests, top) {
			add(Invalid{Test: top, On: Reference, Sometimes: true, Message: "it both passed and failed on the package, with no chaff or wheat"})
		}
	}
	slices.SortFunc(g.Invalid, func(a, b Invalid) int { return strings.Compare(a.Test, b.Test) })
	for _, m := range rep.Mutants {
		if wheats[m.ID] {
			continue
		}
		c := Chaff{ID: m.ID, Step: m.Step, Title: m.Title, Contract: m.Contract, Points: max(m.Points, 1), Status: string(m.Status), CaughtBy: []string{}}
		if m.Status.Detected() {
			for _, name := range culprits(m) {
				top, _, _ := strings.Cut(name, "/")
				if !invalid[top] && !slices.Contains(c.CaughtBy, top) {
					c.CaughtBy = append(c.CaughtBy, top)
				}
			}
		}
		g.Max += c.Points
		if c.Caught() && g.Problem == "" {
			g.Caught++
			g.Points += c.Points
		}
		g.Chaffs = append(g.Chaffs, c)
	}
	return g
}

// culprits returns the tests that failed under m, or else, when its run
// ended (a crash, a limit), those that were running then.
func culprits(m report.Mutant) []string {
	if len(m.FailedTests) > 0 {
		return m.FailedTests
	}
	return m.Running
}

// messageOf returns the failure message of test name under m.
func messageOf(m report.Mutant, name string) string {
	for _, f := range m.Failures {
		if f.Test == name {
			return strings.TrimSpace(f.Message)
		}
	}
	return ""
}

// Summary is the grade's first line.
func (g *Grade) Summary() string {
	file := g.name()
	switch {
	case g.Problem != "" && g.Withheld:
		return fmt.Sprintf("%s: cannot be graded: %s", file, firstLine(g.Problem))
	case g.Problem != "":
		return fmt.Sprintf("%s: earns nothing, 0 of %d points: %s", file, g.Max, firstLine(g.Problem))
	case g.Withheld:
		return fmt.Sprintf("%s: %d of %d tests invalid on the package; the chaffs and wheats are with your instructor, who grades the file",
			file, len(g.Invalid), len(g.Tests))
	}
	return fmt.Sprintf("%s: %d of %d chaffs caught, %d of %d points; %d of %d tests invalid",
		file, g.Caught, len(g.Chaffs), g.Points, g.Max, len(g.Invalid), len(g.Tests))
}

// WriteText prints the grades: per file, its summary, its invalid tests
// with why, and each chaff with the tests that caught it.
func WriteText(w io.Writer, grades []*Grade) error {
	var b strings.Builder
	for i, g := range grades {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(g.Summary() + "\n")
		if g.Problem != "" {
			continue
		}
		for _, inv := range g.Invalid {
			fmt.Fprintf(&b, "  invalid  %s: %s\n", text.Name(inv.Test), inv.reason())
			if inv.Message != "" {
				b.WriteString(text.Indent(text.Prose(inv.Message), "           ") + "\n")
			}
		}
		for _, c := range g.Chaffs {
			if c.Caught() {
				fmt.Fprintf(&b, "  caught   %s: %s, by %s\n", c.ID, c.Title, text.Name(strings.Join(c.CaughtBy, ", ")))
			} else {
				fmt.Fprintf(&b, "  missed   %s: %s\n", c.ID, c.Title)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the grades as JSON, following
// testdata/test-grades.schema.json.
func WriteJSON(w io.Writer, grades []*Grade) error {
	return writeJSON(w, struct {
		Grades []*Grade `json:"grades"`
	}{grades})
}

// WriteGradescope writes g as Gradescope's results.json: the points of the
// chaffs caught by valid tests, a test per chaff worth its points, one per
// invalid test, worth nothing, that says why, and one that says the file
// was read and ran; visibility says when the learner sees the chaffs' and
// invalid tests' (and so the score), the file's test is visible at once.
// A file that could not be graded earns nothing, and why is visible at
// once: it gives nothing away.
func (g *Grade) WriteGradescope(w io.Writer, visibility string) error {
	res := classout.GradescopeResults{Score: float64(g.Points), Output: g.Summary(), OutputFormat: "text", TestOutputFormat: "text",
		Visibility: visibility, StdoutVisibility: "hidden", Tests: []classout.GradescopeTest{}}
	if g.Problem != "" {
		res.Output, res.Visibility = g.earnsNothing(), "visible"
		res.Tests = append(res.Tests, classout.SubmissionTest(false, res.Output))
		return writeJSON(w, res)
	}
	read := fmt.Sprintf("%s: %s, which ran on the package. Which chaffs they caught, which tests are invalid, and the total, show %s.",
		g.name(), text.Count(len(g.Tests), "test", "tests"), classout.Shows(visibility))
	res.Tests = append(res.Tests, classout.SubmissionTest(true, read))
	if visibility != "visible" {
		res.Output = read // the summary has the score
	}
	for _, inv := range g.Invalid {
		res.Tests = append(res.Tests, classout.GradescopeTest{Name: "invalid test " + inv.Test, Status: "failed",
			Output: strings.TrimSpace(inv.reason() + "\n" + inv.Message), Visibility: visibility})
	}
	for i, c := range g.Chaffs {
		t := classout.GradescopeTest{Name: c.learnerName(i, len(g.Chaffs)), MaxScore: float64(c.Points), Status: "failed",
			Output: c.learnerOutput(), Visibility: visibility}
		if c.Step > 0 {
			t.Number = fmt.Sprint(c.Step)
		}
		if c.Caught() {
			t.Score, t.Status = float64(c.Points), "passed"
		}
		res.Tests = append(res.Tests, t)
	}
	return writeJSON(w, res)
}

// name is the file, and its learner when known, as a line shows them.
func (g *Grade) name() string {
	if g.Learner != "" {
		return text.Name(g.File) + " (" + text.Name(g.Learner) + ")"
	}
	return text.Name(g.File)
}

// earnsNothing says that a file that could not be graded earns nothing,
// and why.
func (g *Grade) earnsNothing() string { return g.name() + " earns nothing:\n" + g.Problem }

// WriteClassroom writes g as the result of a GitHub Classroom runner: a
// test per point of each chaff (classout.ClassroomResult.Add), passing
// when a valid test caught it; the status is pass when the grade is
// exact, error when the file could not be graded, fail otherwise. The
// invalid tests, which earn nothing, are said in a test's message, so
// that the reporter's tables, which count passing tests, show the grade.
func (g *Grade) WriteClassroom(w io.Writer) error {
	res := classout.ClassroomResult{Version: 1, Status: "pass", MaxScore: g.Max, Tests: []classout.ClassroomTest{}}
	if g.Problem != "" {
		res.Status = "error"
		res.Tests = append(res.Tests, classout.ClassroomTest{Name: g.File, Status: "error", Message: g.earnsNothing(),
			TestCode: "go tool mutate check " + g.File, Filename: g.File})
		return writeJSON(w, res)
	}
	if !g.Exact() {
		res.Status = "fail"
	}
	for i, c := range g.Chaffs {
		earned := 0.0
		if c.Caught() {
			earned = float64(c.Points)
		}
		res.Add(classout.ClassroomTest{Name: c.learnerName(i, len(g.Chaffs)), Message: c.learnerOutput(),
			TestCode: "go tool mutate check " + g.File, Filename: g.File}, c.Points, earned)
	}
	var invalid []string
	for _, inv := range g.Invalid {
		invalid = append(invalid, "invalid test "+inv.Test+", which earns nothing: "+strings.TrimSpace(inv.reason()+"\n"+inv.Message))
	}
	res.Note(strings.Join(invalid, "\n"))
	return writeJSON(w, res)
}

// WriteCSV writes a row per file, for a spreadsheet or an LMS import:
// learner, file, exact, chaffs caught, points, the most points, the invalid tests
// (each with what it failed on), the problem of a file that could not be
// graded, then a column per chaff (caught or missed) and one per wheat
// (the file's tests that failed under it).
func WriteCSV(w io.Writer, grades []*Grade) error {
	chaffs, wheats := columns(grades)
	header := []string{"learner", "file", "exact", "caught", "points", "max_points", "invalid_tests", "problem"}
	header = append(header, chaffs...)
	for _, id := range wheats {
		header = append(header, "wheat: "+id)
	}
	cw := classout.NewCSVWriter(w)
	cw.Write(header)
	for _, g := range grades {
		var invalid []string
		for _, inv := range g.Invalid {
			invalid = append(invalid, inv.Test+" ("+inv.On+")")
		}
		row := []string{g.Learner, g.File, fmt.Sprint(g.Exact()), fmt.Sprint(g.Caught), fmt.Sprint(g.Points), fmt.Sprint(g.Max),
			strings.Join(invalid, "; "), firstLine(g.Problem)}
		for _, id := range chaffs {
			row = append(row, g.chaffWord(id))
		}
		for _, id := range wheats {
			row = append(row, strings.Join(g.failedOn(id), " "))
		}
		cw.Write(row)
	}
	return cw.Flush()
}

// columns returns the ids of the chaffs and of the wheats that some test
// of grades failed on, in the order they come.
func columns(grades []*Grade) (chaffs, wheats []string) {
	for _, g := range grades {
		for _, c := range g.Chaffs {
			if !slices.Contains(chaffs, c.ID) {
				chaffs = append(chaffs, c.ID)
			}
		}
		for _, inv := range g.Invalid {
			if inv.On != Reference && !slices.Contains(wheats, inv.On) {
				wheats = append(wheats, inv.On)
			}
		}
	}
	return chaffs, wheats
}

// chaffWord says what became of chaff id in g: caught, missed, or
// nothing when the file could not be graded.
func (g *Grade) chaffWord(id string) string {
	switch i := slices.IndexFunc(g.Chaffs, func(c Chaff) bool { return c.ID == id }); {
	case g.Problem != "" || i < 0:
		return ""
	case g.Chaffs[i].Caught():
		return "caught"
	}
	return "missed"
}

// failedOn returns g's tests that failed under wheat id.
func (g *Grade) failedOn(id string) []string {
	var tests []string
	for _, inv := range g.Invalid {
		if inv.On == id {
			tests = append(tests, inv.Test)
		}
	}
	return tests
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, ":")
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
