package mutants

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func loadLease(t *testing.T) *Package {
	t.Helper()
	p, err := Load("../lease")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Every catalog mutant applies exactly once, and its printed form differs
// from the reference exactly at the fragment: the golden diff shows every
// changed line.
func TestCatalog_MatchesGoldenDiffs(t *testing.T) {
	p := loadLease(t)
	for _, m := range Catalog() {
		t.Run(m.ID, func(t *testing.T) {
			a, err := p.Apply(m)
			if err != nil {
				t.Fatalf("Apply(%s) error = %v", m.ID, err)
			}
			got := a.Diff("lease/" + filepath.Base(a.File))
			golden := filepath.Join("testdata", "golden", m.ID+".diff")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./mutants -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("diff of %s differs from %s (go test ./mutants -update rewrites it):\n%s", m.ID, golden, got)
			}
			if lines := strings.Count(string(a.Original), "\n"); a.Line < 1 || a.Line > lines {
				t.Errorf("Line = %d, want a line of the file (1 to %d)", a.Line, lines)
			}
		})
	}
}

func TestCatalog_IsOrderedByStepWithUniqueIDs(t *testing.T) {
	ms := Catalog()
	if len(ms) != 8 {
		t.Fatalf("Catalog() has %d mutants, want 8", len(ms))
	}
	seen := map[string]bool{}
	for i, m := range ms {
		if m.Step != i+1 {
			t.Errorf("mutant %d (%s) has step %d, want %d", i, m.ID, m.Step, i+1)
		}
		if seen[m.ID] {
			t.Errorf("duplicate id %s", m.ID)
		}
		seen[m.ID] = true
		if m.Title == "" || m.Contract == "" || m.Rationale == "" || m.Seed == "" {
			t.Errorf("mutant %s lacks title, contract, rationale or seed", m.ID)
		}
	}
}

func TestCatalog_LineIsTheFragment(t *testing.T) {
	p := loadLease(t)
	for _, m := range Catalog() {
		a, err := p.Apply(m)
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Split(string(a.Original), "\n")[a.Line-1]
		want := m.Find
		if m.Kind == Body || m.Kind == Stmt {
			want = strings.Split(m.Find, "\n")[0]
		}
		if !strings.Contains(line, want) {
			t.Errorf("%s: line %d is %q, want it to hold %q", m.ID, a.Line, line, want)
		}
	}
}

func TestApply_LeavesTheReferenceUntouched(t *testing.T) {
	p := loadLease(t)
	first := Catalog()[3]
	a1, err := p.Apply(first)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Catalog() {
		if _, err := p.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	a2, err := p.Apply(first)
	if err != nil {
		t.Fatal(err)
	}
	if string(a1.Mutated) != string(a2.Mutated) || a1.Line != a2.Line {
		t.Fatalf("applying other mutants changed the result of %s", first.ID)
	}
	onDisk, err := os.ReadFile(a1.File)
	if err != nil {
		t.Fatal(err)
	}
	if string(a1.Original) != string(onDisk) {
		t.Fatalf("Original of %s differs from the file on disk", first.ID)
	}
}

func calc(t *testing.T) *Package {
	t.Helper()
	p, err := Load("testdata/calc")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestApply_Kinds(t *testing.T) {
	tests := []struct {
		name string
		m    Mutant
		want string // a line the mutant must hold
	}{
		{"Expr", Mutant{Target: "Max", Kind: Expr, Find: "a > b", Replace: "a >= b"}, "\tif a >= b {"},
		{"ExprNeedsParens", Mutant{Target: "Scale", Kind: Expr, Find: "f", Replace: "f + 1"}, "\treturn x * (f + 1)"},
		{"Stmt", Mutant{Target: "Upper", Kind: Stmt, Find: "if s == \"\" {\n\treturn \"\"\n}", Replace: ""}, "func Upper(s string) string {\n\n\treturn strings.ToUpper(s)"},
		{"StmtInNestedBlock", Mutant{Target: "Max", Kind: Stmt, Find: "return a", Replace: "return b"}, "\t\treturn b\n"},
		{"Body", Mutant{Target: "Max", Kind: Body, Find: "if a > b {\n\treturn a\n}\nreturn b", Replace: "return a"}, "func Max(a, b int) int {\n\treturn a\n}"},
		{"String", Mutant{Target: "query", Kind: String, Find: "a>?", Replace: "a>=?"}, "`SELECT x FROM t WHERE a>=? AND b>?`"},
		{"BodyDropsUnusedImport", Mutant{Target: "Upper", Kind: Body, Find: "if s == \"\" {\n\treturn \"\"\n}\nreturn strings.ToUpper(s)", Replace: "return s"}, "package calc\n\nconst query"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			m.ID = "t"
			a, err := calc(t).Apply(&m)
			if err != nil {
				t.Fatalf("Apply() error = %v", err)
			}
			if !strings.Contains(string(a.Mutated), tc.want) {
				t.Fatalf("mutant lacks %q:\n%s", tc.want, a.Diff("calc.go"))
			}
		})
	}
}

func TestApply_DriftIsAnErrorNamingTheMutant(t *testing.T) {
	tests := []struct {
		name string
		m    Mutant
		want string
	}{
		{"ExprMissing", Mutant{ID: "gone", Target: "Max", Kind: Expr, Find: "a < b", Replace: "a <= b"},
			"mutant gone: expr `a < b` matches 0 times in Max, want exactly 1"},
		{"ExprTwice", Mutant{ID: "twice", Target: "Both", Kind: Expr, Find: "a > b", Replace: "a >= b"},
			"mutant twice: expr `a > b` matches 2 times in Both, want exactly 1"},
		{"StringMissing", Mutant{ID: "sql", Target: "query", Kind: String, Find: "c>?", Replace: "c>=?"},
			"mutant sql: string `c>?` matches 0 times in query, want exactly 1"},
		{"StringTwice", Mutant{ID: "sql2", Target: "query", Kind: String, Find: ">?", Replace: ">=?"},
			"mutant sql2: string `>?` matches 2 times in query, want exactly 1"},
		{"BodyChanged", Mutant{ID: "body", Target: "Max", Kind: Body, Find: "return b", Replace: "return a"},
			"mutant body: body `return b` matches 0 times in Max, want exactly 1"},
		{"OnlyInAnotherFunction", Mutant{ID: "elsewhere", Target: "Scale", Kind: Expr, Find: "a > b", Replace: "a >= b"},
			"mutant elsewhere: expr `a > b` matches 0 times in Scale, want exactly 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := calc(t).Apply(&tc.m)
			if !errors.Is(err, ErrDrift) {
				t.Fatalf("Apply() error = %v, want ErrDrift", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Apply() error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestApply_RejectsBadMutants(t *testing.T) {
	tests := []struct {
		name string
		m    Mutant
		want string
	}{
		{"UnknownTarget", Mutant{ID: "x", Target: "Maxx", Kind: Expr, Find: "a", Replace: "b"},
			`mutant x: package calc has no function, method or const "Maxx" (did you mean "Max"?)`},
		{"UnparsableFind", Mutant{ID: "x", Target: "Max", Kind: Expr, Find: "a >", Replace: "b"},
			"mutant x: find is not a Go expr: line 1:4: expected operand"},
		{"UnparsableReplace", Mutant{ID: "x", Target: "Max", Kind: Stmt, Find: "return b", Replace: "return b +"},
			"mutant x: replace is not a Go stmt: line 2:1: expected operand"},
		{"SameText", Mutant{ID: "x", Target: "Max", Kind: Expr, Find: "a > b", Replace: "a > b"},
			"mutant x: replace is the same as find"},
		{"SameTree", Mutant{ID: "x", Target: "Max", Kind: Expr, Find: "a > b", Replace: "a>b"},
			"mutant x: the rewrite leaves Max unchanged"},
		{"UnknownKind", Mutant{ID: "x", Target: "Max", Kind: "line", Find: "a", Replace: "b"},
			`mutant x: unknown kind "line"`},
		{"BadID", Mutant{ID: "Bad ID", Target: "Max", Kind: Expr, Find: "a", Replace: "b"},
			`mutant Bad ID: id "Bad ID": use lower-case letters, digits and '-'`},
		{"BodyOfConst", Mutant{ID: "x", Target: "query", Kind: Body, Find: "return", Replace: "return nil"},
			"mutant x: kind body needs a function or method, and query is not one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := calc(t).Apply(&tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Apply() error = %v, want it to contain %q", err, tc.want)
			}
			if errors.Is(err, ErrDrift) {
				t.Fatalf("Apply() error = %v is ErrDrift; the mutant is at fault, not the code", err)
			}
		})
	}
}
