package text

import "testing"

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"a\n\tb  c":               "a b c",
		"0123456789":              "0123456789",
		"0123456789ab":            "0123456...",
		"ééééééééééé":             "ééééééé...",
		"if a > b {\n\treturn\n}": "if a > ...",
	} {
		if got := OneLine(in, 10); got != want {
			t.Errorf("OneLine(%q, 10) = %q, want %q", in, got, want)
		}
	}
}

func TestPluralCountStepIndent(t *testing.T) {
	if got := Count(1, "mutant", "mutants") + ", " + Count(2, "mutant", "mutants"); got != "1 mutant, 2 mutants" {
		t.Errorf("Count = %q", got)
	}
	if got := Step(0) + Step(4); got != "-4" {
		t.Errorf("Step = %q", got)
	}
	if got := Indent("a\nb\n\n", "  "); got != "  a\n  b" {
		t.Errorf("Indent = %q", got)
	}
}

func TestWrap(t *testing.T) {
	got := Wrap("one two three\nfour five sixsixsixsix", 12, "  ")
	if want := "one two\n  three four\n  five\n  sixsixsixsix"; got != want {
		t.Fatalf("Wrap() = %q, want %q", got, want)
	}
}
