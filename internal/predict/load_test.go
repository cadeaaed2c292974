package predict

import (
	"path/filepath"
	"strings"
	"testing"
)

var (
	testIDs = []string{"init-not-idempotent", "enqueue-replace", "state-empty-not-nil", "claim-boundary",
		"renew-expired", "complete-twice", "release-resets-fence", "claim-many-first-only"}
	testNames = []string{"TestClaim_ReassignsAtExactExpiry", "TestModel", "TestRenew_RefusesAnythingButTheLiveLease",
		"TestRenew_RefusesAnythingButTheLiveLease/AtExactExpiry", "TestRenew_RefusesAnythingButTheLiveLease/DoneJob"}
	full = Known{Mutants: testIDs, Tests: testNames}
)

// Every bad file gets exactly these errors, each with its position.
func TestLoad_BadFiles(t *testing.T) {
	tests := []struct {
		file    string
		partial bool
		want    []string
	}{
		{"unknown-mutant.yaml", true, []string{`2:3: unknown mutant id "claim-bondary" (did you mean "claim-boundary"?); mutate list shows the ids`}},
		{"unknown-test.yaml", true, []string{`3:13: mutant claim-boundary: unknown test "TestClaim_ReassignsAtExactExpiri" (did you mean "TestClaim_ReassignsAtExactExpiry"?); the suite's tests are listed at the end of mutate template's output`}},
		{"unknown-subtest.yaml", true, []string{`3:13: mutant renew-expired: unknown test "TestRenew_RefusesAnythingButTheLiveLease/AtExpiry" (did you mean "TestRenew_RefusesAnythingButTheLiveLease/AtExactExpiry"?); the suite's tests are listed at the end of mutate template's output`}},
		{"duplicate-mutant.yaml", true, []string{`4:3: duplicate key "claim-boundary" (first at line 2): keep one`}},
		// The duplicate is one problem: the first entry still predicts the
		// mutant, so nothing is missing.
		{"duplicate-in-full-file.yaml", false, []string{`10:3: duplicate key "claim-boundary" (first at line 5): keep one`}},
		{"duplicate-test.yaml", true, []string{`5:9: "TestClaim_ReassignsAtExactExpiry" is listed twice (first at line 4)`}},
		{"unknown-field.yaml", true, []string{
			`3:5: unknown field "fail" in a prediction (did you mean "fails"?); the fields are: fails, why, answer`}},
		{"no-fails.yaml", true, []string{`2:3: claim-boundary has a why but no fails: list the tests you expect to fail, or write fails: [] if you expect the mutant to survive`}},
		// Problems come in the order of their places in the file, however
		// they were found.
		{"out-of-order.yaml", true, []string{
			`3:13: mutant claim-boundary: unknown test "TestClaim_AtExpiry"; the suite's tests are listed at the end of mutate template's output`,
			`7:5: unknown field "because" in a prediction; the fields are: fails, why, answer`}},
		{"not-utf8.yaml", true, []string{`1:13: not UTF-8: byte 0xE9 cannot start or continue a character here; save the file as UTF-8`}},
		{"fails-not-a-list.yaml", true, []string{`3:12: fails must be a list of test names, such as [TestX, TestY/sub], or [] if you expect the mutant to survive; got a string`}},
		{"fails-item-not-a-string.yaml", true, []string{`3:13: a test name must be a string, got a list`}},
		{"prediction-not-a-mapping.yaml", true, []string{`2:19: claim-boundary must be a mapping with "fails:" and "why:", got a list`}},
		{"why-not-a-string.yaml", true, []string{`4:10: why must be text, got a list`}},
		{"empty.yaml", true, []string{`1:1: the file is empty: go tool mutate template prints a prediction file to fill in`}},
		{"only-comments.yaml", true, []string{`1:1: the file holds no YAML document: go tool mutate template prints a prediction file to fill in`}},
		// A misspelt id is one mistake, with one error: the mutant it
		// seems to mean is not missing too.
		{"misspelt-in-full-file.yaml", false, []string{`5:3: unknown mutant id "claim-boundry" (did you mean "claim-boundary"?); mutate list shows the ids`}},
		{"not-yaml.yaml", true, []string{`3:12: not valid YAML: sequence end token ']' not found`}},
		{"prose.yaml", true, []string{`1:1: a prediction file is a mapping that starts with "predictions:", got a string`}},
		{"unknown-top-field.yaml", true, []string{`1:1: unknown field "lerner" in a prediction file (did you mean "learner"?); the fields are: learner, predictions, worksheet`}},
		{"no-predictions.yaml", true, []string{`1:1: no "predictions:" mapping: run mutate template for a file to fill in`}},
		{"predictions-not-a-mapping.yaml", true, []string{`2:3: "predictions:" must map mutant ids to predictions, got a list`}},
		{"learner-not-a-string.yaml", true, []string{`1:10: learner must be a name, got a list`}},
		{"missing-mutants.yaml", false, []string{`2:1: no prediction for init-not-idempotent, enqueue-replace, state-empty-not-nil, renew-expired, complete-twice, release-resets-fence, claim-many-first-only: add them, or pass -partial to check only what is there`}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "bad", tc.file)
			f, err := Load(path, full, tc.partial)
			if err == nil {
				t.Fatalf("Load() = %+v, want errors", f)
			}
			var want []string
			for _, w := range tc.want {
				want = append(want, path+":"+w)
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Fatalf("Load() errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
			}
		})
	}
}

func TestLoad_TopLevelOnlyChecksTheParent(t *testing.T) {
	top := Known{Mutants: testIDs, Tests: []string{"TestRenew_RefusesAnythingButTheLiveLease"}, TopLevelOnly: true}
	f, err := Load("testdata/bad/unknown-subtest.yaml", top, true)
	if err != nil {
		t.Fatalf("Load(top-level only) error = %v, want none: the parent exists", err)
	}
	// The full names of a run then catch the subtest.
	errs := f.Check(full, true)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `unknown test "TestRenew_RefusesAnythingButTheLiveLease/AtExpiry"`) {
		t.Fatalf("Check(full) = %v, want the unknown subtest", errs)
	}
}

func TestLoad_ReadsAFile(t *testing.T) {
	f, err := Load("testdata/good/alice.yaml", full, false)
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	if f.Learner != "alice" || f.Name() != "alice" || len(f.Predictions) != 8 {
		t.Fatalf("Load() = learner %q, %d predictions; want alice, 8", f.Learner, len(f.Predictions))
	}
	p := f.Lookup("renew-expired")
	if p == nil || strings.Join(p.Fails, ",") != "TestRenew_RefusesAnythingButTheLiveLease/AtExactExpiry" || p.Why != "renew at now == until must be refused" {
		t.Fatalf("Lookup(renew-expired) = %+v", p)
	}
	if p := f.Lookup("complete-twice"); p == nil || p.Fails == nil || len(p.Fails) != 0 || p.Why != "" || !p.Answered {
		t.Fatalf("Lookup(complete-twice) = %+v, want fails [] and no why: answered, it survives", p)
	}
}

// A file saved with a byte order mark reads as one without; an entry left
// as the template writes it (fails and why empty) is not answered, and
// predicts nothing.
func TestLoad_BOMAndBlankEntries(t *testing.T) {
	f, err := Load("testdata/good/bom.yaml", full, true)
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	if f.Learner != "alice" {
		t.Errorf("learner = %q, want alice", f.Learner)
	}
	if p := f.Lookup("claim-boundary"); p == nil || !p.Answered || strings.Join(p.Fails, ",") != "TestClaim_ReassignsAtExactExpiry" {
		t.Errorf("Lookup(claim-boundary) = %+v, want an answer", p)
	}
	if p := f.Lookup("renew-expired"); p == nil || p.Answered || p.Fails != nil || p.Why != "" {
		t.Errorf("Lookup(renew-expired) = %+v, want an entry not answered", p)
	}
}
