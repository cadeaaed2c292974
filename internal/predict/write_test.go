package predict

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
)

// hostileClass is a class of two files written to trick the outputs, a
// learner named as a formula whose answer holds HTML and an escape
// sequence, and a file whose name holds a newline and a forged row, with a
// learner that retitles the terminal; and an invalid file.
func hostileClass(t *testing.T) *Class {
	t.Helper()
	k := known
	k.Questions = []string{"earlier"}
	formula := loadString(t, k, "learner: \"=HYPERLINK(\\\"http://x\\\",\\\"ok\\\")\"\npredictions:\n  m1: {fails: [TestA]}\n"+
		"worksheet:\n  earlier: \"<img src=x onerror=alert(1)> [link](http://x) \\e[2J\"\n")
	forged := loadString(t, k, "learner: \"eve\\e]0;pwned\\a\"\npredictions:\n  m1: {fails: [TestA]}\n")
	forged.Path = "eve\nmallory  8/8  4/4  1.00  1.00.yaml"
	o := Outputs{Questions: []exercise.Question{{ID: "earlier", Question: "Why?"}}}
	return o.Class([]*File{formula, forged}, []Invalid{{File: "bob.yaml", Learner: "bob", Problems: []string{"bob.yaml:3:3: unknown mutant id \"m9\""}}}, gradedRun(), CreditExact)
}

// Names never break a line nor reach the terminal raw; the text carries
// every valid learner and the invalid file with its problems.
func TestClass_WriteText_EscapesNamesAndKeepsTheInvalid(t *testing.T) {
	var b bytes.Buffer
	if err := hostileClass(t).WriteText(&b, Style{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\a") {
		t.Errorf("text carries a raw escape:\n%q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "mallory") {
			t.Errorf("a file's name began a line of its own: %q", line)
		}
	}
	for _, want := range []string{
		"eve\\nmallory  8/8  4/4  1.00  1.00.yaml (eve\\x1b]0;pwned\\a): 1 of 3 answered",
		"      > <img src=x onerror=alert(1)> [link](http://x) \\x1b[2J\n",
		"bob.yaml (bob): invalid, 0 of 4 points: 1 problem\n    bob.yaml:3:3: unknown mutant id \"m9\"\n",
		"class: 3 learners, 1 with an invalid file\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^bob +invalid +0/4 `).MatchString(out) {
		t.Errorf("the class summary lacks bob's row:\n%s", out)
	}
}

// Markdown shows a learner's text as written, never as HTML, a link or an
// image, and carries the invalid file with its problems.
func TestClass_WriteMarkdown_EscapesHTMLAndKeepsTheInvalid(t *testing.T) {
	var b bytes.Buffer
	if err := hostileClass(t).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if regexp.MustCompile(`(^|[^\\])(<img|\[link\]|\]\(http)`).MatchString(out) || strings.ContainsAny(out, "\x1b\a") {
		t.Errorf("markdown carries markup of a learner's:\n%s", out)
	}
	for _, want := range []string{
		`  > \<img src=x onerror=alert(1)\> \[link\](http://x) \\x1b\[2J`,
		"| =HYPERLINK(\"http://x\",\"ok\") | 1/3 |",
		"| bob | invalid | 0/4 | – | – |",
		"## bob.yaml (bob): invalid, 0 of 4 points: 1 problem\n\n- bob.yaml:3:3: unknown mutant id \"m9\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

// JSON carries every file, the invalid one with its problems.
func TestClass_WriteJSON_KeepsTheInvalid(t *testing.T) {
	var b bytes.Buffer
	if err := hostileClass(t).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Files []struct {
			Learner string `json:"learner"`
		} `json:"files"`
		Invalid []Invalid `json:"invalid"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != 2 || got.Files[1].Learner != "eve\x1b]0;pwned\a" || len(got.Invalid) != 1 || got.Invalid[0].Problems[0] != `bob.yaml:3:3: unknown mutant id "m9"` {
		t.Errorf("JSON = %s, want both learners as written and bob's problem", b.String())
	}
}

// No cell of the CSV is a formula (OWASP's rule), the learner's included.
func TestClass_WriteCSV_NoFormula(t *testing.T) {
	var b bytes.Buffer
	if err := hostileClass(t).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[1][0] != `'=HYPERLINK("http://x","ok")` || rows[3][0] != "bob" || rows[3][2] != "invalid" {
		t.Errorf("CSV = %q, want the formula quoted and bob's row", rows)
	}
}
