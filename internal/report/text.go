package report

import (
	"fmt"
	"github.com/fencelab/fencelab/internal/text"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the kill matrix: one row per mutant in catalog order,
// the tests that failed under it beneath, then the summary line. With
// verbose, each failed test's message follows its name.
func (r *Report) WriteText(w io.Writer, verbose bool) error {
	var b strings.Builder
	cached := ""
	if r.Cached {
		cached = " (results from the cache: the sources, tests and mutants are unchanged)"
	}
	fmt.Fprintf(&b, "baseline %s: %d tests passed in %.1fs; limit per mutant %.1fs%s\n\n", r.Package, r.Baseline.Tests, r.Baseline.Seconds, r.Limit, cached)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tMUTANT\tSTATUS\tTIME\tFAILED TESTS")
	for _, m := range r.Mutants {
		step := "-"
		if m.Step > 0 {
			step = fmt.Sprint(m.Step)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1fs\t%s\n", step, m.ID, m.Status, m.Seconds, countNote(m))
	}
	tw.Flush()
	for _, m := range r.Mutants {
		step := ""
		if m.Step > 0 {
			step = fmt.Sprintf("step %d, ", m.Step)
		}
		title := ""
		if m.Title != "" {
			title = ": " + m.Title
		}
		fmt.Fprintf(&b, "\n%s (%s%s:%d)%s\n", m.ID, step, m.File, m.Line, title)
		switch m.Status {
		case Killed:
			for i, name := range m.FailedTests {
				fmt.Fprintf(&b, "  %s\n", name)
				if verbose && m.Failures[i].Message != "" {
					fmt.Fprintf(&b, "%s\n", text.Indent(m.Failures[i].Message, "      "))
				}
			}
		case Survived:
			fmt.Fprintf(&b, "  no test failed: the suite cannot tell this mutant from the reference\n")
		case NotCovered:
			fmt.Fprintf(&b, "  no test reaches it: no test can tell this mutant from the reference\n")
		case Crashed:
			fmt.Fprintf(&b, "  detected, but by no test: %s\n", m.Reason)
			if m.Output != "" {
				fmt.Fprintf(&b, "%s\n", text.Indent(m.Output, "      "))
			}
		case Timeout:
			fmt.Fprintf(&b, "  %s: the mutant probably hangs\n", m.Reason)
		case BuildFailed:
			fmt.Fprintf(&b, "  the mutant does not compile (a defect of the mutant, not a kill):\n%s\n", text.Indent(m.Output, "      "))
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary)
	_, err := io.WriteString(w, b.String())
	return err
}

func countNote(m Mutant) string {
	if m.Status == Killed {
		return fmt.Sprint(len(m.FailedTests))
	}
	return "-"
}
