package predict

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/mutants"
)

// Fill writes the failing tests of rep into a template, as a learner who
// predicted perfectly would.
func fill(t *testing.T, template []byte, rep *report.Report) []byte {
	t.Helper()
	out := string(template)
	for _, m := range rep.Mutants {
		empty := "  " + m.ID + ":\n    fails: []\n"
		if !strings.Contains(out, empty) {
			t.Fatalf("template has no empty prediction for %s", m.ID)
		}
		out = strings.Replace(out, empty, "  "+m.ID+":\n    fails: ["+strings.Join(m.FailedTests, ", ")+"]\n", 1)
	}
	return []byte(out)
}

func TestWriteTemplate(t *testing.T) {
	ms := mutants.Catalog()
	names := []string{"TestA", "TestB", "TestB/sub"}
	var buf bytes.Buffer
	if err := WriteTemplate(&buf, "", "./lease", ms, names); err != nil {
		t.Fatal(err)
	}
	tmpl := buf.String()
	for _, want := range []string{
		"learner:\npredictions:\n",
		"  # step 4: the expiry comparison in Claim is inclusive\n",
		"  # faulty fragment: row[0] >= now\n  # rewrite: until > now -> until >= now in Store.Claim (mutate show\n  #   claim-boundary)\n  claim-boundary:\n    fails: []\n    why:\n",
		"  # rewrite: the whole body of Store.ClaimMany is replaced (mutate show\n",
		"# The suite's tests (3), a subtest as Parent/sub:\n#   TestA\n#   TestB\n#   TestB/sub\n",
	} {
		if !strings.Contains(tmpl, want) {
			t.Errorf("template lacks %q:\n%s", want, tmpl)
		}
	}
	for _, line := range strings.Split(tmpl, "\n") {
		if len(line) > 80 {
			t.Errorf("line longer than 80 columns: %q", line)
		}
	}

	// The template as written is a valid, complete prediction: every mutant survives.
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	known := Known{Mutants: ids, Tests: names}
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, known, false)
	if err != nil {
		t.Fatalf("Load(template) error = %v", err)
	}
	if f.Learner != "" || len(f.Predictions) != len(ms) {
		t.Fatalf("Load(template) = learner %q, %d predictions", f.Learner, len(f.Predictions))
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
	if s := Compare(f, &rep); s.Exact != len(ms) {
		t.Fatalf("filled template: %d of %d exact", s.Exact, len(ms))
	}
}

func TestWriteTemplate_DeletedStatementsAndUntitledMutants(t *testing.T) {
	m := &mutants.Mutant{ID: "claim-ignores-done", Target: "Store.Claim", Kind: mutants.Stmt, Find: "if done {\n\treturn 0, nil\n}", Replace: ""}
	var buf bytes.Buffer
	if err := WriteTemplate(&buf, "", ".", []*mutants.Mutant{m}, []string{"TestA"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Predictions of the tests that fail under each mutant of package .\n",
		"  # claim-ignores-done\n  # rewrite: if done { return 0, nil } is deleted from Store.Claim (mutate\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("template lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestWriteTemplate_QuotesLearner(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTemplate(&buf, "Ann: B", "./lease", mutants.Catalog()[:1], []string{"TestA"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "learner: \"Ann: B\"\n") {
		t.Fatalf("learner not quoted:\n%s", buf.String())
	}
}
