package predict

import (
	"encoding/json"
	"fmt"
	"io"
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

// WriteText writes every file's comparison, then a class summary when
// there are several files.
func (c *Class) WriteText(w io.Writer, st Style) error {
	var b strings.Builder
	for i, s := range c.Scores {
		if i > 0 {
			b.WriteString("\n")
		}
		s.writeText(&b, st)
	}
	if len(c.Scores) > 1 {
		c.writeSummary(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (s *Score) writeText(b *strings.Builder, st Style) {
	name := s.File
	if s.Learner != "" {
		name += " (" + s.Learner + ")"
	}
	fmt.Fprintf(b, "%s\n", st.bold(fmt.Sprintf("%s: %d of %d exact, precision %.2f, recall %.2f",
		name, s.Exact, s.Total, s.Precision, s.Recall)))
	for _, o := range s.Outcomes {
		head := fmt.Sprintf("%s (%s%s)", o.Mutant, text.StepPrefix(o.Step), o.Status)
		switch {
		case o.NotPredicted:
			fmt.Fprintf(b, "\n%s %s: %s\n", st.dim("-"), head, st.dim("not predicted"))
			fmt.Fprintf(b, "    failed:    %s\n", list(o.Failed, "none: it survived"))
			continue
		case o.Exact:
			fmt.Fprintf(b, "\n%s %s: %s\n", st.good("✓"), head, st.good("exact"))
		default:
			fmt.Fprintf(b, "\n%s %s: %s\n", st.bad("✗"), head, st.bad("differs"))
		}
		fmt.Fprintf(b, "    predicted: %s\n", list(o.Predicted, "none: it survives"))
		fmt.Fprintf(b, "    failed:    %s\n", list(o.Failed, "none: it survived"))
		if o.Exact {
			continue
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
			fmt.Fprintf(b, "%s\n", text.Indent(truncate(m.Message, maxMessageLines), "                 "))
		}
	}
}

func (c *Class) writeSummary(b *strings.Builder) {
	fmt.Fprintf(b, "\nclass: %d files\n", len(c.Scores))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEARNER\tEXACT\tPRECISION\tRECALL")
	for _, s := range c.Scores {
		fmt.Fprintf(tw, "%s\t%d/%d\t%.2f\t%.2f\n", s.Name(), s.Exact, s.Total, s.Precision, s.Recall)
	}
	tw.Flush()
	var most []string
	for _, m := range c.Mispredicted {
		if m.Files > 0 {
			most = append(most, fmt.Sprintf("%s (%d of %d)", m.Mutant, m.Files, len(c.Scores)))
		}
	}
	if len(most) == 0 {
		fmt.Fprintf(b, "mispredicted most: none; every file is exact\n")
		return
	}
	fmt.Fprintf(b, "mispredicted most: %s\n", strings.Join(most, ", "))
}

// WriteMarkdown writes the comparison as Markdown tables, for feedback.
func (c *Class) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	if len(c.Scores) > 1 {
		fmt.Fprintf(&b, "## Class\n\n| learner | exact | precision | recall |\n|---|---:|---:|---:|\n")
		for _, s := range c.Scores {
			fmt.Fprintf(&b, "| %s | %d/%d | %.2f | %.2f |\n", mdText(s.Name()), s.Exact, s.Total, s.Precision, s.Recall)
		}
		fmt.Fprintf(&b, "\n| mutant | files that mispredicted it |\n|---|---:|\n")
		for _, m := range c.Mispredicted {
			fmt.Fprintf(&b, "| `%s` | %d of %d |\n", m.Mutant, m.Files, len(c.Scores))
		}
		b.WriteString("\n")
	}
	for i, s := range c.Scores {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "## %s: %d of %d exact, precision %.2f, recall %.2f\n\n",
			mdText(s.Name()), s.Exact, s.Total, s.Precision, s.Recall)
		b.WriteString("| step | mutant | status | predicted | failed | missed | wrong | exact |\n")
		b.WriteString("|---:|---|---|---|---|---|---|:---:|\n")
		for _, o := range s.Outcomes {
			exact := "✗"
			switch {
			case o.NotPredicted:
				exact = "not predicted"
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
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s | %s | %s |\n",
				text.Step(o.Step), o.Mutant, o.Status, predicted, mdList(o.Failed), mdList(missed), mdList(o.Wrong), exact)
		}
		// What the missed tests reported: the observations not foreseen.
		first := true
		for _, o := range s.Outcomes {
			for _, m := range o.Missed {
				if m.Message == "" {
					continue
				}
				if first {
					b.WriteString("\nWhat the missed tests reported:\n")
					first = false
				}
				fmt.Fprintf(&b, "\n- `%s` under `%s`:\n\n  ```\n%s\n  ```\n", m.Test, o.Mutant, text.Indent(truncate(m.Message, maxMessageLines), "  "))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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

func mdList(names []string) string {
	if len(names) == 0 {
		return "—"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}
	return strings.Join(quoted, "<br>")
}

func mdText(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
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
