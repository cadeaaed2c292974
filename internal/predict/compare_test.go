package predict

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/report"
)

// killed returns a killed mutant whose failing tests report "<name> failed".
func killed(id string, failed ...string) report.Mutant {
	m := report.Mutant{ID: id, Status: report.Killed, FailedTests: failed}
	for _, name := range failed {
		m.Failures = append(m.Failures, report.Failure{Test: name, Message: name + " failed"})
	}
	return m
}

func survived(id string) report.Mutant {
	return report.Mutant{ID: id, Status: report.Survived, FailedTests: []string{}, Failures: []report.Failure{}}
}

func loadString(t *testing.T, known Known, src string) *File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, known, true)
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	return f
}

var (
	ids   = []string{"m1", "m2", "m3", "m4", "m5", "m6"}
	tests = []string{"TestA", "TestB", "TestP", "TestP/x", "TestP/y"}
	known = Known{Mutants: ids, Tests: tests}
)

func outcome(t *testing.T, s *Score, id string) Match {
	t.Helper()
	for _, o := range s.Matches {
		if o.Mutant == id {
			return o
		}
	}
	t.Fatalf("no outcome for %s", id)
	return Match{}
}

func missedNames(o Match) string {
	var names []string
	for _, m := range o.Missed {
		names = append(names, m.Test)
	}
	return strings.Join(names, ",")
}

func TestCompare(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{
		killed("m1", "TestA"),                       // predicted exactly
		killed("m2", "TestA", "TestB"),              // TestB missed
		killed("m3", "TestP", "TestP/x", "TestP/y"), // parent predicted: covers its subtests
		killed("m4", "TestP", "TestP/x"),            // subtest predicted: its parent is not missed
		survived("m5"),                              // predicted [], survives
		killed("m6", "TestB"),                       // not predicted
	}}
	f := loadString(t, known, `predictions:
  m1: {fails: [TestA]}
  m2: {fails: [TestA]}
  m3: {fails: [TestP]}
  m4: {fails: [TestP/x, TestP/y]}
  m5: {fails: []}
`)
	s := Compare(f, rep, CreditExact)
	tests := []struct {
		id                   string
		exact                bool
		right, wrong, missed string
	}{
		{"m1", true, "TestA", "", ""},
		{"m2", false, "TestA", "", "TestB"},
		{"m3", true, "TestP", "", ""},
		{"m4", false, "TestP/x", "TestP/y", ""},
		{"m5", true, "", "", ""},
	}
	for _, tc := range tests {
		o := outcome(t, s, tc.id)
		if o.Exact != tc.exact || strings.Join(o.Right, ",") != tc.right || strings.Join(o.Wrong, ",") != tc.wrong || missedNames(o) != tc.missed {
			t.Errorf("%s: exact %v right %v wrong %v missed %q; want %v %q %q %q",
				tc.id, o.Exact, o.Right, o.Wrong, missedNames(o), tc.exact, tc.right, tc.wrong, tc.missed)
		}
	}
	if o := outcome(t, s, "m2"); o.Missed[0].Message != "TestB failed" {
		t.Errorf("missed message = %q, want the test's own message", o.Missed[0].Message)
	}
	if o := outcome(t, s, "m6"); !o.NotPredicted || o.Exact {
		t.Errorf("m6: NotPredicted %v, Exact %v; want true, false", o.NotPredicted, o.Exact)
	}
	// right: TestA, TestA, TestP, TestP/x = 4; wrong: TestP/y = 1; missed: TestB = 1.
	if s.Exact != 3 || s.Total != 6 || s.Right != 4 || s.Wrong != 1 || s.Missed != 1 {
		t.Fatalf("score exact %d/%d right %d wrong %d missed %d; want 3/6 4 1 1", s.Exact, s.Total, s.Right, s.Wrong, s.Missed)
	}
	if s.Precision != (Ratio{4, 5}) || s.Recall != (Ratio{4, 5}) || s.Precision.String() != "0.80" {
		t.Fatalf("precision %v recall %v; want 4/5 4/5", s.Precision, s.Recall)
	}
}

func TestCompare_SurvivalPredictedWrongly(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{killed("m1", "TestA"), survived("m2")}}
	f := loadString(t, known, "predictions:\n  m1: {fails: []}\n  m2: {fails: [TestB]}\n")
	s := Compare(f, rep, CreditExact)
	if o := outcome(t, s, "m1"); o.Exact || missedNames(o) != "TestA" {
		t.Errorf("m1 predicted to survive but killed: exact %v missed %q", o.Exact, missedNames(o))
	}
	if o := outcome(t, s, "m2"); o.Exact || strings.Join(o.Wrong, ",") != "TestB" {
		t.Errorf("m2 predicted killed but survived: exact %v wrong %v", o.Exact, o.Wrong)
	}
	if s.Precision != (Ratio{0, 1}) || s.Recall != (Ratio{0, 1}) {
		t.Errorf("precision %v recall %v; want 0/1 0/1", s.Precision, s.Recall)
	}
}

func TestCompare_NothingPredictedNothingFailed(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{survived("m1")}}
	s := Compare(loadString(t, known, "predictions:\n  m1: {fails: []}\n"), rep, CreditExact)
	if s.Exact != 1 || s.Precision.Defined() || s.Recall.Defined() || s.Points != 1 {
		t.Fatalf("exact %d precision %v recall %v points %v; want 1, undefined, undefined, 1", s.Exact, s.Precision, s.Recall, s.Points)
	}
	if s.Precision.String() != "–" {
		t.Errorf("an undefined precision reads %q, want –", s.Precision)
	}
	data, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(data), `"precision":null,"recall":null`) {
		t.Errorf("JSON = %s, %v; want precision and recall null", data, err)
	}
}

func TestClass_MispredictedMostFirst(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{killed("m1", "TestA"), killed("m2", "TestB")}}
	alice := Compare(loadString(t, known, "learner: alice\npredictions:\n  m1: {fails: [TestA]}\n  m2: {fails: [TestA]}\n"), rep, CreditExact)
	bob := Compare(loadString(t, known, "learner: bob\npredictions:\n  m1: {fails: [TestA]}\n  m2: {fails: []}\n"), rep, CreditExact)
	c := newClass([]*Score{alice, bob}, nil)
	if c.AllExact() {
		t.Fatal("AllExact() = true, want false")
	}
	if got := c.Mispredicted; len(got) != 2 || got[0] != (mutantCount{"m2", 2}) || got[1] != (mutantCount{"m1", 0}) {
		t.Fatalf("Mispredicted = %+v, want m2 by 2 files, then m1 by 0", got)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf, Style{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(alice): 1 of 2 exact, 1 of 2 points, precision 0.50, recall 0.50",
		"class: 2 learners\n",
		"mispredicted most: m2 (by 2 of 2 valid files)",
		"    wrong:     TestA (predicted, but it passed)",
		"    missed:    TestB (it failed with:)\n                 TestB failed",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "\x1b[") {
		t.Error("text output without Color has escape codes")
	}
	buf.Reset()
	if err := c.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| alice | 1/2 | 1/2 | 0.50 | 0.50 |", "| `m2` | mispredicted by 2 of 2 valid files |", "| - | `m2` | killed | `TestA` | `TestB` | `TestB` | `TestA` | ✗ | 0/1 |",
		"What the missed tests reported:\n\n- `TestB` under `m2`:\n\n  ```\n  TestB failed\n  ```\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, buf.String())
		}
	}
}

// A binary that crashes outside any test detects the mutant; a prediction
// that it survives is not exact, and what the binary said is shown.
func TestCompare_BinaryFailedOutsideAnyTest(t *testing.T) {
	m := report.Mutant{ID: "m1", Status: report.Crashed, FailedTests: []string{}, Failures: []report.Failure{},
		Reason: "the test binary exited with status 2 before any test ran", Output: "panic in init"}
	rep := &report.Report{Mutants: []report.Mutant{m}}
	if err := Comparable(rep); err != nil {
		t.Fatalf("Comparable(crashed) = %v, want nil", err)
	}
	s := Compare(loadString(t, known, "predictions:\n  m1: {fails: []}\n"), rep, CreditExact)
	o := outcome(t, s, "m1")
	want := "the test binary exited with status 2 before any test ran\npanic in init"
	if o.Exact || len(o.Missed) != 1 || o.Missed[0].Test != binaryFailed || o.Missed[0].Message != want {
		t.Fatalf("outcome = %+v, want not exact, the binary's failure missed with %q", o, want)
	}
}

// A timeout, a build failure or flaky tests say nothing about which tests
// fail.
func TestComparable_RefusesTimeoutsBuildFailuresAndFlakyMutants(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{
		{ID: "k", Status: report.Killed}, {ID: "t", Status: report.Timeout}, {ID: "b", Status: report.BuildFailed},
		{ID: "f", Status: report.Flaky, FlakyTests: []string{"TestX"}},
	}}
	err := Comparable(rep)
	if err == nil || err.Error() != "cannot compare predictions with mutants that timed out, do not compile or have flaky tests: t (timeout), b (build-failed), f (flaky)" {
		t.Fatalf("Comparable() = %v", err)
	}
}

// A run stopped at its limit after some tests had failed names those, not
// all that would have.
func TestComparable_RefusesPartialFailingSets(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{
		{ID: "full", Status: report.Killed, FailedTests: []string{"TestA"}},
		{ID: "cut", Status: report.Timeout, FailedTests: []string{"TestA"}, Partial: true},
	}}
	err := Comparable(rep)
	if err == nil || err.Error() != "cannot compare predictions with mutants whose run was stopped at its limit after some tests had failed (the failing tests are partial): cut" {
		t.Fatalf("Comparable() = %v", err)
	}
}

// An early-kill run names the first test that failed, not all of them.
func TestComparable_RefusesRunsStoppedAtTheFirstFailure(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{
		{ID: "full", Status: report.Killed},
		{ID: "early", Status: report.Killed, FirstFailureOnly: true},
	}}
	err := Comparable(rep)
	if err == nil || err.Error() != "cannot compare predictions with mutants whose run stopped at the first failing test (run them with -full): early" {
		t.Fatalf("Comparable() = %v", err)
	}
}

// An entry left blank (fails and why empty, as the template writes it) is
// not answered: counted apart, never a prediction that the mutant
// survives, and what failed under it is not shown unless asked.
func TestCompare_BlankIsNotAnswered(t *testing.T) {
	f := loadString(t, known, "learner: dan\npredictions:\n  m1: {fails: [TestA]}\n  m2:\n    fails:\n    why:\n  m3: {fails: [], why: nothing observes it}\n")
	s := Compare(f, gradedRun(), CreditExact)
	if s.Answered != 2 || s.Exact != 2 || s.Points != 2 || s.MaxPoints != 4 {
		t.Fatalf("answered %d, exact %d, points %v of %d; want 2 answered, both exact, 2 of 4 points", s.Answered, s.Exact, s.Points, s.MaxPoints)
	}
	if o := s.Matches[1]; !o.NotPredicted || o.Exact || o.Points != 0 {
		t.Fatalf("m2 = %+v, want not answered, no points", o)
	}
	c := newClass([]*Score{s}, nil)
	var buf bytes.Buffer
	if err := c.WriteText(&buf, Style{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"(dan): 2 of 3 answered, 2 of 2 exact, 2 of 4 points",
		"- m2 (step 2): not answered\n",
		"1 mutant not answered: fill in fails (and why) in ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "TestB") {
		t.Errorf("text names TestB, which failed under m2, not answered:\n%s", out)
	}
	buf.Reset()
	c.ShowAnswers()
	if err := c.WriteText(&buf, Style{}); err != nil {
		t.Fatal(err)
	}
	if want := "- m2 (step 2, killed): not answered\n    failed:    TestA, TestB\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("with answers, text lacks %q:\n%s", want, buf.String())
	}
}

// The model answer's grade is shown, not its predictions, unless asked.
func TestClass_TheModelAnswerIsGradedNotShown(t *testing.T) {
	model := Compare(loadString(t, known, "learner: model\npredictions:\n  m1: {fails: [TestA]}\n  m2: {fails: [TestA, TestB]}\n  m3: {fails: []}\n"), gradedRun(), CreditExact)
	model.Model = true
	c := newClass([]*Score{model}, nil)
	var buf bytes.Buffer
	if err := c.WriteText(&buf, Style{}); err != nil {
		t.Fatal(err)
	}
	if want := "(model, the model answer): 3 of 3 exact, 4 of 4 points, precision 1.00, recall 1.00\n    (its predictions, the answers: check -answers shows them)\n"; !strings.HasSuffix(buf.String(), want) || strings.Contains(buf.String(), "TestB") {
		t.Errorf("text = %q, want only the grade: %q", buf.String(), want)
	}
	c.ShowAnswers()
	buf.Reset()
	if err := c.WriteText(&buf, Style{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "    failed:    TestA, TestB\n") {
		t.Errorf("with answers, text lacks the model's comparison:\n%s", buf.String())
	}
}

// The learner of an invalid file is read as far as the file allows: from
// its YAML, from its learner: line when the YAML is not valid, from
// nothing when it is not UTF-8.
func TestLearnerOf(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ src, want string }{
		{"learner: alice\npredictions:\n  m9: {fails: []}\n", "alice"},
		{"learner: \"Bo Li\"  # me\npredictions:\n  m1: {fails: [TestA\n", "Bo Li"},
		{"learner: Ren\xe9e\npredictions: {}\n", ""},
		{"predictions:\n  m1: {fails: []}\n", ""},
	} {
		path := filepath.Join(dir, "p.yaml")
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := learnerOf(path); got != tc.want {
			t.Errorf("learnerOf(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
