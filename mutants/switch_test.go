package mutants

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func experiments(t *testing.T) []*Mutant {
	t.Helper()
	ms, err := LoadFile("experiments.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// Every catalog mutant and every experiment switches into one version of
// lease.go; the golden file shows it whole.
func TestSwitch_CatalogAndExperimentsGolden(t *testing.T) {
	p := loadLease(t)
	ms := append(Catalog(), experiments(t)...)
	sw, err := p.Switch(ms, nil)
	if err != nil {
		t.Fatalf("Switch() error = %v", err)
	}
	if len(sw.Excluded) != 0 {
		t.Fatalf("Switch() excluded %v, want every mutant switched", sw.Excluded)
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	if !slices.Equal(sw.Included, ids) {
		t.Fatalf("Included = %v, want %v in that order", sw.Included, ids)
	}
	got := sw.Files[filepath.Join(p.Dir, "lease.go")]
	golden := filepath.Join("testdata", "golden", "switched-lease.go.txt")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("switched lease.go differs from %s (go test ./mutants -update rewrites it)", golden)
	}
	helper := string(sw.Files[filepath.Join(p.Dir, HelperFile)])
	if !strings.Contains(helper, "package lease\n") || !strings.Contains(helper, `os.Getenv("MUTATE_ACTIVE")`) {
		t.Errorf("helper file:\n%s", helper)
	}
	// Each switch is blamed for its own lines only.
	lines := strings.Split(string(got), "\n")
	for i, l := range lines {
		if strings.Contains(l, `mutateOn("claim-boundary")`) {
			if blamed := sw.Blame("lease.go", i+1); !slices.Equal(blamed, []string{"claim-boundary"}) {
				t.Errorf("Blame(lease.go:%d) = %v, want [claim-boundary]", i+1, blamed)
			}
		}
	}
	if blamed := sw.Blame("lease.go", 1); len(blamed) != 0 {
		t.Errorf("Blame(lease.go:1) = %v, want none", blamed)
	}
}

func TestSwitch_Excludes(t *testing.T) {
	p := calc(t)
	ms := []*Mutant{
		{ID: "body-1", Target: "Max", Kind: Body, Find: "if a > b {\n\treturn a\n}\nreturn b", Replace: "return a"},
		// The body is switched first, so this still finds its statement in
		// the reference side of the switch.
		{ID: "stmt-in-body", Target: "Max", Kind: Stmt, Find: "return b", Replace: "return a"},
		// A second body mutant of Max no longer finds the whole body.
		{ID: "body-2", Target: "Max", Kind: Body, Find: "if a > b {\n\treturn a\n}\nreturn b", Replace: "return b"},
		// A call may have side effects: it must not run when inactive.
		{ID: "call", Target: "Upper", Kind: Expr, Find: "strings.ToUpper(s)", Replace: "strings.ToLower(s)"},
		// A condition switches lazily; arithmetic of names switches eagerly.
		{ID: "cond", Target: "Upper", Kind: Expr, Find: `s == ""`, Replace: `s != ""`},
		{ID: "arith", Target: "Scale", Kind: Expr, Find: "x * f", Replace: "x + f"},
		{ID: "skipped", Target: "Scale", Kind: Expr, Find: "x * f", Replace: "x - f"},
	}
	sw, err := p.Switch(ms, map[string]string{"skipped": "told to"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sw.Included, []string{"body-1", "stmt-in-body", "cond", "arith"}; !slices.Equal(got, want) {
		t.Errorf("Included = %v, want %v", got, want)
	}
	for id, want := range map[string]string{
		"body-2":  "its fragment is not found once outside the other switches",
		"call":    "its expression is neither a condition nor free of side effects",
		"skipped": "told to",
	} {
		if !strings.HasPrefix(sw.Excluded[id], want) {
			t.Errorf("Excluded[%s] = %q, want %q", id, sw.Excluded[id], want)
		}
	}
	src := string(sw.Files[filepath.Join(p.Dir, "calc.go")])
	for _, want := range []string{
		"if mutateOn(\"body-1\") {\n\t\treturn a\n\t} else {",
		"if mutateOn(\"stmt-in-body\") {\n\t\t\treturn a\n\t\t} else {\n\t\t\treturn b\n\t\t}",
		`if mutateOn("cond") && (s != "") || !mutateOn("cond") && (s == "") {`,
		`return mutatePick(mutateOn("arith"), x+f, x*f)`,
		"const query = `SELECT x FROM t WHERE a>? AND b>?`",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("switched calc.go lacks %q:\n%s", want, src)
		}
	}
}

func TestSwitch_ConstBecomesVar(t *testing.T) {
	p := calc(t)
	sw, err := p.Switch([]*Mutant{{ID: "q", Target: "query", Kind: String, Find: "a>?", Replace: "a>=?"}}, nil)
	if err != nil || len(sw.Included) != 1 {
		t.Fatalf("Switch() = %+v, %v", sw, err)
	}
	src := string(sw.Files[filepath.Join(p.Dir, "calc.go")])
	want := "var query = mutatePick(mutateOn(\"q\"), `SELECT x FROM t WHERE a>=? AND b>?`, `SELECT x FROM t WHERE a>? AND b>?`)"
	if !strings.Contains(src, want) {
		t.Fatalf("switched calc.go lacks %q:\n%s", want, src)
	}
}
