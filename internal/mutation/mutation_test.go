package mutation

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

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
		{"ExprSecondOccurrence", Mutant{Target: "Clamp", Kind: Expr, Find: "x < lo", Replace: "x <= lo", Occurrence: 2}, "\tif x > hi || (x <= lo) {"},
		{"ExprOnLine", Mutant{Target: "Clamp", Kind: Expr, Find: "x < lo", Replace: "x <= lo", Line: 38}, "\tif x <= lo {"},
		{"StringSecondOccurrenceInOneLiteral", Mutant{Target: "query", Kind: String, Find: ">?", Replace: ">=?", Occurrence: 2}, "`SELECT x FROM t WHERE a>? AND b>=?`"},
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

// A fragment that matches zero or several times is an error naming the
// mutant, never a silent result; the message says where the matches are
// and how to pick one.
func TestApply_DriftIsAnErrorNamingTheMutant(t *testing.T) {
	tests := []struct {
		name string
		m    Mutant
		want string
	}{
		{"ExprMissing", Mutant{ID: "gone", Target: "Max", Kind: Expr, Find: "a < b", Replace: "a <= b"},
			"mutant gone: expr `a < b` matches 0 times in Max, want exactly 1: no such fragment there"},
		{"ExprTwice", Mutant{ID: "twice", Target: "Both", Kind: Expr, Find: "a > b", Replace: "a >= b"},
			"mutant twice: expr `a > b` matches 2 times in Both (on lines 20, 20), want exactly 1: make find longer, or pick one with occurrence: N or line: N"},
		{"StringMissing", Mutant{ID: "sql", Target: "query", Kind: String, Find: "c>?", Replace: "c>=?"},
			"mutant sql: string `c>?` matches 0 times in query, want exactly 1"},
		{"StringTwice", Mutant{ID: "sql2", Target: "query", Kind: String, Find: ">?", Replace: ">=?"},
			"mutant sql2: string `>?` matches 2 times in query (on lines 8, 8), want exactly 1"},
		{"BodyChanged", Mutant{ID: "body", Target: "Max", Kind: Body, Find: "return b", Replace: "return a"},
			"mutant body: body `return b` matches 0 times in Max, want exactly 1"},
		{"OnlyInAnotherFunction", Mutant{ID: "elsewhere", Target: "Scale", Kind: Expr, Find: "a > b", Replace: "a >= b"},
			"mutant elsewhere: expr `a > b` matches 0 times in Scale"},
		{"OccurrenceBeyondTheMatches", Mutant{ID: "third", Target: "Clamp", Kind: Expr, Find: "x < lo", Replace: "x <= lo", Occurrence: 3},
			"mutant third: expr `x < lo` matches 2 times in Clamp (on lines 38, 41), and occurrence 3, line 0 picks none of them"},
		{"LineWithoutAMatch", Mutant{ID: "line", Target: "Clamp", Kind: Expr, Find: "x < lo", Replace: "x <= lo", Line: 40},
			"mutant line: expr `x < lo` matches 2 times in Clamp (on lines 38, 41), and occurrence 0, line 40 picks none of them"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := calc(t).Apply(&tc.m)
			if !errors.Is(err, errDrift) {
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
			`mutant x: package calc has no function, method, const or var "Maxx" (did you mean "Max"?)`},
		{"UnparsableFind", Mutant{ID: "x", Target: "Max", Kind: Expr, Find: "a >", Replace: "b"},
			"mutant x: find is not a Go expr: line 1:4: expected operand"},
		{"UnparsableReplace", Mutant{ID: "x", Target: "Max", Kind: Stmt, Find: "return b", Replace: "return b +"},
			"mutant x: replace is not a Go stmt: line 2:1: expected operand"},
		{"SameText", Mutant{ID: "x", Target: "Max", Kind: Expr, Find: "a > b", Replace: "a > b"},
			"mutant x: replace is the same as find"},
		{"SameTree", Mutant{ID: "x", Target: "Max", Kind: Expr, Find: "a > b", Replace: "a>b"},
			"mutant x: the rewrite leaves Max unchanged"},
		{"UnknownKind", Mutant{ID: "x", Target: "Max", Kind: "line", Find: "a", Replace: "b"},
			`mutant x: unknown kind "line": want one of body, expr, stmt, string`},
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
			if errors.Is(err, errDrift) {
				t.Fatalf("Apply() error = %v is ErrDrift; the mutant is at fault, not the code", err)
			}
		})
	}
}

func TestApply_LeavesTheReferenceUntouched(t *testing.T) {
	p := calc(t)
	first := &Mutant{ID: "a", Target: "Max", Kind: Expr, Find: "a > b", Replace: "a >= b"}
	a1, err := p.Apply(first)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Mutant{
		{ID: "b", Target: "Max", Kind: Body, Find: "if a > b {\n\treturn a\n}\nreturn b", Replace: "return a"},
		{ID: "c", Target: "query", Kind: String, Find: "a>?", Replace: "a>=?"},
	} {
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
		// Two occurrences of one fragment, each a switch of its own.
		{ID: "clamp-1", Target: "Clamp", Kind: Expr, Find: "x < lo", Replace: "x <= lo", Occurrence: 1},
		{ID: "clamp-2", Target: "Clamp", Kind: Expr, Find: "x < lo", Replace: "x <= lo", Occurrence: 2},
	}
	sw, err := p.Switch(ms, map[string]string{"skipped": "told to"}, map[string]bool{"skipped": true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sw.Included, []string{"body-1", "stmt-in-body", "cond", "arith", "clamp-1", "clamp-2"}; !slices.Equal(got, want) {
		t.Errorf("Included = %v, want %v", got, want)
	}
	// Those excluded are marked at the top of their function, for
	// coverage, but the one that noMark names.
	if got, want := sw.Reached, []string{"body-2", "call"}; !slices.Equal(got, want) {
		t.Errorf("Reached = %v, want %v", got, want)
	}
	for id, want := range map[string]string{
		"body-2":  "its site overlaps the site of another mutant of Max, which the switched build holds",
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
		`if mutateOn("clamp-1") && (x <= lo) || !mutateOn("clamp-1") && (x < lo) {`,
		`if x > hi || (mutateOn("clamp-2") && (x <= lo) || !mutateOn("clamp-2") && (x < lo)) {`,
		"func Upper(s string) string {\n\tmutateOn(\"call\")\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("switched calc.go lacks %q:\n%s", want, src)
		}
	}
}

func TestSwitch_ConstBecomesVar(t *testing.T) {
	p := calc(t)
	sw, err := p.Switch([]*Mutant{{ID: "q", Target: "query", Kind: String, Find: "a>?", Replace: "a>=?"}}, nil, nil)
	if err != nil || len(sw.Included) != 1 {
		t.Fatalf("Switch() = %+v, %v", sw, err)
	}
	src := string(sw.Files[filepath.Join(p.Dir, "calc.go")])
	want := "var query = mutatePick(mutateOn(\"q\"), `SELECT x FROM t WHERE a>=? AND b>?`, `SELECT x FROM t WHERE a>? AND b>?`)"
	if !strings.Contains(src, want) {
		t.Fatalf("switched calc.go lacks %q:\n%s", want, src)
	}
}

// An applied mutant knows where the rewritten node is, and its
// replacement.
func TestApply_LocationAndReplacement(t *testing.T) {
	a, err := calc(t).Apply(&Mutant{ID: "t", Target: "Max", Kind: Expr, Find: "a > b", Replace: "a >= b"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Start != (Position{12, 5}) || a.End != (Position{12, 10}) || a.Replacement != "a >= b" {
		t.Fatalf("Start, End, Replacement = %v, %v, %q; want {12 5}, {12 10}, a >= b", a.Start, a.End, a.Replacement)
	}
}

// Arithmetic with a call in it, or a division, is not free of side
// effects (the call would run twice, the division could panic when
// inactive): a helper evaluates the operands once and applies the
// operator of the side that is on; dropping a minus likewise.
func TestSwitch_ArithmeticEvaluatesItsOperandsOnce(t *testing.T) {
	p := calc(t)
	ms := []*Mutant{{ID: "div", Target: "Scale", Kind: Expr, Find: "x * f", Replace: "x / f", Operator: OpArithmetic}}
	sw, err := p.Switch(ms, nil, nil)
	if err != nil || len(sw.Included) != 1 {
		t.Fatalf("Switch() = %+v, %v", sw, err)
	}
	src := string(sw.Files[filepath.Join(p.Dir, "calc.go")])
	if want := `return mutateArith(mutateOn("div"), x, f, '/', '*')`; !strings.Contains(src, want) {
		t.Fatalf("switched calc.go lacks %q:\n%s", want, src)
	}
	helper := string(sw.Files[filepath.Join(p.Dir, HelperFile)])
	for _, want := range []string{"func mutateArith[T mutateNumber](on bool, x, y T, mutant, original rune) T {", "case '%':\n\t\treturn x % y", "func mutateNeg[T mutateNumber](on bool, x T) T {"} {
		if !strings.Contains(helper, want) {
			t.Errorf("the helper lacks %q", want)
		}
	}
}

// A method of a generic type is named by its type without its parameters
// (Stack.Pop, as go doc names it), in every engine: apply, switch and
// generate.
func TestGenericMethods_ApplySwitchAndGenerate(t *testing.T) {
	p := calc(t)
	ms := []*Mutant{
		{ID: "pop-empty", Target: "Stack.Pop", Kind: Expr, Find: "len(s.items) == 0", Replace: "len(s.items) <= 1"},
		{ID: "key-zero", Target: "Pair.Key", Kind: Stmt, Find: "return p.key", Replace: "var zero K\nreturn zero"},
	}
	for _, m := range ms {
		if _, err := p.Apply(m); err != nil {
			t.Fatalf("Apply(%s) error = %v", m.ID, err)
		}
	}
	sw, err := p.Switch(ms, nil, nil)
	if err != nil || !slices.Equal(sw.Included, []string{"pop-empty", "key-zero"}) {
		t.Fatalf("Switch() = %v, %v; want both included", sw.Included, err)
	}
	src := string(sw.Files[filepath.Join(p.Dir, "calc.go")])
	for _, want := range []string{
		`if mutateOn("pop-empty") && (len(s.items) <= 1) || !mutateOn("pop-empty") && (len(s.items) == 0) {`,
		"if mutateOn(\"key-zero\") {\n\t\tvar zero K\n\t\treturn zero\n\t} else {\n\t\treturn p.key\n\t}",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("switched calc.go lacks %q:\n%s", want, src)
		}
	}
	var got []string
	for _, m := range p.Generate() {
		if m.Target == "Stack.Pop" || m.Target == "Pair.Key" {
			got = append(got, m.ID)
		}
	}
	if !slices.Contains(got, "stack-pop-negation-1") || !slices.Contains(got, "pair-key-zero-return-1") {
		t.Errorf("generated ids of the generic methods = %v, want stack-pop-negation-1 and pair-key-zero-return-1 among them", got)
	}
}
