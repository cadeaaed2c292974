// Package testgrade grades a learner's test file as a test suite, as
// Brown's Examplar does (Wrenn and Krishnamurthi, "Executable Examples for
// Programming Problem Comprehension", ICER 2019): every test must pass on
// the reference and on every wheat, a correct alternative that changes
// only what the contract leaves open (else the test is wrong, or pins what
// is open); each chaff, a mutant of the catalog, is caught when a valid
// test fails under it. An invalid test earns nothing.
package testgrade

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/gradescope"
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
type Chaff struct {
	ID       string   `json:"id"`
	Step     int      `json:"step,omitempty"`
	Title    string   `json:"title"`
	Points   int      `json:"points"`
	Status   string   `json:"status"`
	CaughtBy []string `json:"caught_by"`
}

// Caught reports whether a valid test caught the chaff.
func (c Chaff) Caught() bool { return len(c.CaughtBy) > 0 }

// Grade is one learner's test file, graded.
type Grade struct {
	File    string    `json:"file"`
	Tests   []string  `json:"tests"` // the file's top-level tests
	Invalid []Invalid `json:"invalid"`
	Chaffs  []Chaff   `json:"chaffs"`
	Caught  int       `json:"caught"`
	Points  int       `json:"points"`
	Max     int       `json:"max_points"`
}

// Exact reports whether every test is valid and every chaff caught.
func (g *Grade) Exact() bool { return len(g.Invalid) == 0 && g.Caught == len(g.Chaffs) }

// New grades the tests of file from a run of the chaffs and wheats of
// rep, where wheats are the ids of the wheats; onReference are the tests
// that failed without any rewrite (and did not run under the mutants).
func New(file string, tests []string, onReference []Invalid, rep *report.Report, wheats map[string]bool) *Grade {
	g := &Grade{File: file, Tests: tests, Invalid: slices.Clone(onReference), Chaffs: []Chaff{}}
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
		if wheats[m.ID] {
			for _, name := range m.FailedTests {
				top, _, _ := strings.Cut(name, "/")
				add(Invalid{Test: top, On: m.ID, Title: m.Title, Message: messageOf(m, name)})
			}
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
	slices.SortFunc(g.Invalid, func(a, b Invalid) int { return strings.Compare(a.Test, b.Test) })
	for _, m := range rep.Mutants {
		if wheats[m.ID] {
			continue
		}
		c := Chaff{ID: m.ID, Step: m.Step, Title: m.Title, Points: max(m.Points, 1), Status: string(m.Status), CaughtBy: []string{}}
		if m.Status.Detected() {
			for _, name := range m.FailedTests {
				top, _, _ := strings.Cut(name, "/")
				if !invalid[top] && !slices.Contains(c.CaughtBy, top) {
					c.CaughtBy = append(c.CaughtBy, top)
				}
			}
		}
		g.Max += c.Points
		if c.Caught() {
			g.Caught++
			g.Points += c.Points
		}
		g.Chaffs = append(g.Chaffs, c)
	}
	return g
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
	return fmt.Sprintf("%s: %d of %d chaffs caught, %d of %d points; %d of %d tests invalid",
		g.File, g.Caught, len(g.Chaffs), g.Points, g.Max, len(g.Invalid), len(g.Tests))
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
		for _, inv := range g.Invalid {
			fmt.Fprintf(&b, "  invalid  %s: %s\n", inv.Test, inv.reason())
			if inv.Message != "" {
				b.WriteString(text.Indent(inv.Message, "           ") + "\n")
			}
		}
		for _, c := range g.Chaffs {
			if c.Caught() {
				fmt.Fprintf(&b, "  caught   %s: %s, by %s\n", c.ID, c.Title, strings.Join(c.CaughtBy, ", "))
			} else {
				fmt.Fprintf(&b, "  missed   %s: %s\n", c.ID, c.Title)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the grades as JSON.
func WriteJSON(w io.Writer, grades []*Grade) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Grades []*Grade `json:"grades"`
	}{grades})
}

// WriteGradescope writes g as Gradescope's results.json: the points of the
// chaffs caught by valid tests, a test per chaff worth its points, and one
// per invalid test, worth nothing, that says why; visibility says when the
// learner sees them.
func (g *Grade) WriteGradescope(w io.Writer, visibility string) error {
	res := gradescope.Results{Score: float64(g.Points), Output: g.Summary(), OutputFormat: "text", TestOutputFormat: "text",
		Visibility: visibility, StdoutVisibility: "hidden", Tests: []gradescope.Test{}}
	for _, inv := range g.Invalid {
		res.Tests = append(res.Tests, gradescope.Test{Name: "invalid test " + inv.Test, Status: "failed",
			Output: strings.TrimSpace(inv.reason() + "\n" + inv.Message), Visibility: visibility})
	}
	for _, c := range g.Chaffs {
		t := gradescope.Test{Name: c.ID + ": " + c.Title, MaxScore: float64(c.Points), Status: "failed",
			Output: "no valid test fails under this chaff", Visibility: visibility}
		if c.Step > 0 {
			t.Number = fmt.Sprint(c.Step)
		}
		if c.Caught() {
			t.Score, t.Status, t.Output = float64(c.Points), "passed", "caught by "+strings.Join(c.CaughtBy, ", ")
		}
		res.Tests = append(res.Tests, t)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// WriteInvalidGradescope writes the grade of a file that cannot be graded
// (it does not compile, declares another package): nothing, and why.
func WriteInvalidGradescope(w io.Writer, file, why, visibility string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(gradescope.Results{Output: file + " earns nothing:\n" + why, OutputFormat: "text", TestOutputFormat: "text",
		Visibility: visibility, StdoutVisibility: "hidden", Tests: []gradescope.Test{}})
}
