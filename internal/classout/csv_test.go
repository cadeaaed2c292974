package classout

import (
	"encoding/csv"
	"strings"
	"testing"
)

// Every cell that a spreadsheet would evaluate is read back as text after
// a quote; the others, and the quoting of the CSV itself, are unchanged.
func TestCSVWriter_NoCellIsAFormula(t *testing.T) {
	in := []string{"=HYPERLINK(\"http://x\",\"ok\")", "+1", "-2", "@SUM(A1)", "\tx", "\ry", "ann", "", "3", "a=b", "'quoted", "two\nlines, \"q\""}
	want := []string{"'=HYPERLINK(\"http://x\",\"ok\")", "'+1", "'-2", "'@SUM(A1)", "'\tx", "'\ry", "ann", "", "3", "a=b", "'quoted", "two\nlines, \"q\""}
	var b strings.Builder
	w := NewCSVWriter(&b)
	if err := w.Write(in); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatalf("the CSV written does not read back: %v\n%s", err, b.String())
	}
	if len(got) != 1 || strings.Join(got[0], "|") != strings.Join(want, "|") {
		t.Errorf("read back %q, want %q", got, want)
	}
}
