package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/reportschema"
)

// The page holds the viewer and the report, which follows the schema; the
// kill matrix marks each test that failed under each mutant with its
// message; and nothing from the sources or the messages can end a script
// or open one.
func TestWriteHTML_MatrixAndReport(t *testing.T) {
	r := sample()
	hostile := "</script><script>alert(1)</script>"
	r.Mutants[0].Failures[0].Message = "claim_test.go:40: got " + hostile
	// A parent that logged nothing fails because its subtest did.
	m := &r.Mutants[0]
	m.FailedTests = []string{m.FailedTests[0], "TestModel", "TestModel/seq"}
	m.Failures = []Failure{m.Failures[0], {Test: "TestModel"}, m.Failures[1]}
	src := sampleSources()
	src.Files["lease/lease.go"] = "package lease // " + hostile + "\n"
	m.Contract, m.Diff = "a lease is held until its expiry, not at it", "-a\n+"+hostile
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf, src); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n, m := strings.Count(page, "<script"), strings.Count(page, "</script"); n != 2 || m != 2 {
		t.Fatalf("the page opens %d scripts and closes %d, want 2 and 2 (the viewer and the report)", n, m)
	}

	_, after, ok := strings.Cut(page, "document.querySelector('mutation-test-report-app').report = ")
	data, _, ok2 := strings.Cut(after, ";</script>")
	if !ok || !ok2 {
		t.Fatal("the page does not hand the report to the viewer")
	}
	if err := reportschema.Validate([]byte(data)); err != nil {
		t.Fatalf("the report in the page does not follow the schema: %v", err)
	}
	var got Stryker
	if err := json.Unmarshal([]byte(data), &got); err != nil {
		t.Fatal(err)
	}
	if s := got.Files["lease/lease.go"].Source; s != src.Files["lease/lease.go"] {
		t.Errorf("the source in the page = %q, want %q", s, src.Files["lease/lease.go"])
	}

	for _, want := range []string{
		`<td class="failed" data-test="TestClaim_ReassignsAtExactExpiry" data-mutant="claim-boundary" title="claim_test.go:40: got &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;">`,
		// A failed subtest the baseline's names lack still has its row.
		`<tr><th>TestModel/seq</th><td class="failed" data-test="TestModel/seq" data-mutant="claim-boundary"`,
		`<td class="failed" data-test="TestModel" data-mutant="claim-boundary" title="failed because its subtests failed: TestModel/seq">`,
		`<p id="idle">No mutant made these 3 tests fail: they passed under every mutant of the run: <code>TestA</code>, <code>TestB</code>, <code>TestB/sub</code>.</p>`,
		`<dt>Contract</dt><dd>a lease is held until its expiry, not at it</dd>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(page, `<td class="failed"`); n != 4 {
		t.Errorf("the matrix has %d marks, want 4 (the kills of claim-boundary, and the failure before hangs-after's timeout)", n)
	}
}

// A full run's page can show the dominators alone: a checkbox, and every
// column of a mutant that is not one marked to hide.
func TestWriteHTML_DominatorsAlone(t *testing.T) {
	r := &Report{Package: "./calc", Baseline: Baseline{TestNames: []string{"TestA", "TestB"}}, Mutants: []Mutant{
		{ID: "a", File: "calc.go", Line: 1, Status: Killed, FailedTests: []string{"TestA"}, Failures: []Failure{{Test: "TestA", Message: "a"}}},
		{ID: "ab", File: "calc.go", Line: 2, Status: Killed, FailedTests: []string{"TestA", "TestB"}, Failures: []Failure{{Test: "TestA", Message: "a"}, {Test: "TestB", Message: "b"}}},
		{ID: "twin", File: "calc.go", Line: 3, Status: Killed, FailedTests: []string{"TestA"}, Failures: []Failure{{Test: "TestA", Message: "a"}}, DuplicateOf: "a"},
	}}
	r.Subsume()
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf, Sources{Files: map[string]string{"calc.go": "package calc\n\n\n"}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`<input type="checkbox" id="dominators-only"> Show only the 1 dominators`,
		`<th class="status-good" data-mutant="a" title="a: killed (a dominator)">`,
		`<th class="status-good subsumed" data-mutant="ab" title="ab: killed">`,
		`<td class="failed subsumed" data-test="TestB" data-mutant="ab" title="b">✗</td>`,
		`<dt>Subsumed by</dt><dd>a</dd>`,
		`<dt>Duplicate of</dt><dd>a: it compiles to the same code</dd>`,
		`classList.toggle('dominators-only', e.target.checked)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	r.Mutants[0].FirstFailureOnly = true
	r.Subsume()
	buf.Reset()
	if err := r.WriteHTML(&buf, Sources{Files: map[string]string{"calc.go": "package calc\n\n\n"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `id="dominators-only"`) || strings.Contains(buf.String(), ` subsumed"`) {
		t.Error("a run stopped at first failures has no dominators to show, but the page offers them")
	}
}
