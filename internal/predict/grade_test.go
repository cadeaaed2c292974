package predict

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/classout"
	"github.com/fencelab/fencelab/internal/classout/classouttest"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/reportschema"
)

// validate checks data against a schema of testdata/schemas.
func validate(t *testing.T, schema string, data []byte) {
	t.Helper()
	if err := reportschema.ValidateFile("testdata/schemas/"+schema, data); err != nil {
		t.Fatalf("%s does not follow %s: %v", data, schema, err)
	}
}

// gradedRun has three mutants: m1 worth 1, m2 worth 2 (two tests fail),
// m3 worth 1 and survives.
func gradedRun() *report.Report {
	m1, m2, m3 := killed("m1", "TestA"), killed("m2", "TestA", "TestB"), survived("m3")
	m1.Step, m1.Title = 1, "the first fault"
	m2.Step, m2.Points = 2, 2
	return &report.Report{Mutants: []report.Mutant{m1, m2, m3}}
}

// alice predicts m1 exactly, half of m2 (TestA right, TestB missed, TestP
// wrong), and m3 wrongly.
const alice = "learner: alice\npredictions:\n  m1: {fails: [TestA]}\n  m2: {fails: [TestA, TestP]}\n  m3: {fails: [TestB]}\n"

// Exact credit gives a mutant's points to an exact prediction; partial
// credit gives points × F1, where F1 = 2·right / (2·right + wrong +
// missed).
func TestCompare_Credit(t *testing.T) {
	f := loadString(t, known, alice)
	exact := Compare(f, gradedRun(), CreditExact)
	if exact.Points != 1 || exact.MaxPoints != 4 {
		t.Errorf("exact credit: %v of %d points, want 1 of 4", exact.Points, exact.MaxPoints)
	}
	partial := Compare(f, gradedRun(), CreditPartial)
	// m1: F1 1, 1 point; m2: right 1, wrong 1, missed 1, F1 2/4, 1 of 2
	// points; m3: right 0, wrong 1, F1 0.
	for _, tc := range []struct {
		id         string
		f1, points float64
	}{{"m1", 1, 1}, {"m2", 0.5, 1}, {"m3", 0, 0}} {
		if o := outcome(t, partial, tc.id); o.F1 != tc.f1 || o.Points != tc.points {
			t.Errorf("partial credit, %s: F1 %v, %v points; want %v, %v", tc.id, o.F1, o.Points, tc.f1, tc.points)
		}
	}
	if partial.Points != 2 || partial.Credit != CreditPartial {
		t.Errorf("partial credit: %v points (%s), want 2 (partial)", partial.Points, partial.Credit)
	}
	var b bytes.Buffer
	if err := newClass([]*Score{partial}, nil).WriteText(&b, Style{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(alice): 1 of 3 exact, 2 of 4 points, precision 0.50, recall 0.67\n", "    credit:    1 of 2 points (F1 0.50)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := ParseCredit("most"); err == nil || !strings.Contains(err.Error(), "want exact") {
		t.Errorf("ParseCredit(most) = %v, want an error naming the choices", err)
	}
}

// A blank template scores nothing, and its precision is undefined, not 1.
func TestCompare_ABlankTemplateScoresNothing(t *testing.T) {
	blank := loadString(t, known, "predictions:\n  m1: {fails: []}\n  m2: {fails: []}\n  m3: {fails: []}\n")
	s := Compare(blank, gradedRun(), CreditPartial)
	// m3 survives, as the blank template predicts: that one is exact.
	if s.Exact != 1 || s.Points != 1 || s.Precision.Defined() || s.Recall != (Ratio{0, 3}) {
		t.Fatalf("blank: exact %d, %v points, precision %v, recall %v; want 1, 1, –, 0/3", s.Exact, s.Points, s.Precision, s.Recall)
	}
	if h := s.heading(); !strings.HasSuffix(h, ": 1 of 3 exact, 1 of 4 points, precision –, recall 0.00") {
		t.Errorf("heading = %q", h)
	}
}

func TestScore_WriteGradescope(t *testing.T) {
	s := Compare(loadString(t, known, alice), gradedRun(), CreditExact)
	var b bytes.Buffer
	if err := s.WriteGradescope(&b, "after_due_date"); err != nil {
		t.Fatal(err)
	}
	validate(t, "gradescope-results.schema.json", b.Bytes())
	var got classout.GradescopeResults
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// The score and each mutant's test show after the due date: what the
	// learner sees at once, the output and the file's test, says the file
	// was read, and nothing of its grade.
	read := "(alice): a valid prediction file, 3 of 3 mutants answered. Each mutant's grade, and the total, show after the due date."
	if got.Score != 1 || got.Visibility != "after_due_date" || len(got.Tests) != 4 || !strings.HasSuffix(got.Output, read) || strings.Contains(got.Output, "exact") {
		t.Fatalf("results = %+v", got)
	}
	want := []classout.GradescopeTest{
		{Name: "your submission", Status: "passed", Visibility: "visible"},
		{Name: "step 1: m1 (the first fault)", Number: "1", Score: 1, MaxScore: 1, Status: "passed", Visibility: "after_due_date"},
		{Name: "step 2: m2", Number: "2", Score: 0, MaxScore: 2, Status: "failed", Visibility: "after_due_date"},
		{Name: "m3", Score: 0, MaxScore: 1, Status: "failed", Visibility: "after_due_date"},
	}
	for i, w := range want {
		g := got.Tests[i]
		g.Output = ""
		if g != w {
			t.Errorf("test %d = %+v, want %+v", i, g, w)
		}
	}
	if !strings.HasSuffix(got.Tests[0].Output, read) {
		t.Errorf("the file's test says %q, want %q", got.Tests[0].Output, read)
	}
	if out := got.Tests[2].Output; !strings.Contains(out, "    missed:    TestB (it failed with:)\n                 TestB failed") || !strings.Contains(out, "    wrong:     TestP (predicted, but it passed)") {
		t.Errorf("m2's output = %q, want what was missed, with its message, and what was wrong", out)
	}

	// Visible at once, the output is the grade's heading.
	b.Reset()
	if err := s.WriteGradescope(&b, "visible"); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got.Output, "(alice): 1 of 3 exact, 1 of 4 points, precision 0.50, recall 0.67") || !strings.HasSuffix(got.Tests[0].Output, "Each mutant's grade, and the total, show below.") {
		t.Errorf("visible results = %+v", got)
	}
}

func TestScore_WriteClassroom(t *testing.T) {
	s := Compare(loadString(t, known, alice), gradedRun(), CreditPartial)
	var b bytes.Buffer
	if err := s.WriteClassroom(&b); err != nil {
		t.Fatal(err)
	}
	validate(t, "classroom-result.schema.json", b.Bytes())
	var got classout.ClassroomResult
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// m2, worth 2 points, is two entries: the reporter's tables count
	// entries.
	if got.Version != 1 || got.Status != "fail" || got.MaxScore != 4 || len(got.Tests) != 4 {
		t.Fatalf("result = %+v", got)
	}
	if t1, t2, t3 := got.Tests[0], got.Tests[1], got.Tests[2]; t1.Status != "pass" || t1.Score != 1 ||
		t2.Status != "fail" || t2.Score != 0.5 || t2.Name != "step 2: m2 (point 1 of 2)" || t3.Score != 0.5 || t3.Name != "step 2: m2 (point 2 of 2)" {
		t.Errorf("tests = %+v, %+v, %+v; want m1 passed with 1, m2's two points failed with 0.5 each (half of 2)", t1, t2, t3)
	}
	exact := Compare(loadString(t, known, "predictions:\n  m1: {fails: [TestA]}\n  m2: {fails: [TestA, TestB]}\n  m3: {fails: []}\n"), gradedRun(), CreditExact)
	b.Reset()
	if err := exact.WriteClassroom(&b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || got.Status != "pass" || got.Tests[1].Score != 1 || got.Tests[2].Score != 1 || got.Tests[2].Status != "pass" {
		t.Errorf("every prediction exact: %+v, %v; want pass, m2's points scoring 1 each", got, err)
	}
}

// Every figure GitHub Classroom's reporter shows is the grade: the points
// it records, the log's grand total and the summary table's total, which
// count passing tests. 0, 4 and 8 exact of 8 mutants show 0 %, 50 % and
// 100 %; with the worksheet answered, which is not graded. So does a
// mutant worth 2: alice's 1 exact of 4 points shows 25 %.
func TestScore_WriteClassroom_TheReporterShowsTheGrade(t *testing.T) {
	var run report.Report
	k := Known{Questions: []string{"why"}}
	for i := range 8 {
		id := fmt.Sprintf("m%d", i+1)
		run.Mutants = append(run.Mutants, killed(id, "TestA"))
		k.Mutants = append(k.Mutants, id)
	}
	k.Tests = []string{"TestA", "TestB"}
	reporter := func(s *Score) classouttest.Totals {
		t.Helper()
		var b bytes.Buffer
		if err := s.WriteClassroom(&b); err != nil {
			t.Fatal(err)
		}
		validate(t, "classroom-result.schema.json", b.Bytes())
		var res classout.ClassroomResult
		if err := json.Unmarshal(b.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "> because") {
			t.Errorf("the result lacks the worksheet's answer:\n%s", b.String())
		}
		return classouttest.Reporter(res)
	}
	o := Outputs{Questions: []exercise.Question{{ID: "why", Question: "Why?"}}}
	for _, exact := range []int{0, 4, 8} {
		var src strings.Builder
		src.WriteString("predictions:\n")
		for i := range 8 {
			test := "TestB"
			if i < exact {
				test = "TestA"
			}
			fmt.Fprintf(&src, "  m%d: {fails: [%s]}\n", i+1, test)
		}
		src.WriteString("worksheet:\n  why: because\n")
		s := o.Class([]*File{loadString(t, k, src.String())}, nil, &run, CreditExact).Scores[0]
		want := float64(exact) / 8 * 100
		if got := reporter(s); got != (classouttest.Totals{Console: want, Aggregate: want, Recorded: want}) {
			t.Errorf("%d of 8 exact: the reporter shows %+v, want %v %% everywhere", exact, got, want)
		}
	}
	s := o.Class([]*File{loadString(t, known, alice)}, nil, gradedRun(), CreditExact).Scores[0]
	if got := classouttest.Reporter(classroom(t, s)); got != (classouttest.Totals{Console: 25, Aggregate: 25, Recorded: 25}) {
		t.Errorf("1 of 4 points: the reporter shows %+v, want 25 %% everywhere", got)
	}
}

// classroom returns s's Classroom result.
func classroom(t *testing.T, s *Score) classout.ClassroomResult {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteClassroom(&b); err != nil {
		t.Fatal(err)
	}
	var res classout.ClassroomResult
	if err := json.Unmarshal(b.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// An invalid file earns nothing, and every output says why.
func TestInvalidScore(t *testing.T) {
	s := invalidScore(Invalid{File: "bob.yaml", Problems: []string{"bob.yaml:3:7: unknown mutant \"m9\""}}, gradedRun())
	var gs, cr bytes.Buffer
	if err := s.WriteGradescope(&gs, "visible"); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteClassroom(&cr); err != nil {
		t.Fatal(err)
	}
	validate(t, "gradescope-results.schema.json", gs.Bytes())
	validate(t, "classroom-result.schema.json", cr.Bytes())
	var g classout.GradescopeResults
	var c classout.ClassroomResult
	json.Unmarshal(gs.Bytes(), &g)
	json.Unmarshal(cr.Bytes(), &c)
	// Visible at once: the problems give nothing away.
	if g.Score != 0 || g.Visibility != "visible" || len(g.Tests) != 1 || g.Tests[0].Visibility != "visible" || g.Tests[0].Output != g.Output || !strings.Contains(g.Output, "bob.yaml is invalid, so nothing was compared and it scores 0 of 4 points") || !strings.Contains(g.Output, `bob.yaml:3:7: unknown mutant "m9"`) {
		t.Errorf("Gradescope = %+v", g)
	}
	if c.Status != "error" || c.MaxScore != 4 || len(c.Tests) != 1 || c.Tests[0].Status != "error" || c.Tests[0].Score != 0 || !strings.Contains(c.Tests[0].Message, `unknown mutant "m9"`) {
		t.Errorf("Classroom = %+v", c)
	}
}

// The CSV has a row per file, the model answer marked as such and an
// invalid file as invalid, with its learner and the points it could have
// earned, and a column per mutant.
func TestClass_WriteCSV(t *testing.T) {
	a := Compare(loadString(t, known, alice), gradedRun(), CreditExact)
	blank := Compare(loadString(t, known, "predictions:\n  m1: {fails: []}\n"), gradedRun(), CreditExact)
	model := Compare(loadString(t, known, "learner: model\npredictions:\n  m1: {fails: [TestA]}\n  m2: {fails: [TestA, TestB]}\n  m3: {fails: []}\n"), gradedRun(), CreditExact)
	model.Model = true
	c := newClass([]*Score{model, a, blank}, []Invalid{{File: "bob.yaml", Learner: "bob", MaxPoints: 4}})
	var b bytes.Buffer
	if err := c.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"learner", "file", "role", "exact", "points", "max_points", "precision", "recall", "m1", "m2", "m3"},
		{"alice", a.File, "learner", "1", "1", "4", "0.5000", "0.6667", "exact", "differs", "differs"},
		{"", blank.File, "learner", "0", "0", "4", "", "0.0000", "differs", "not answered", "not answered"},
		{"model", model.File, "model answer", "3", "4", "4", "1.0000", "1.0000", "exact", "exact", "exact"},
		{"bob", "bob.yaml", "invalid", "0", "0", "4", "", "", "invalid", "invalid", "invalid"},
	}
	if len(rows) != len(want) {
		t.Fatalf("CSV rows = %q, want %q", rows, want)
	}
	for i := range want {
		if strings.Join(rows[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("row %d = %q, want %q", i, rows[i], want[i])
		}
	}
	// The model answer is in no class figure: each mutant is
	// mispredicted by alice or the blank file, once.
	if c.Learners() != 3 || len(c.Mispredicted) != 3 || c.Mispredicted[0] != (mutantCount{"m1", 1}) || c.Mispredicted[2] != (mutantCount{"m3", 1}) {
		t.Errorf("learners %d, mispredicted %+v; want 3, each mutant once", c.Learners(), c.Mispredicted)
	}
}

// The worksheet's answers are read from the file, by question, and every
// output carries them for the instructor: the text, the CSV, the class
// page, Gradescope's output and a Classroom test's message.
func TestClass_WorksheetAnswers(t *testing.T) {
	questions := []exercise.Question{{ID: "earlier", Question: "Why do the earlier tests hold?"}, {ID: "limits", Question: "What is not guaranteed?"}}
	k := known
	k.Questions = []string{"earlier", "limits"}
	f := loadString(t, k, alice+"worksheet:\n  earlier: |\n    Nothing later writes the fence\n    but Claim.\n  limits:\n")
	o := Outputs{Questions: questions}
	c := o.Class([]*File{f}, nil, gradedRun(), CreditExact)
	s := c.Scores[0]
	if s.WorksheetAnswered() != 1 || s.Worksheet[0].Answer != "Nothing later writes the fence\nbut Claim." || s.Worksheet[1].Answer != "" {
		t.Fatalf("Worksheet = %+v, want the first answered", s.Worksheet)
	}
	var b bytes.Buffer
	if err := c.WriteText(&b, Style{}); err != nil {
		t.Fatal(err)
	}
	if want := "worksheet: 1 of 2 answered (not graded: your instructor reads it)\n  earlier:\n    Why do the earlier tests hold?\n      > Nothing later writes the fence\n      > but Claim.\n  limits:\n    What is not guaranteed?\n      > (not answered)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	if err := c.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h, r := rows[0], rows[1]; h[len(h)-2] != "worksheet: earlier" || h[len(h)-1] != "worksheet: limits" || r[len(r)-2] != "Nothing later writes the fence\nbut Claim." || r[len(r)-1] != "" {
		t.Errorf("CSV = %q, want the answers in the last columns", rows)
	}
	b.Reset()
	if err := c.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if want := "<h3 id=\"worksheet-earlier\">Why do the earlier tests hold?</h3>\n<table class=\"worksheet\"><tbody>\n<tr><th>alice</th><td>Nothing later writes the fence\nbut Claim.</td></tr>"; !strings.Contains(b.String(), want) {
		t.Errorf("class page lacks %q", want)
	}
	var gs, cr bytes.Buffer
	if err := s.WriteGradescope(&gs, "visible"); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteClassroom(&cr); err != nil {
		t.Fatal(err)
	}
	var g classout.GradescopeResults
	var cl classout.ClassroomResult
	json.Unmarshal(gs.Bytes(), &g)
	json.Unmarshal(cr.Bytes(), &cl)
	if !strings.Contains(g.Output, "  earlier:\n    Why do the earlier tests hold?\n      > Nothing later writes the fence") {
		t.Errorf("Gradescope's output = %q, want the worksheet", g.Output)
	}
	// In the message of the first test that fails (m2's first point),
	// which the reporter's log shows: not a test of its own.
	if first := cl.Tests[1]; first.Name != "step 2: m2 (point 1 of 2)" || !strings.Contains(first.Message, "missed:    TestB") || !strings.HasSuffix(first.Message, "> but Claim.\n  limits:\n    What is not guaranteed?\n      > (not answered)") || len(cl.Tests) != 4 || cl.MaxScore != 4 {
		t.Errorf("Classroom's tests = %+v, max %d; want the worksheet in m2's first message, 4 tests of 4 points", cl.Tests, cl.MaxScore)
	}
}

// A worksheet answers the exercise's questions only.
func TestLoad_WorksheetOfKnownQuestions(t *testing.T) {
	k := known
	k.Questions = []string{"earlier"}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.yaml")
	os.WriteFile(path, []byte("predictions:\n  m1: {fails: []}\nworksheet:\n  earlir: yes\n"), 0o644)
	if _, err := Load(path, k, true); err == nil || !strings.Contains(err.Error(), `p.yaml:4:3: unknown question "earlir" (did you mean "earlier"?); the questions are: earlier`) {
		t.Errorf("Load() error = %v, want the unknown question", err)
	}
	if _, err := Load(path, known, true); err == nil || !strings.Contains(err.Error(), `p.yaml:4:3: this exercise has no worksheet: remove "worksheet:"`) {
		t.Errorf("Load(no questions) error = %v, want no worksheet", err)
	}
}
