package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// shelfModule writes a module whose generated mutants include one the
// compiler makes equivalent (boxes*perBox with perBox 1 becomes
// boxes/perBox), two that compile to the same code (abs's n = -n deleted,
// and n = n), and some in generic code, compiled only where the tests
// instantiate it.
func shelfModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/shelf\n\ngo 1.26\n",
		"shelf.go": `package shelf

const perBox = 1

// Items returns how many items boxes boxes hold.
func Items(boxes int) int {
	return boxes * perBox
}

func abs(n int) int {
	if n < 0 {
		n = -n
	}
	return n
}

// Distance returns how far apart a and b are.
func Distance(a, b int) int { return abs(a - b) }

// Larger returns the larger of a and b.
func Larger[T int | float64](a, b T) T {
	if a > b {
		return a
	}
	return b
}
`,
		"shelf_test.go": `package shelf

import "testing"

func TestItems(t *testing.T) {
	if got := Items(3); got != 3 {
		t.Errorf("Items(3) = %d, want 3", got)
	}
}

func TestDistance(t *testing.T) {
	if got := Distance(1, 4); got != 3 {
		t.Errorf("Distance(1, 4) = %d, want 3", got)
	}
}

func TestLarger(t *testing.T) {
	if got := Larger(1, 2); got != 2 {
		t.Errorf("Larger(1, 2) = %d, want 2", got)
	}
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shelfMutants writes the module of shelfModule and returns its directory
// and generated mutants.
func shelfMutants(t *testing.T) (string, []*mutation.Mutant) {
	t.Helper()
	dir := shelfModule(t)
	src, err := mutation.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, src.Generate()
}

// Trivial compiler equivalence: a mutant whose compiled code is the
// reference's is equivalent and does not run; one whose code is another
// mutant's is its duplicate, with its verdict, and does not run; a mutant
// of generic code is not judged, and runs. Without it, all of them run.
func TestTCE_EquivalentsAndDuplicatesDoNotRun(t *testing.T) {
	skipShort(t)
	dir, ms := shelfMutants(t)
	rep := prepareAndRun(t, testRun{Dir: dir, Package: ".", Mutants: ms, Jobs: 2, NoCache: true, Full: true})
	byID := map[string]report.Mutant{}
	for _, m := range rep.Mutants {
		byID[m.ID] = m
	}
	eq := byID["items-arithmetic-1"]
	if eq.Status != report.Equivalent || eq.TestSeconds != 0 || eq.Reason != "it compiles to the reference's code" {
		t.Errorf("items-arithmetic-1 (boxes/perBox) = %s (%q, ran %.2fs), want equivalent, not run", eq.Status, eq.Reason, eq.TestSeconds)
	}
	del, neg := byID["abs-remove-assign-1"], byID["abs-negative-1"]
	if neg.DuplicateOf != "abs-remove-assign-1" || neg.Status != del.Status || strings.Join(neg.FailedTests, ",") != strings.Join(del.FailedTests, ",") || neg.TestSeconds != 0 {
		t.Errorf("abs-negative-1 = %+v, want a duplicate of abs-remove-assign-1 (%s %v), not run", neg, del.Status, del.FailedTests)
	}
	if del.Status != report.Killed || del.DuplicateOf != "" || neg.File != "shelf.go" || neg.Line != 12 {
		t.Errorf("abs-remove-assign-1 = %s, duplicate of %q; abs-negative-1 at %s:%d; want killed, its own place", del.Status, del.DuplicateOf, neg.File, neg.Line)
	}
	for _, m := range rep.Mutants {
		if strings.HasPrefix(m.ID, "larger-") && (m.Status == report.Equivalent || m.DuplicateOf != "") {
			t.Errorf("%s, in generic code, is %s (duplicate of %q): generic code is not judged", m.ID, m.Status, m.DuplicateOf)
		}
	}
	if tce := rep.TCE; tce == nil || tce.Equivalent != 1 || tce.Duplicates != 1 || tce.Compiled >= len(ms) || tce.Seconds <= 0 {
		t.Errorf("TCE = %+v, want 1 equivalent, 1 duplicate, the generic mutants not compiled, its time", tce)
	}
	if rep.Summary().Count(report.Equivalent) != 1 {
		t.Errorf("summary = %s, want 1 equivalent", rep.Summary())
	}

	off := prepareAndRun(t, testRun{Dir: dir, Package: ".", Mutants: ms, Jobs: 2, NoCache: true, Full: true, NoTCE: true})
	for _, m := range off.Mutants {
		if m.Status == report.Equivalent || m.DuplicateOf != "" || m.TestSeconds == 0 && m.Status != report.NotCovered {
			t.Errorf("with NoTCE, %s = %s (duplicate of %q, ran %.2fs); want it run", m.ID, m.Status, m.DuplicateOf, m.TestSeconds)
		}
	}
	if off.TCE != nil {
		t.Errorf("with NoTCE, TCE = %+v, want nil", off.TCE)
	}
}

// The listing loses what changes when code only moves: positions, the
// package line and DWARF symbols.
func TestNormalizeCode(t *testing.T) {
	a := "# example.com/shelf\nexample.com/shelf.Items STEXT size=1\n\t0x0000 00000 (shelf.go:7)\tRET\ngo:info.example.com/shelf.abs SDWARFFCN size=10\n\t0x0000 01 02 03\n"
	b := "# example.com/shelf\nexample.com/shelf.Items STEXT size=1\n\t0x0000 00000 (/x/shelf.go:9)\tRET\ngo:info.example.com/shelf.abs SDWARFFCN size=10\n\t0x0000 04 05 06\n"
	if string(normalizeCode([]byte(a))) != string(normalizeCode([]byte(b))) {
		t.Errorf("normalizeCode differs:\n%s\n%s", normalizeCode([]byte(a)), normalizeCode([]byte(b)))
	}
	c := strings.Replace(b, "RET", "NOP", 1)
	if string(normalizeCode([]byte(a))) == string(normalizeCode([]byte(c))) {
		t.Error("normalizeCode hides a changed instruction")
	}
}

// A run that stops at the first failure compiles only the mutants that no
// test killed, after their runs: the equivalent one among them is
// equivalent all the same, and no killed mutant is compiled.
func TestTCE_AfterTheRunOnlyTheMutantsNoTestKilled(t *testing.T) {
	dir, ms := shelfMutants(t)
	rep := prepareAndRun(t, testRun{Dir: dir, Package: ".", Mutants: ms, Jobs: 2, NoCache: true})
	alive := 0
	for _, m := range rep.Mutants {
		if m.Status != report.Killed && !strings.HasPrefix(m.ID, "larger-") {
			alive++
		}
		if m.ID == "items-arithmetic-1" && (m.Status != report.Equivalent || m.Reason != "it compiles to the reference's code") {
			t.Errorf("items-arithmetic-1 (boxes/perBox) = %s (%q), want equivalent", m.Status, m.Reason)
		}
	}
	if tce := rep.TCE; tce == nil || tce.Compiled != alive || tce.Equivalent != 1 || tce.Compiled >= rep.Summary().Count(report.Killed) {
		t.Errorf("TCE = %+v; want the %d mutants no test killed compiled (of %d), 1 equivalent", tce, alive, len(rep.Mutants))
	}
}

// Past its budget, trivial compiler equivalence is left out of a run that
// stops at the first failure, and kept in a full one.
func TestTCE_PastItsBudgetOnlyInFullRuns(t *testing.T) {
	skipShort(t)
	dir, ms := shelfMutants(t)
	pol := defaultPolicy
	pol.TCEBudget = 0
	early := prepareAndRun(t, testRun{Dir: dir, Package: ".", Mutants: ms, Jobs: 2, NoCache: true, Policy: &pol})
	if early.TCE != nil || early.Summary().Count(report.Equivalent) != 0 {
		t.Errorf("an early-kill run past the budget: TCE = %+v, %d equivalent; want none", early.TCE, early.Summary().Count(report.Equivalent))
	}
	full := prepareAndRun(t, testRun{Dir: dir, Package: ".", Mutants: ms, Jobs: 2, NoCache: true, Full: true, Policy: &pol})
	if full.TCE == nil || full.TCE.Equivalent != 1 {
		t.Errorf("a full run past the budget: TCE = %+v, want it run, 1 equivalent", full.TCE)
	}
}
