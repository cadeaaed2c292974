package testgrade

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/report"
)

func TestNew_AnInvalidTestEarnsNothing(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{
		{ID: "boundary", Title: "inclusive expiry", Points: 2, Status: report.Killed, FailedTests: []string{"TestExpiry", "TestWords/empty"}},
		{ID: "twice", Title: "done twice", Status: report.Killed, FailedTests: []string{"TestWords/empty"}},
		{ID: "fence", Title: "fence reset", Status: report.Survived, FailedTests: []string{}},
		{ID: "spin", Title: "spins", Status: report.Timeout, FailedTests: []string{}},
		{ID: "wording", Title: "the contract leaves the wording open", Status: report.Killed, FailedTests: []string{"TestWords/empty"},
			Failures: []report.Failure{{Test: "TestWords/empty", Message: "words_test.go:9: got \"a job needs an id\"\n"}}},
		{ID: "winner", Title: "another winner", Status: report.Flaky, FlakyTests: []string{"TestWinner"}},
	}}
	onRef := []Invalid{{Test: "TestWrong", On: Reference, Message: "wrong_test.go:3: boom"}}
	g := New("a_test.go", []string{"TestExpiry", "TestWords", "TestWinner", "TestWrong"}, onRef, rep, map[string]bool{"wording": true, "winner": true})

	var invalid []string
	for _, inv := range g.Invalid {
		invalid = append(invalid, inv.Test+"@"+inv.On)
	}
	if want := []string{"TestWinner@reference", "TestWords@wording", "TestWrong@reference"}; !slices.Equal(invalid, want) {
		t.Errorf("invalid = %v, want %v", invalid, want)
	}
	if g.Invalid[1].Message != `words_test.go:9: got "a job needs an id"` {
		t.Errorf("message = %q", g.Invalid[1].Message)
	}
	// boundary: caught by the valid TestExpiry; twice: only by the invalid
	// TestWords; fence survived; a timeout is detected, but by no test.
	var caught []string
	for _, c := range g.Chaffs {
		caught = append(caught, c.ID+"="+strings.Join(c.CaughtBy, ","))
	}
	if want := []string{"boundary=TestExpiry", "twice=", "fence=", "spin="}; !slices.Equal(caught, want) {
		t.Errorf("chaffs = %v, want %v", caught, want)
	}
	if g.Caught != 1 || g.Points != 2 || g.Max != 5 || g.Exact() {
		t.Errorf("caught %d, points %d of %d, exact %v; want 1, 2 of 5, false", g.Caught, g.Points, g.Max, g.Exact())
	}
	if got, want := g.Summary(), "a_test.go: 1 of 4 chaffs caught, 2 of 5 points; 3 of 4 tests invalid"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}

	var b bytes.Buffer
	if err := g.WriteGradescope(&b, "visible"); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Score float64
		Tests []struct {
			Name, Status, Output string
			MaxScore             float64 `json:"max_score"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Score != 2 || len(res.Tests) != 7 || res.Tests[0].Name != "invalid test TestWinner" ||
		!strings.HasPrefix(res.Tests[0].Output, "fails, and not again: it depends on an order or a timing") ||
		res.Tests[3].Status != "passed" || res.Tests[3].MaxScore != 2 || res.Tests[4].Status != "failed" {
		t.Errorf("Gradescope results:\n%s", b.String())
	}
}

func TestGrade_ExactWhenEveryTestValidAndEveryChaffCaught(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{{ID: "m", Status: report.Killed, FailedTests: []string{"TestA"}}}}
	if g := New("a_test.go", []string{"TestA"}, nil, rep, nil); !g.Exact() || g.Points != 1 {
		t.Errorf("grade = %+v, want exact, 1 point", g)
	}
}
