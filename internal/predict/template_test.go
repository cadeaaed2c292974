package predict

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// Fill writes the failing tests of rep into a template, as a learner who
// predicted perfectly would.
func fill(t *testing.T, template []byte, rep *report.Report) []byte {
	t.Helper()
	out := string(template)
	for _, m := range rep.Mutants {
		empty := "  " + m.ID + ":\n    fails:\n"
		if !strings.Contains(out, empty) {
			t.Fatalf("template has no empty prediction for %s", m.ID)
		}
		out = strings.Replace(out, empty, "  "+m.ID+":\n    fails: ["+strings.Join(m.FailedTests, ", ")+"]\n", 1)
	}
	return []byte(out)
}

// mutants is a catalog of four, one of each kind.
func mutants() []*mutation.Mutant {
	return []*mutation.Mutant{
		{ID: "init-not-idempotent", Step: 1, Title: "the schema loses IF NOT EXISTS", Target: "schema", Kind: mutation.String,
			Find: "CREATE TABLE IF NOT EXISTS jobs", Replace: "CREATE TABLE jobs"},
		{ID: "claim-boundary", Step: 4, Title: "the expiry comparison in Claim is inclusive", Contract: "Claim returns 0 while until > now.",
			Seed: "row[0] >= now", Target: "Store.Claim", Kind: mutation.Expr, Find: "until > now", Replace: "until >= now"},
		{ID: "claim-many-body", Step: 8, Target: "Store.ClaimMany", Kind: mutation.Body, Find: "return nil, nil", Replace: "return []int64{1}, nil"},
		{ID: "claim-ignores-done", Target: "Store.Claim", Kind: mutation.Stmt, Find: "if done {\n\treturn 0, nil\n}", Replace: ""},
	}
}

func TestTemplate(t *testing.T) {
	ms := mutants()
	names := []string{"TestA", "TestB", "TestB/sub"}
	var buf bytes.Buffer
	ms[1].Question = "Which input tells it apart?"
	questions := []exercise.Question{{ID: "earlier-steps", Question: "Why do the earlier steps' tests still hold?"}, {ID: "not-guaranteed", Question: "What does it not guarantee?"}}
	tmpl := Template{Package: "./lease", Mutants: ms, Tests: names, Worksheet: questions, Check: "go tool mutate check -mutants x.yaml t.yaml",
		Show: func(id string) string { return "go tool mutate show -mutants x.yaml " + id }}
	if err := tmpl.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"# Predictions of the tests that fail under each mutant of package ./lease\n",
		"# Then check yourself:\n#   go tool mutate check -mutants x.yaml t.yaml\nlearner:\npredictions:\n",
		"  # step 4: the expiry comparison in Claim is inclusive\n  # contract: Claim returns 0 while until > now.\n",
		"  # faulty fragment: row[0] >= now\n  # rewrite: expr `until > now` -> `until >= now` in Store.Claim (go tool\n  #   mutate show -mutants x.yaml claim-boundary)\n  # question: Which input tells it apart?\n  claim-boundary:\n    fails:\n    why:\n    answer:\n",
		"  claim-many-body:\n    fails:\n    why:\n\n",
		"# The worksheet: answer each question in your own words, after your\n# predictions (not graded: your instructor reads the answers).\nworksheet:\n  # Why do the earlier steps' tests still hold?\n  earlier-steps:\n\n  # What does it not guarantee?\n  not-guaranteed:\n",
		"  # rewrite: the whole body of Store.ClaimMany replaced (go tool mutate show\n",
		"  # claim-ignores-done\n  # rewrite: stmt `if done { return 0, nil }` deleted from Store.Claim (go\n",
		"# The suite's tests (3), a subtest as Parent/sub:\n#   TestA\n#   TestB\n#   TestB/sub\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("template lacks %q:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if len(line) > 80 {
			t.Errorf("line longer than 80 columns: %q", line)
		}
	}

	// The template as written is a valid, complete file, with no mutant
	// answered: none is predicted to survive.
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	known := Known{Mutants: ids, Tests: names, Questions: []string{"earlier-steps", "not-guaranteed"}}
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, known, false)
	if err != nil {
		t.Fatalf("Load(template) error = %v", err)
	}
	if f.Learner != "" || len(f.Predictions) != len(ms) || len(f.Worksheet) != 0 {
		t.Fatalf("Load(template) = learner %q, %d predictions, worksheet %v", f.Learner, len(f.Predictions), f.Worksheet)
	}
	for _, p := range f.Predictions {
		if p.Answered {
			t.Errorf("Load(template): %s is answered, want not", p.Mutant)
		}
	}

	// Filled with what actually failed, it checks exact.
	var rep report.Report
	for i, id := range ids {
		failed := names[i%3 : i%3+1]
		rep.Mutants = append(rep.Mutants, killed(id, failed...))
	}
	if err := os.WriteFile(path, fill(t, buf.Bytes(), &rep), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = Load(path, known, false)
	if err != nil {
		t.Fatalf("Load(filled) error = %v", err)
	}
	if s := Compare(f, &rep, CreditExact); s.Exact != len(ms) {
		t.Fatalf("filled template: %d of %d exact", s.Exact, len(ms))
	}
}

func TestTemplate_QuotesLearner(t *testing.T) {
	var buf bytes.Buffer
	if err := (Template{Learner: "Ann: B", Package: "./lease", Mutants: mutants()[:1], Tests: []string{"TestA"}, Check: "go tool mutate check t.yaml",
		Show: func(id string) string { return "go tool mutate show " + id }}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "learner: \"Ann: B\"\n") {
		t.Fatalf("learner not quoted:\n%s", buf.String())
	}
}
