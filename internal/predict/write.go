package predict

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fencelab/fencelab/internal/text"
)

// maxMessageLines bounds a missed test's message in text output; -json
// has it whole.
const maxMessageLines = 8

// Style is how WriteText marks its output.
type Style struct {
	Color bool // ANSI colours, for a terminal
}

func (st Style) paint(code, s string) string {
	if !st.Color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (st Style) good(s string) string { return st.paint("32", s) }
func (st Style) bad(s string) string  { return st.paint("31", s) }
func (st Style) dim(s string) string  { return st.paint("2", s) }
func (st Style) bold(s string) string { return st.paint("1", s) }

// WriteText writes every file's comparison, the model answer's last,
// then a class summary when there are several files.
func (c *Class) WriteText(w io.Writer, st Style) error {
	var b strings.Builder
	for i, s := range c.all() {
		if i > 0 {
			b.WriteString("\n")
		}
		if s.Model && !c.showAnswers {
			// Its grade, not its contents: the answers of the exercise.
			fmt.Fprintf(&b, "%s\n    (its predictions, the answers: check -answers shows them)\n", st.bold(s.heading()))
			continue
		}
		s.writeText(&b, st)
	}
	for i, inv := range c.Invalid {
		if i > 0 || len(c.all()) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n", st.bold(inv.heading()))
		for _, p := range inv.Problems {
			fmt.Fprintf(&b, "    %s\n", text.Prose(p))
		}
	}
	files := c.Learners()
	if c.Model != nil {
		files++
	}
	if files > 1 {
		c.writeSummary(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// heading is a score's first line: the file, the learner, and the
// figures.
func (s *Score) heading() string {
	name, learner := text.Name(s.File), text.Name(s.Learner)
	switch {
	case s.Model && learner != "":
		name += " (" + learner + ", the model answer)"
	case s.Model:
		name += " (the model answer)"
	case learner != "":
		name += " (" + learner + ")"
	}
	exact := fmt.Sprintf("%d of %d exact", s.Exact, s.Total)
	if s.Answered < s.Total && len(s.Problems) == 0 {
		exact = fmt.Sprintf("%d of %d answered, %d of %d exact", s.Answered, s.Total, s.Exact, s.Answered)
	}
	return fmt.Sprintf("%s: %s, %s of %s, precision %s, recall %s",
		name, exact, points(s.Points), text.Count(s.MaxPoints, "point", "points"), s.Precision, s.Recall)
}

// heading is an invalid file's first line: the file, the learner as far
// as it could be read, and the points it does not earn.
func (inv Invalid) heading() string {
	name := text.Name(inv.File)
	if inv.Learner != "" {
		name += " (" + text.Name(inv.Learner) + ")"
	}
	return fmt.Sprintf("%s: invalid, 0 of %s: %s", name, text.Count(inv.MaxPoints, "point", "points"),
		text.Count(len(inv.Problems), "problem", "problems"))
}

func (s *Score) writeText(b *strings.Builder, st Style) {
	fmt.Fprintf(b, "%s\n", st.bold(s.heading()))
	for _, o := range s.Matches {
		b.WriteString("\n")
		o.writeText(b, st, s.Credit, s.ShowAnswers)
	}
	if n := s.Total - s.Answered; n > 0 && len(s.Problems) == 0 && !s.ShowAnswers {
		fmt.Fprintf(b, "\n%s not answered: fill in fails (and why) in %s; check -answers shows what failed\n", text.Count(n, "mutant", "mutants"), text.Name(s.File))
	}
	if len(s.Worksheet) > 0 {
		b.WriteString("\n")
		s.writeWorksheet(b)
	}
}

// writeWorksheet writes the file's answers to the closing questions, each
// under its question.
func (s *Score) writeWorksheet(b *strings.Builder) {
	fmt.Fprintf(b, "worksheet: %d of %d answered (not graded: your instructor reads it)\n", s.WorksheetAnswered(), len(s.Worksheet))
	for _, a := range s.Worksheet {
		fmt.Fprintf(b, "  %s:\n    %s\n", a.ID, text.Wrap(a.Question, 74, "    "))
		answer := a.Answer
		if answer == "" {
			answer = "(not answered)"
		}
		fmt.Fprintf(b, "%s\n", text.Indent(text.Prose(answer), "      > "))
	}
}

// writeText writes what one prediction got right, missed and wrong; of a
// mutant not answered, that it was not, and what failed under it only
// with answers.
func (o *Match) writeText(b *strings.Builder, st Style, credit Credit, answers bool) {
	head := fmt.Sprintf("%s (%s%s)", o.Mutant, text.StepPrefix(o.Step), o.Status)
	switch {
	case o.NotPredicted && !answers:
		head = o.Mutant
		if o.Step > 0 {
			head += fmt.Sprintf(" (step %d)", o.Step)
		}
		fmt.Fprintf(b, "%s %s: %s\n", st.dim("-"), head, st.dim("not answered"))
		return
	case o.NotPredicted:
		fmt.Fprintf(b, "%s %s: %s\n", st.dim("-"), head, st.dim("not answered"))
		fmt.Fprintf(b, "    failed:    %s\n", list(o.Failed, "none: it survived"))
		return
	case o.Exact:
		fmt.Fprintf(b, "%s %s: %s\n", st.good("✓"), head, st.good("exact"))
	default:
		fmt.Fprintf(b, "%s %s: %s\n", st.bad("✗"), head, st.bad("differs"))
	}
	fmt.Fprintf(b, "    predicted: %s\n", list(o.Predicted, "none: it survives"))
	fmt.Fprintf(b, "    failed:    %s\n", list(o.Failed, "none: it survived"))
	if o.Answer != "" {
		fmt.Fprintf(b, "    answer:    %s\n", strings.ReplaceAll(text.Prose(o.Answer), "\n", "\n               "))
	}
	if o.Exact {
		return
	}
	if len(o.Right) > 0 {
		fmt.Fprintf(b, "    right:     %s\n", strings.Join(o.Right, ", "))
	}
	for _, name := range o.Wrong {
		fmt.Fprintf(b, "    wrong:     %s %s\n", name, st.dim("(predicted, but it passed)"))
	}
	for _, m := range o.Missed {
		if m.Message == "" {
			fmt.Fprintf(b, "    missed:    %s\n", m.Test)
			continue
		}
		fmt.Fprintf(b, "    missed:    %s %s\n", m.Test, st.dim("(it failed with:)"))
		fmt.Fprintf(b, "%s\n", text.Indent(truncate(text.Prose(m.Message), maxMessageLines), "                 "))
	}
	if credit == CreditPartial {
		fmt.Fprintf(b, "    credit:    %s of %s (F1 %.2f)\n", points(o.Points), text.Count(o.MaxPoints, "point", "points"), o.F1)
	}
}

// points writes a number of points with at most two decimals: 2, 0.67.
func points(p float64) string {
	return strconv.FormatFloat(math.Round(p*100)/100, 'f', -1, 64)
}

func (c *Class) writeSummary(b *strings.Builder) {
	fmt.Fprintf(b, "\nclass: %s", text.Count(c.Learners(), "learner", "learners"))
	if len(c.Invalid) > 0 {
		fmt.Fprintf(b, ", %d with an invalid file", len(c.Invalid))
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEARNER\tEXACT\tPOINTS\tPRECISION\tRECALL")
	for _, s := range c.Scores {
		fmt.Fprintf(tw, "%s\t%d/%d\t%s/%d\t%s\t%s\n", s.Name(), s.Exact, s.Total, points(s.Points), s.MaxPoints, s.Precision, s.Recall)
	}
	for _, inv := range c.Invalid {
		fmt.Fprintf(tw, "%s\tinvalid\t0/%d\t–\t–\n", inv.Name(), inv.MaxPoints)
	}
	tw.Flush()
	if m := c.Model; m != nil {
		fmt.Fprintf(b, "not counted: %s, the model answer, %d/%d exact\n", text.Name(m.File), m.Exact, m.Total)
	}
	var most []string
	for _, m := range c.Mispredicted {
		if m.Files > 0 {
			most = append(most, fmt.Sprintf("%s (by %d of %d valid files)", m.Mutant, m.Files, len(c.Scores)))
		}
	}
	switch {
	case len(c.Scores) == 0:
	case len(most) == 0:
		fmt.Fprintf(b, "mispredicted most: none; every learner's file is exact\n")
	default:
		fmt.Fprintf(b, "mispredicted most: %s\n", strings.Join(most, ", "))
	}
}

// WriteMarkdown writes the comparison as Markdown tables, for feedback.
func (c *Class) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	if c.Learners() > 1 {
		c.markdownClass(&b)
	}
	for i, s := range c.all() {
		if i > 0 {
			b.WriteString("\n")
		}
		c.markdownScore(&b, s)
	}
	for i, inv := range c.Invalid {
		if i > 0 || len(c.all()) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "## %s\n\n", mdText(inv.heading()))
		for _, p := range inv.Problems {
			fmt.Fprintf(&b, "- %s\n", mdText(p))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownClass writes the class's table and the mutants it mispredicted
// to b.
func (c *Class) markdownClass(b *strings.Builder) {
	fmt.Fprintf(b, "## Class\n\n| learner | exact | points | precision | recall |\n|---|---:|---:|---:|---:|\n")
	for _, s := range c.Scores {
		fmt.Fprintf(b, "| %s | %d/%d | %s/%d | %s | %s |\n", mdText(s.Name()), s.Exact, s.Total, points(s.Points), s.MaxPoints, s.Precision, s.Recall)
	}
	for _, inv := range c.Invalid {
		fmt.Fprintf(b, "| %s | invalid | 0/%d | – | – |\n", mdText(inv.Name()), inv.MaxPoints)
	}
	fmt.Fprintf(b, "\n| mutant | learners who mispredicted it |\n|---|---|\n")
	for _, m := range c.Mispredicted {
		fmt.Fprintf(b, "| `%s` | mispredicted by %d of %d valid files |\n", m.Mutant, m.Files, len(c.Scores))
	}
	b.WriteString("\n")
}

// markdownScore writes one file's section to b: its table of mutants, its
// worksheet's answers, and what the tests it missed reported.
func (c *Class) markdownScore(b *strings.Builder, s *Score) {
	fmt.Fprintf(b, "## %s\n\n", mdText(s.heading()))
	if s.Model && !c.showAnswers {
		b.WriteString("Its predictions, the answers: `check -answers` shows them.\n")
		return
	}
	b.WriteString("| step | mutant | status | predicted | failed | missed | wrong | exact | points |\n")
	b.WriteString("|---:|---|---|---|---|---|---|:---:|---:|\n")
	for _, o := range s.Matches {
		exact, status, failed := "✗", string(o.Status), mdList(o.Failed)
		switch {
		case o.NotPredicted && !s.ShowAnswers:
			exact, status, failed = "not answered", "—", "—"
		case o.NotPredicted:
			exact = "not answered"
		case o.Exact:
			exact = "✓"
		}
		var missed []string
		for _, m := range o.Missed {
			missed = append(missed, m.Test)
		}
		predicted := mdList(o.Predicted)
		if o.NotPredicted {
			predicted = "—"
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s/%d |\n",
			text.Step(o.Step), o.Mutant, status, predicted, failed, mdList(missed), mdList(o.Wrong), exact, points(o.Points), o.MaxPoints)
	}
	if len(s.Worksheet) > 0 {
		fmt.Fprintf(b, "\nThe worksheet, %d of %d answered (not graded):\n", s.WorksheetAnswered(), len(s.Worksheet))
		for _, a := range s.Worksheet {
			answer := a.Answer
			if answer == "" {
				answer = "(not answered)"
			}
			fmt.Fprintf(b, "\n- **%s**: %s\n\n%s\n", a.ID, mdText(a.Question), text.Indent(mdProse(answer), "  > "))
		}
	}
	// What the missed tests reported: the observations not foreseen.
	first := true
	for _, o := range s.Matches {
		for _, m := range o.Missed {
			if m.Message == "" {
				continue
			}
			if first {
				b.WriteString("\nWhat the missed tests reported:\n")
				first = false
			}
			msg := truncate(text.Prose(m.Message), maxMessageLines)
			fence := mdFence(msg)
			fmt.Fprintf(b, "\n- %s under `%s`:\n\n  %s\n%s\n  %s\n", mdCode(m.Test), o.Mutant, fence, text.Indent(msg, "  "), fence)
		}
	}
}

// WriteJSON writes the comparison as one JSON document.
func (c *Class) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		*Class
		AllExact bool `json:"all_exact"`
	}{c, c.AllExact()})
}

func list(names []string, none string) string {
	if len(names) == 0 {
		return "(" + none + ")"
	}
	return strings.Join(names, ", ")
}

// mdList writes names as code in a table's cell, one per line.
func mdList(names []string) string {
	if len(names) == 0 {
		return "—"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strings.ReplaceAll(mdCode(n), "|", `\|`)
	}
	return strings.Join(quoted, "<br>")
}

// mdEscape escapes the characters that Markdown would read as markup
// (emphasis, a link or an image, HTML, an entity, a table's column), so
// that text from an input is shown as it was written, never rendered.
var mdEscape = strings.NewReplacer("\\", `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "&", `\&`, "|", `\|`, "~", `\~`)

// mdText returns s as one line of Markdown text, escaped.
func mdText(s string) string { return mdEscape.Replace(text.Name(s)) }

// mdProse returns s as Markdown text, escaped, its lines kept.
func mdProse(s string) string { return mdEscape.Replace(text.Prose(s)) }

// mdCode returns s as a code span: between runs of backticks longer than
// any in s.
func mdCode(s string) string {
	s = text.Name(s)
	tick := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return tick + " " + s + " " + tick
	}
	return tick + s + tick
}

// mdFence returns the fence of a code block that holds s: a run of
// backticks longer than any in s, and at least three.
func mdFence(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// truncate keeps the first lines of s and says how many it dropped; a
// single line more is shown rather than counted.
func truncate(s string, lines int) string {
	ls := strings.Split(s, "\n")
	if len(ls) <= lines+1 {
		return s
	}
	return strings.Join(ls[:lines], "\n") + "\n… " + text.Count(len(ls)-lines, "more line", "more lines") + " (-json has them all)"
}
