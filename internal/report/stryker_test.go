package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/reportschema"
)

func sampleSources() Sources {
	return Sources{
		Files:  map[string]string{"lease/lease.go": "package lease\n", "calc/calc.go": "package calc\n"},
		Tests:  map[string]Position{"TestA": {Line: 5, Column: 1}, "TestB": {Line: 9, Column: 1}},
		TestAt: map[string]string{"TestA": "lease/a_test.go", "TestB": "lease/b_test.go"},
	}
}

// Every status maps to the schema's, and the output follows the schema.
func TestStryker_FollowsTheSchema(t *testing.T) {
	r := sample()
	r.Mutants[0].Location = &Location{Start: Position{226, 5}, End: Position{226, 16}}
	r.Mutants[0].Kind, r.Mutants[0].Replacement = "expr", "until >= now"
	var buf bytes.Buffer
	if err := r.WriteStryker(&buf, sampleSources()); err != nil {
		t.Fatal(err)
	}
	if err := reportschema.Validate(buf.Bytes()); err != nil {
		t.Fatalf("the report does not follow the schema: %v", err)
	}

	var got Stryker
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	statuses := map[string]string{}
	for _, f := range got.Files {
		if f.Language != "go" {
			t.Errorf("language = %q, want go", f.Language)
		}
		for _, m := range f.Mutants {
			statuses[m.ID] = m.Status
		}
	}
	want := map[string]string{"claim-boundary": "Killed", "renew-expired": "Survived", "loops": "Timeout", "exits": "RuntimeError", "broken": "CompileError"}
	for id, st := range want {
		if statuses[id] != st {
			t.Errorf("status of %s = %q, want %q", id, statuses[id], st)
		}
	}
	m := got.Files["lease/lease.go"].Mutants[0]
	if m.ID != "claim-boundary" || m.MutatorName != "expr" || m.Replacement != "until >= now" || m.Location.Start != (Position{226, 5}) ||
		strings.Join(m.KilledBy, ",") != "TestClaim_ReassignsAtExactExpiry,TestModel/seq" ||
		m.StatusReason != "claim_test.go:40: Claim(now == until) = 0, want 2" || m.Duration != 1500 {
		t.Errorf("claim-boundary = %+v", m)
	}
	if got.Files["lease/lease.go"].Source != "package lease\n" {
		t.Errorf("the source of lease/lease.go is missing")
	}
	tests := got.TestFiles["lease/b_test.go"].Tests
	if len(tests) != 2 || tests[0].ID != "TestB" || tests[0].Location.Start != (Position{9, 1}) || tests[1].ID != "TestB/sub" || tests[1].Location != nil {
		t.Errorf("tests of lease/b_test.go = %+v", tests)
	}
}
