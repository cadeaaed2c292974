package mutation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gen loads the fixture of generation, from dir when given.
func gen(t *testing.T, dir string) *Package {
	t.Helper()
	if dir == "" {
		dir = "testdata/gen"
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type generated struct {
	id         string
	kind       Kind
	find       string
	replace    string
	occurrence int
}

func summary(ms []*Mutant) []generated {
	var out []generated
	for _, m := range ms {
		out = append(out, generated{m.ID, m.Kind, m.Find, m.Replace, m.Occurrence})
	}
	return out
}

// Every operator makes its mutants where it applies, in source order, with
// ids of target, operator and ordinal; what must stay (a constant, an
// array's length, a concatenation, a line or function marked
// //mutate:ignore, a generated file, an empty body) is left alone. Every
// generated mutant applies.
func TestGenerate_Fixture(t *testing.T) {
	p := gen(t, "")
	got := summary(p.Generate())
	want := []generated{
		{"sum-zero-return-1", "body", "total := 0\nfor i := 0; i < len(xs); i++ {\n\tif xs[i] > 0 && xs[i] != 7 {\n\t\ttotal += xs[i]\n\t}\n}\nreturn -total", "return 0", 0},
		{"sum-incdec-1", "stmt", "for i := 0; i < len(xs); i++ {\n\tif xs[i] > 0 && xs[i] != 7 {\n\t\ttotal += xs[i]\n\t}\n}", "for i := 0; i < len(xs); i-- {\n\tif xs[i] > 0 && xs[i] != 7 {\n\t\ttotal += xs[i]\n\t}\n}", 0},
		{"sum-boundary-1", "expr", "i < len(xs)", "i <= len(xs)", 0},
		{"sum-negation-1", "expr", "i < len(xs)", "i >= len(xs)", 0},
		{"sum-logical-1", "expr", "xs[i] > 0 && xs[i] != 7", "xs[i] > 0 || xs[i] != 7", 0},
		{"sum-boundary-2", "expr", "xs[i] > 0", "xs[i] >= 0", 0},
		{"sum-negation-2", "expr", "xs[i] > 0", "xs[i] <= 0", 0},
		{"sum-negation-3", "expr", "xs[i] != 7", "xs[i] == 7", 0},
		{"sum-remove-assign-1", "stmt", "total += xs[i]", "", 0},
		{"sum-negative-1", "expr", "-total", "total", 0},
		{"greet-zero-return-1", "body", "return \"hello, \" + name", "return \"\"", 0},
		{"store-put-zero-return-1", "body", "if _, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO jobs(id) VALUES(?)`, id); err != nil {\n\treturn err\n}\nrows, err := s.db.QueryContext(ctx, byOwner, owner, 1, 2)\nif err != nil {\n\treturn err\n}\ndefer rows.Close()\nreturn nil", "return nil", 0},
		{"store-put-sql-conflict-1", "string", "OR IGNORE", "OR REPLACE", 0},
		{"store-put-negation-1", "expr", "err != nil", "err == nil", 1},
		{"store-put-negation-2", "expr", "err != nil", "err == nil", 2},
		{"store-put-remove-call-1", "stmt", "defer rows.Close()", "", 0},
		{"partly-zero-return-1", "body", "if a == b {\n\treturn true\n}\nreturn a < b", "return false", 0},
		{"partly-boundary-1", "expr", "a < b", "a <= b", 0},
		{"partly-negation-1", "expr", "a < b", "a >= b", 0},
		{"size-zero-return-1", "body", "const n = 2 + 3\nvar a [n * 2]int\nreturn len(a)", "return 0", 0},
		{"size-arithmetic-1", "expr", "2 + 3", "2 - 3", 0},
		{"limit-arithmetic-1", "expr", `len("ab")*0 + 8*5 - -1`, `len("ab")*0 + 8*5 + -1`, 0},
		{"limit-arithmetic-2", "expr", `len("ab")*0 + 8*5`, `len("ab")*0 - 8*5`, 0},
		{"limit-arithmetic-3", "expr", `len("ab") * 0`, `len("ab") / 0`, 0},
		{"limit-arithmetic-4", "expr", "8 * 5", "8 / 5", 0},
		{"limit-negative-1", "expr", "-1", "1", 0},
		{"by-owner-sql-negation-1", "string", "owner=?", "owner!=?", 0},
		{"by-owner-sql-where-1", "string", "WHERE owner=? AND until BETWEEN ? AND ?", "WHERE until BETWEEN ? AND ?", 0},
		{"by-owner-sql-where-2", "string", "WHERE owner=? AND until BETWEEN ? AND ?", "WHERE owner=?", 0},
	}
	if len(got) != len(want) {
		t.Errorf("Generate() made %d mutants, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("mutant %d = %#v\nwant        %#v", i, got[i], want[i])
		}
	}
	for _, m := range p.Generate() {
		if _, err := p.Apply(m); err != nil {
			t.Errorf("Apply(%s) error = %v", m.ID, err)
		}
		if err := m.Check(); err != nil {
			t.Errorf("Check(%s) error = %v", m.ID, err)
		}
	}
}

// Titles say what changes, briefly.
func TestGenerate_Titles(t *testing.T) {
	titles := map[string]string{}
	for _, m := range gen(t, "").Generate() {
		titles[m.ID] = m.Title
	}
	for id, want := range map[string]string{
		"sum-boundary-1":           "boundary: `i < len(xs)` becomes `i <= len(xs)`",
		"sum-incdec-1":             "incdec: `i++` becomes `i--` in the loop on line 15",
		"store-put-remove-call-1":  "remove-call: `defer rows.Close()` deleted",
		"greet-zero-return-1":      "zero-return: the body of Greet becomes `return \"\"`",
		"store-put-sql-conflict-1": "sql-conflict: `OR IGNORE` becomes `OR REPLACE`",
	} {
		if titles[id] != want {
			t.Errorf("title of %s = %q, want %q", id, titles[id], want)
		}
	}
}

// The ids, fragments and occurrences of a function's mutants depend on
// that function alone: run again they are the same, and edits elsewhere
// (a new function before it, a new comparison in another) change none of
// them.
func TestGenerate_StableIDs(t *testing.T) {
	before := summary(gen(t, "").Generate())
	if again := summary(gen(t, "").Generate()); len(again) != len(before) {
		t.Fatalf("a second Generate made %d mutants, the first %d", len(again), len(before))
	}

	dir := t.TempDir()
	src, err := os.ReadFile("testdata/gen/gen.go")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "// Sum adds", "func New(a, b int) bool { return a < b && a != 0 }\n\n// Sum adds", 1)
	edited = strings.Replace(edited, `return "hello, " + name`, `if name == "" { name = "you" }; return "hello, " + name`, 1)
	if edited == string(src) {
		t.Fatal("the edit did not apply")
	}
	if err := os.WriteFile(filepath.Join(dir, "gen.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	after := map[string]generated{}
	for _, g := range summary(gen(t, dir).Generate()) {
		after[g.id] = g
	}
	for _, g := range before {
		if strings.HasPrefix(g.id, "greet-") {
			continue // the edited function
		}
		if after[g.id] != g {
			t.Errorf("after edits elsewhere, %s = %#v, want %#v", g.id, after[g.id], g)
		}
	}
	if _, ok := after["new-logical-1"]; !ok {
		t.Error("the new function has no mutants")
	}
}

// In SQL, "=" is negated only in a condition (SET assigns), strings and
// comments are not SQL, and a WHERE clause ends where its statement's
// next clause starts.
func TestGenerate_SQL(t *testing.T) {
	dir := t.TempDir()
	src := "package q\n\nfunc Q(db interface{ Exec(string, ...any) (any, error) }) {\n" +
		"\tdb.Exec(`UPDATE t SET a=? WHERE b=? AND c<>'x=y AND z' -- AND d=1\n ORDER BY e`)\n" +
		"\tdb.Exec(\"SELECT a FROM t WHERE until<=? OR until>0\")\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "q.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range gen(t, dir).Generate() {
		if m.Kind == String {
			got = append(got, m.ID+": "+m.Find+" => "+m.Replace)
		}
	}
	want := []string{
		"q-sql-negation-1: b=? => b!=?",
		"q-sql-negation-2: c<>'x=y AND z' => c='x=y AND z'",
		"q-sql-where-1: WHERE b=? AND c<>'x=y AND z' => WHERE c<>'x=y AND z'",
		"q-sql-where-2: WHERE b=? AND c<>'x=y AND z' => WHERE b=?",
		"q-sql-boundary-1: until<=? => until<?",
		"q-sql-boundary-2: until>0 => until>=0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("SQL mutants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Go lets a package declare init (and _) more than once, in one file or
// several: each is a target of its own, named by its file, and its
// mutants apply to it and no other.
func TestGenerate_EveryInitIsATargetOfItsOwn(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go": "package p\n\nvar A, B int\n\nfunc init() {\n\tA = 1\n}\n\nfunc init() {\n\tA += 2\n}\n",
		"b.go": "package p\n\nfunc init() {\n\tB = 2\n}\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := gen(t, dir)
	var got []string
	for _, m := range p.Generate() {
		a, err := p.Apply(m)
		if err != nil {
			t.Fatalf("Apply(%s) error = %v", m.ID, err)
		}
		if strings.Contains(string(a.Mutated), m.Find) {
			t.Errorf("%s: the mutant of %s still holds %q", m.ID, filepath.Base(a.File), m.Find)
		}
		got = append(got, fmt.Sprintf("%s %s %s:%d %s", m.ID, m.Target, filepath.Base(a.File), a.Line, m.Find))
	}
	want := []string{
		"init-a-go-remove-assign-1 init@a.go a.go:6 A = 1",
		"init-a-go-2-remove-assign-1 init@a.go#2 a.go:10 A += 2",
		"init-b-go-remove-assign-1 init@b.go b.go:4 B = 2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Generate() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	targets := strings.Join(p.Targets(), " ")
	if targets != "A B init@a.go init@a.go#2 init@b.go" {
		t.Errorf("Targets() = %s", targets)
	}
	// The bare name is ambiguous here, and says which names to use.
	_, err := p.Apply(&Mutant{ID: "x", Target: "init", Kind: Stmt, Find: "B = 2"})
	if err == nil || !strings.Contains(err.Error(), "declares init 3 times: name one of them, init@a.go, init@a.go#2, init@b.go") {
		t.Errorf("Apply(target init) error = %v, want one naming the three", err)
	}
}
