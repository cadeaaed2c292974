package testgrade

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/classout"
	"github.com/fencelab/fencelab/internal/classout/classouttest"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/reportschema"
)

// The schemas of what check writes: Gradescope's and GitHub Classroom's
// (beside the grade of predictions), and check -json's own.
const (
	gradescopeSchema = "../predict/testdata/schemas/gradescope-results.schema.json"
	classroomSchema  = "../predict/testdata/schemas/classroom-result.schema.json"
	jsonSchema       = "testdata/test-grades.schema.json"
)

// validate checks data against the schema file.
func validate(t *testing.T, schema string, data []byte) {
	t.Helper()
	if err := reportschema.ValidateFile(schema, data); err != nil {
		t.Fatalf("%s does not follow %s: %v", data, schema, err)
	}
}

// class is three learners' files: one that catches both chaffs, one
// whose test fails under the wording wheat (it catches nothing valid),
// one that does not compile.
func class() []*Grade {
	rep := &report.Report{Mutants: []report.Mutant{
		{ID: "boundary", Step: 1, Title: "inclusive expiry", Status: report.Killed, FailedTests: []string{"TestWords"}},
		{ID: "twice", Step: 2, Title: "done twice", Points: 2, Status: report.Killed, FailedTests: []string{"TestWords"}},
		{ID: "wording", Title: "the contract leaves the wording open", Status: report.Killed, FailedTests: []string{"TestWords"},
			Failures: []report.Failure{{Test: "TestWords", Message: "words_test.go:9: got <a job needs an id>"}}},
	}}
	wheats := map[string]bool{"wording": true}
	good := &report.Report{Mutants: []report.Mutant{
		{ID: "boundary", Step: 1, Title: "inclusive expiry", Status: report.Killed, FailedTests: []string{"TestExpiry"}},
		{ID: "twice", Step: 2, Title: "done twice", Points: 2, Status: report.Killed, FailedTests: []string{"TestTwice"}},
		{ID: "wording", Title: "the contract leaves the wording open", Status: report.Survived, FailedTests: []string{}},
	}}
	ann := New("ann_test.go", []string{"TestExpiry", "TestTwice"}, nil, good, wheats)
	ann.Learner = "Ann Lee"
	return []*Grade{
		ann,
		New("bob_test.go", []string{"TestWords"}, nil, rep, wheats),
		ungraded("cy_test.go", "cy_test.go does not compile:\ncy_test.go:6:2: declared and not used: fence", rep, wheats),
	}
}

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
	validate(t, gradescopeSchema, b.Bytes())
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
	if res.Score != 2 || len(res.Tests) != 8 || res.Tests[0].Name != "your submission" || res.Tests[0].Output != "a_test.go: 4 tests, which ran on the package. Which chaffs they caught, which tests are invalid, and the total, show below." ||
		res.Tests[1].Name != "invalid test TestWinner" || !strings.HasPrefix(res.Tests[1].Output, "fails, and not again: it depends on an order or a timing") ||
		res.Tests[4].Status != "passed" || res.Tests[4].MaxScore != 2 || res.Tests[5].Status != "failed" {
		t.Errorf("Gradescope results:\n%s", b.String())
	}

	// After the due date: the chaffs, the invalid tests and the score;
	// at once, that the file was read and ran, and nothing of its grade.
	b.Reset()
	if err := g.WriteGradescope(&b, "after_due_date"); err != nil {
		t.Fatal(err)
	}
	var later classout.GradescopeResults
	if err := json.Unmarshal(b.Bytes(), &later); err != nil {
		t.Fatal(err)
	}
	if later.Visibility != "after_due_date" || later.Output != "a_test.go: 4 tests, which ran on the package. Which chaffs they caught, which tests are invalid, and the total, show after the due date." {
		t.Errorf("results after the due date: %+v", later)
	}
	for i, test := range later.Tests {
		if want := map[bool]string{true: "visible", false: "after_due_date"}[i == 0]; test.Visibility != want {
			t.Errorf("test %d %q shows %s, want %s", i, test.Name, test.Visibility, want)
		}
	}
}

func TestGrade_ExactWhenEveryTestValidAndEveryChaffCaught(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{{ID: "m", Status: report.Killed, FailedTests: []string{"TestA"}}}}
	if g := New("a_test.go", []string{"TestA"}, nil, rep, nil); !g.Exact() || g.Points != 1 {
		t.Errorf("grade = %+v, want exact, 1 point", g)
	}
}

// Each output of a class follows its schema, and says per file what it
// earned: exact, caught by an invalid test only, or not graded.
func TestWrite_EachOutputOfAClass(t *testing.T) {
	grades := class()
	if got := []bool{grades[0].Exact(), grades[1].Exact(), grades[2].Exact()}; !slices.Equal(got, []bool{true, false, false}) {
		t.Fatalf("Exact = %v, want true, false, false", got)
	}
	if got, want := grades[2].Summary(), "cy_test.go: earns nothing, 0 of 3 points: cy_test.go does not compile"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, grades); err != nil {
		t.Fatal(err)
	}
	validate(t, jsonSchema, js.Bytes())
	var doc struct{ Grades []Grade }
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Grades) != 3 || doc.Grades[0].Points != 3 || doc.Grades[0].Learner != "Ann Lee" || doc.Grades[1].Invalid[0].On != "wording" || doc.Grades[2].Problem == "" || doc.Grades[2].Max != 3 {
		t.Errorf("JSON:\n%s", js.String())
	}

	var csvOut bytes.Buffer
	if err := WriteCSV(&csvOut, grades); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"learner", "file", "exact", "caught", "points", "max_points", "invalid_tests", "problem", "boundary", "twice", "wheat: wording"},
		{"Ann Lee", "ann_test.go", "true", "2", "3", "3", "", "", "caught", "caught", ""},
		{"", "bob_test.go", "false", "0", "0", "3", "TestWords (wording)", "", "missed", "missed", "TestWords"},
		{"", "cy_test.go", "false", "0", "0", "3", "", "cy_test.go does not compile", "", "", ""},
	}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("CSV = %q, want %q", rows, want)
	}

	for i, status := range []string{"pass", "fail", "error"} {
		var b bytes.Buffer
		if err := grades[i].WriteClassroom(&b); err != nil {
			t.Fatal(err)
		}
		validate(t, classroomSchema, b.Bytes())
		var res classout.ClassroomResult
		if err := json.Unmarshal(b.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		var score float64
		for _, tc := range res.Tests {
			score += tc.Score
		}
		if res.Status != status || res.MaxScore != 3 || score != float64(grades[i].Points) {
			t.Errorf("%s: Classroom status %s, %v of %d; want %s, %d of 3", grades[i].File, res.Status, score, res.MaxScore, status, grades[i].Points)
		}
	}
	var gs bytes.Buffer
	if err := grades[2].WriteGradescope(&gs, "hidden"); err != nil {
		t.Fatal(err)
	}
	validate(t, gradescopeSchema, gs.Bytes())
	if !strings.Contains(gs.String(), `"output": "cy_test.go earns nothing:\ncy_test.go does not compile:\ncy_test.go:6:2: declared and not used: fence"`) {
		t.Errorf("Gradescope results of a file that does not compile:\n%s", gs.String())
	}
}

// The class page: a row per file, ✓ and ✗ per chaff, the wheats a file's
// tests failed under, and the problem of a file not graded.
func TestWriteHTML_TheClassPage(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, class()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<tr><th title="ann_test.go">Ann Lee<br><code>ann_test.go</code></th>`,
		`<tr><th title="bob_test.go"><code>bob_test.go</code></th>`,
		`<td class="cell caught" data-file="ann" data-chaff="twice" title="caught by TestTwice">✓</td>`,
		`<td class="cell missed" data-file="bob" data-chaff="boundary" title="no valid test fails under boundary">✗</td>`,
		`<td class="cell invalid" data-file="cy" data-chaff="boundary" title="the file could not be graded: see below">!</td>`,
		`<td class="wheats"><code title="the contract leaves the wording open">wording</code> (TestWords)</td>`,
		`<td class="share" data-chaff="twice" title="1 of 2 graded files caught twice">1 of 2</td>`,
		`<li><code>TestWords</code> fails on wheat wording, a correct alternative: the contract leaves the wording open<pre>words_test.go:9: got &lt;a job needs an id&gt;</pre></li>`,
		"<pre>cy_test.go does not compile:\ncy_test.go:6:2: declared and not used: fence</pre>",
		"<style>\n" + string(classout.PageStyle) + "\ntd.caught {",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// A wheat whose run ended (a crash, a limit) makes the tests that were
// running invalid, or, when none was, the file as a whole; a chaff whose
// run ended is caught by the valid tests that were running.
func TestNew_RunsThatEnded(t *testing.T) {
	wheats := map[string]bool{"open": true}
	rep := &report.Report{Mutants: []report.Mutant{
		{ID: "spin", Title: "spins", Status: report.Timeout, Running: []string{"TestSpin"}},
		{ID: "open", Title: "what is left open", Status: report.Crashed, Running: []string{"TestOpen"}, Reason: "the test binary was killed by signal SIGSEGV between tests"},
	}}
	g := New("a_test.go", []string{"TestSpin", "TestOpen"}, nil, rep, wheats)
	if len(g.Invalid) != 1 || g.Invalid[0].Test != "TestOpen" || g.Invalid[0].On != "open" || g.Invalid[0].Message != "the test binary was killed by signal SIGSEGV between tests" {
		t.Errorf("invalid = %+v, want TestOpen on open, with how its run ended", g.Invalid)
	}
	if !slices.Equal(g.Chaffs[0].CaughtBy, []string{"TestSpin"}) || g.Points != 1 {
		t.Errorf("chaff spin = %+v, %d points; want caught by TestSpin, 1 point", g.Chaffs[0], g.Points)
	}
	rep.Mutants[1].Running = nil
	g = New("a_test.go", []string{"TestSpin", "TestOpen"}, nil, rep, wheats)
	if want := "a_test.go: under wheat open, a correct alternative (what is left open), no test of the file was running when its run ended: the test binary was killed by signal SIGSEGV between tests"; g.Problem != want || g.Points != 0 {
		t.Errorf("Problem = %q, %d points; want %q, 0", g.Problem, g.Points, want)
	}
}

// Every figure GitHub Classroom's reporter shows is the grade: 0, 4 and 8
// of 8 chaffs caught show 0 %, 50 % and 100 %, though a test of the file
// is invalid (it earns nothing, and is said in a message, not counted as
// a test of the result).
func TestGrade_WriteClassroom_TheReporterShowsTheGrade(t *testing.T) {
	wheats := map[string]bool{"wording": true}
	for _, caught := range []int{0, 4, 8} {
		rep := &report.Report{}
		for i := range 8 {
			m := report.Mutant{ID: fmt.Sprintf("chaff%d", i+1), Step: i + 1, Status: report.Survived, FailedTests: []string{}}
			if i < caught {
				m.Status, m.FailedTests = report.Killed, []string{"TestGood"}
			}
			rep.Mutants = append(rep.Mutants, m)
		}
		rep.Mutants = append(rep.Mutants, report.Mutant{ID: "wording", Title: "the wording is open", Status: report.Killed, FailedTests: []string{"TestWords"}})
		g := New("ann_test.go", []string{"TestGood", "TestWords"}, nil, rep, wheats)
		var b bytes.Buffer
		if err := g.WriteClassroom(&b); err != nil {
			t.Fatal(err)
		}
		validate(t, classroomSchema, b.Bytes())
		var res classout.ClassroomResult
		if err := json.Unmarshal(b.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		want := float64(caught) / 8 * 100
		if got := classouttest.Reporter(res); got != (classouttest.Totals{Console: want, Aggregate: want, Recorded: want}) {
			t.Errorf("%d of 8 caught: the reporter shows %+v, want %v %% everywhere", caught, got, want)
		}
		if len(res.Tests) != 8 || !strings.Contains(b.String(), "invalid test TestWords, which earns nothing: fails on wheat wording") {
			t.Errorf("%d of 8 caught: want 8 tests and the invalid test in a message:\n%s", caught, b.String())
		}
	}
}

// A test file names its learner in a line before its package clause;
// nothing after it, or in a test, does.
func TestLearnerOf(t *testing.T) {
	for src, want := range map[string]string{
		"// learner: Ann  Lee\npackage lease_test\n":                    "Ann Lee",
		"// Tests of the contract.\n//learner:Bo\n\npackage lease_test": "Bo",
		"package lease_test\n// learner: Cy\n":                          "",
		"// learner:\npackage lease_test\n":                             "",
		"":                                                              "",
	} {
		if got := learnerOf([]byte(src)); got != want {
			t.Errorf("learnerOf(%q) = %q, want %q", src, got, want)
		}
	}
}
