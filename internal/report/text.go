package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/fencelab/fencelab/internal/text"
)

// TextOptions say what the kill matrix shows.
type TextOptions struct {
	// Verbose adds each failed test's message under its name.
	Verbose bool
	// Exercise holds the ids of the exercise's mutants (those of the
	// module's catalog): the tests that failed under them are the
	// answers a learner predicts, neither named nor counted.
	Exercise map[string]bool
}

// WriteText writes the kill matrix: one row per mutant in catalog order,
// the tests that failed under it beneath (for an exercise's mutant,
// neither they nor their number: see TextOptions.Exercise), then the
// summary line.
func (r *Report) WriteText(w io.Writer, opt TextOptions) error {
	var b strings.Builder
	r.writeHeader(&b)
	r.writeMatrix(&b, opt)
	for _, m := range r.Mutants {
		writeMutant(&b, m, opt)
	}
	r.writeFooter(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeader writes the baseline's line, and what the run was short of.
func (r *Report) writeHeader(b *strings.Builder) {
	cached := ""
	if r.Cached {
		cached = " (results from the cache: the sources, tests and mutants are unchanged)"
	}
	fmt.Fprintf(b, "baseline %s: %s passed in %.1fs; limit per mutant %.1fs%s%s\n", r.Package, text.Count(r.Baseline.Tests, "test", "tests"), r.Baseline.Seconds, r.Limit, r.sandboxes(), cached)
	if r.Isolation == IsolationReduced {
		b.WriteString("isolation reduced (-sandbox=none): the test binaries ran without sandboxes, as you; nothing was cached\n")
	}
	if len(r.Binds) > 0 {
		fmt.Fprintf(b, "each sandbox held, read-only (-bind): %s\n", strings.Join(r.Binds, ", "))
	}
	if len(r.FlakyTests) > 0 {
		fmt.Fprintf(b, "flaky with no mutant (passed and failed when run alone; their failures are never kills): %s\n", strings.Join(r.FlakyTests, ", "))
	}
	b.WriteString("\n")
}

// sandboxes says, after the baseline's line, what the test binaries ran
// in: "" without sandboxes, which a line of its own says.
func (r *Report) sandboxes() string {
	switch r.Isolation {
	case IsolationNamespaces:
		return "; in sandboxes of namespaces"
	case IsolationLandlock:
		return fmt.Sprintf("; in sandboxes of Landlock (ABI %d)", r.LandlockABI)
	}
	return ""
}

// writeMatrix writes the table: a row per mutant, with the number of
// tests that failed under it unless it is an exercise's; of a run of an
// exercise's mutants alone, no such column.
func (r *Report) writeMatrix(b *strings.Builder, opt TextOptions) {
	counts := slices.ContainsFunc(r.Mutants, func(m Mutant) bool { return !opt.Exercise[m.ID] })
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	if counts {
		fmt.Fprintln(tw, "STEP\tMUTANT\tSTATUS\tTIME\tFAILED TESTS")
	} else {
		fmt.Fprintln(tw, "STEP\tMUTANT\tSTATUS\tTIME")
	}
	for _, m := range r.Mutants {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1fs", text.Step(m.Step), m.ID, m.Status, m.Seconds)
		switch {
		case !counts:
		case opt.Exercise[m.ID]:
			fmt.Fprint(tw, "\t(an answer)")
		default:
			fmt.Fprintf(tw, "\t%s", countNote(m))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// writeMutant writes what the matrix says of m under its row.
func writeMutant(b *strings.Builder, m Mutant, opt TextOptions) {
	step := text.StepPrefix(m.Step)
	title := ""
	if m.Title != "" {
		title = ": " + m.Title
	}
	fmt.Fprintf(b, "\n%s (%s%s:%d)%s\n", m.ID, step, m.File, m.Line, title)
	switch {
	case opt.Exercise[m.ID] && len(m.FailedTests) > 0:
		b.WriteString("  the tests that failed under it are an exercise's answers: check shows them after you predict (or run -answers)\n")
	default:
		for i, name := range m.FailedTests {
			fmt.Fprintf(b, "  %s\n", name)
			if opt.Verbose && m.Failures[i].Message != "" {
				fmt.Fprintf(b, "%s\n", text.Indent(m.Failures[i].Message, "      "))
			}
		}
	}
	if say := m.Status.def().matrix; say != nil {
		fmt.Fprintf(b, "  %s\n", say(m))
		if m.Status == Crashed && m.Output != "" {
			fmt.Fprintf(b, "%s\n", text.Indent(m.Output, "      "))
		}
	}
	if m.DuplicateOf != "" {
		fmt.Fprintf(b, "  a duplicate of %s: it compiles to the same code, so it did not run and has its verdict\n", m.DuplicateOf)
	}
	if len(m.SubsumedBy) > 0 && m.Generated() {
		fmt.Fprintf(b, "  subsumed by %s: every test that kills %s kills it\n", strings.Join(m.SubsumedBy, ", "), text.Plural(len(m.SubsumedBy), "that mutant", "one of those"))
	}
	if len(m.FlakyTests) > 0 && m.Status != Flaky {
		fmt.Fprintf(b, "  flaky, not counted: %s (failed, then passed when run again, or failed without the mutant too)\n", strings.Join(m.FlakyTests, ", "))
	}
}

// writeFooter writes the summary and what the run cost.
func (r *Report) writeFooter(b *strings.Builder) {
	fmt.Fprintf(b, "\n%s\n", r.Summary())
	if r.CPUs > 0 && r.Seconds > 0 && !r.Cached {
		fmt.Fprintf(b, "ran in %.1fs on %d CPUs, %.0f%% busy; %.0f%% of the mutants' time in the runs that decided their verdicts\n",
			r.Seconds, r.CPUs, 100*r.CPUSeconds/(r.Seconds*float64(r.CPUs)), 100*r.Efficiency)
	}
	if t := r.TCE; t != nil {
		share := ""
		if r.Seconds > 0 {
			share = fmt.Sprintf(", %.0f%% of the run", 100*t.Seconds/r.Seconds)
		}
		fmt.Fprintf(b, "trivial compiler equivalence: %s compiled in %.1fs%s; %d equivalent to the reference, %s\n",
			text.Count(t.Compiled, "generated mutant", "generated mutants"), t.Seconds, share, t.Equivalent, text.Count(t.Duplicates, "duplicate", "duplicates"))
	}
	if s := r.Summary(); s.Subsumed && r.generated() {
		fmt.Fprintf(b, "subsumption: %s; subsuming score %.2f (the plain score %.2f)\n",
			text.Count(s.Dominators, "dominator", "dominators"), s.SubsumingScore, s.Score)
	}
	for _, n := range r.NotRun {
		fmt.Fprintf(b, "not run: %s: %s\n", n.Package, text.FirstLine(n.Reason))
	}
	if r.Interrupted {
		fmt.Fprintf(b, "interrupted: a partial result, of the %s that finished\n", text.Count(len(r.Mutants), "mutant", "mutants"))
	}
}

func countNote(m Mutant) string {
	if len(m.FailedTests) == 0 {
		return "-"
	}
	if m.Partial {
		return fmt.Sprintf("%d+", len(m.FailedTests))
	}
	return fmt.Sprint(len(m.FailedTests))
}

// generated reports whether r has a generated mutant.
func (r *Report) generated() bool {
	for _, m := range r.Mutants {
		if m.Generated() {
			return true
		}
	}
	return false
}
