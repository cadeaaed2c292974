package text

import (
	"strings"
	"testing"
)

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

// A name never moves the cursor nor breaks a line; prose keeps its lines;
// a printable name is left as it is.
func TestName_EscapesWhatIsNotPrintable(t *testing.T) {
	for _, c := range []struct{ in, name, prose string }{
		{"ann.yaml", "ann.yaml", "ann.yaml"},
		{"Zoë «ü» \"x\" \\", "Zoë «ü» \"x\" \\", "Zoë «ü» \"x\" \\"},
		{"a\x1b]0;title\x07b", `a\x1b]0;title\ab`, `a\x1b]0;title\ab`},
		{"\x1b[2Jx", `\x1b[2Jx`, `\x1b[2Jx`},
		{"ann\nbob  invalid  0/8", `ann\nbob  invalid  0/8`, "ann\nbob  invalid  0/8"},
		{"tab\there\r", `tab\there\r`, "tab\there\\r"},
		{"evil\u202etxt.yaml", `evil\u202etxt.yaml`, `evil\u202etxt.yaml`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
	} {
		if got := Name(c.in); got != c.name {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.name)
		}
		if got := Prose(c.in); got != c.prose {
			t.Errorf("Prose(%q) = %q, want %q", c.in, got, c.prose)
		}
	}
}

// A quoted token is cut at quoteMax characters and escaped: an error
// never carries a whole line of a file, nor an escape sequence.
func TestQuote_CutsAndEscapes(t *testing.T) {
	long := strings.Repeat("a", quoteMax) + "$6$salt$hash"
	for in, want := range map[string]string{
		"claim-boundry": `"claim-boundry"`,
		long:            `"` + strings.Repeat("a", quoteMax) + `…"`,
		"x\x1b[2J\n":    `"x\x1b[2J\n"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
