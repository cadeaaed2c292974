// Package reportdoc generates the parts of REPORT.md that a mutation run
// determines, and rewrites them between their markers:
//
//	<!-- BEGIN mutate report: NAME -->
//	...generated...
//	<!-- END mutate report: NAME -->
//
// Everything generated comes from statuses, test names and diffs, never
// from timings, so that an unchanged tree regenerates the file byte for
// byte.
package reportdoc

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/report"
)

// Input is what the generated parts are made of.
type Input struct {
	Report      *report.Report     // a run of the catalog and the experiments
	Catalog     []*mutation.Mutant // in step order
	Experiments []*mutation.Mutant
	// ExperimentFiles are the files of the experiments, as the summary
	// names them.
	ExperimentFiles []string
	Diffs           map[string]string // mutant id: its diff, as mutate show prints it
	Predictions     string            // path of the prediction file, as shown
	Score           *predict.Score    // that file compared with the catalog part of Report; nil for none
}

// Blocks returns the content of every generated block, by name.
func Blocks(in Input) map[string]string {
	byID := map[string]report.Mutant{}
	for _, m := range in.Report.Mutants {
		byID[m.ID] = m
	}
	blocks := map[string]string{
		"summary": summary(in, byID),
		"matrix":  matrix(in, byID),
	}
	if in.Score != nil {
		blocks["scores"] = scores(in)
	}
	if len(in.Experiments) > 0 {
		blocks["experiments"] = experiments(in, byID)
	}
	for _, m := range in.Catalog {
		blocks["mutant "+m.ID] = mutantBlock(in, m, byID[m.ID])
	}
	return blocks
}

func summary(in Input, byID map[string]report.Mutant) string {
	count := func(ms []*mutation.Mutant) string {
		var rs []report.Mutant
		for _, m := range ms {
			rs = append(rs, byID[m.ID])
		}
		return report.Summarize(rs).String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- The catalog: %s.\n", count(in.Catalog))
	if len(in.Experiments) > 0 {
		fmt.Fprintf(&b, "- The experiments (%s): %s.\n", codeList(in.ExperimentFiles, ""), count(in.Experiments))
	}
	if in.Score != nil {
		fmt.Fprintf(&b, "- `%s`: %d of %d exact, precision %s, recall %s.\n",
			in.Predictions, in.Score.Exact, in.Score.Total, in.Score.Precision, in.Score.Recall)
	}
	return b.String()
}

func mutantBlock(in Input, m *mutation.Mutant, r report.Mutant) string {
	var b strings.Builder
	fmt.Fprintf(&b, "`go tool mutate show %s`:\n\n```diff\n%s```\n\n", m.ID, in.Diffs[m.ID])
	var o *predict.Match
	for i := range matches(in.Score) {
		if in.Score.Matches[i].Mutant == m.ID {
			o = &in.Score.Matches[i]
		}
	}
	if o != nil && !o.NotPredicted {
		fmt.Fprintf(&b, "- Predicted in `%s`: %s\n", in.Predictions, codeList(o.Predicted, "none (survives)"))
	}
	fmt.Fprintf(&b, "- Failed under the mutant (%s): %s\n", r.Status, codeList(r.FailedTests, "none"))
	if o != nil && !o.NotPredicted {
		if o.Exact {
			b.WriteString("- The prediction is exact.\n")
		} else {
			var missed []string
			for _, x := range o.Missed {
				missed = append(missed, x.Test)
			}
			fmt.Fprintf(&b, "- The prediction differs: missed %s; wrong %s.\n", codeList(missed, "none"), codeList(o.Wrong, "none"))
		}
	}
	return b.String()
}

// matrix is the kill matrix of the catalog: a row for every test that
// failed under some mutant, a column for every mutant.
func matrix(in Input, byID map[string]report.Mutant) string {
	killers := map[string][]string{} // test: mutants it killed
	for _, m := range in.Catalog {
		for _, t := range byID[m.ID].FailedTests {
			killers[t] = append(killers[t], m.ID)
		}
	}
	var b strings.Builder
	b.WriteString("| test |")
	for _, m := range in.Catalog {
		fmt.Fprintf(&b, " %d |", m.Step)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat(":-:|", len(in.Catalog)))
	b.WriteString("\n")
	var idle []string
	for _, t := range in.Report.Baseline.TestNames {
		if len(killers[t]) == 0 {
			idle = append(idle, t)
			continue
		}
		fmt.Fprintf(&b, "| `%s` |", t)
		for _, m := range in.Catalog {
			mark := " "
			if slices.Contains(killers[t], m.ID) {
				mark = "✗"
			}
			fmt.Fprintf(&b, " %s |", mark)
		}
		b.WriteString("\n")
	}
	b.WriteString("| **tests that failed** |")
	for _, m := range in.Catalog {
		fmt.Fprintf(&b, " %d |", len(byID[m.ID].FailedTests))
	}
	b.WriteString("\n\nColumns are the steps: ")
	var cols []string
	for _, m := range in.Catalog {
		cols = append(cols, fmt.Sprintf("%d `%s` (%s)", m.Step, m.ID, byID[m.ID].Status))
	}
	b.WriteString(strings.Join(cols, ", "))
	fmt.Fprintf(&b, ".\n\n%d of the %d tests and subtests failed under no catalog mutant: %s.\n",
		len(idle), len(in.Report.Baseline.TestNames), codeList(idle, "none"))
	return b.String()
}

// matches returns the matches of s, none if there is no score.
func matches(s *predict.Score) []predict.Match {
	if s == nil {
		return nil
	}
	return s.Matches
}

func scores(in Input) string {
	var b strings.Builder
	b.WriteString("| step | mutant | predicted | failed | right | missed | wrong | exact |\n|---:|---|---:|---:|---:|---:|---:|:-:|\n")
	for _, o := range in.Score.Matches {
		exact := "✗"
		if o.Exact {
			exact = "✓"
		}
		fmt.Fprintf(&b, "| %d | `%s` | %d | %d | %d | %d | %d | %s |\n",
			o.Step, o.Mutant, len(o.Predicted), len(o.Failed), len(o.Right), len(o.Missed), len(o.Wrong), exact)
	}
	fmt.Fprintf(&b, "\n`%s`: %d of %d exact, precision %s, recall %s (`go tool mutate check %s`).\n",
		in.Predictions, in.Score.Exact, in.Score.Total, in.Score.Precision, in.Score.Recall, in.Predictions)
	return b.String()
}

func experiments(in Input, byID map[string]report.Mutant) string {
	var b strings.Builder
	b.WriteString("| step | experiment | change | status | tests that failed |\n|---:|---|---|---|---|\n")
	for _, m := range in.Experiments {
		r := byID[m.ID]
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %s |\n", m.Step, m.ID, change(m), r.Status, shortList(r.FailedTests, 6))
	}
	return b.String()
}

// change describes a mutant's rewrite in one table cell.
func change(m *mutation.Mutant) string {
	find, repl := mdCell(m.Find), mdCell(m.Replace)
	if repl == "" {
		return fmt.Sprintf("in `%s`, delete `%s`", m.Target, find)
	}
	return fmt.Sprintf("in `%s`, `%s` → `%s`", m.Target, find, repl)
}

// mdCell puts s on one line of a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// shortList names at most n tests, and counts the rest.
func shortList(names []string, n int) string {
	if len(names) <= n {
		return codeList(names, "none")
	}
	return fmt.Sprintf("%d tests: %s and %d more", len(names), codeList(names[:n], ""), len(names)-n)
}

func codeList(names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}

var marker = regexp.MustCompile(`(?m)^<!-- (BEGIN|END) mutate report: ([^>]+?) -->$`)

// Rewrite replaces the content of every block in doc with blocks[name].
// A block the generator does not know, one it makes that doc lacks, an END
// without its BEGIN, or a BEGIN without its END is an error; doc is not
// changed then.
func Rewrite(doc []byte, blocks map[string]string) ([]byte, error) {
	var out bytes.Buffer
	last := 0
	open := ""
	seen := map[string]bool{}
	for _, loc := range marker.FindAllSubmatchIndex(doc, -1) {
		kind, name := string(doc[loc[2]:loc[3]]), string(doc[loc[4]:loc[5]])
		line := bytes.Count(doc[:loc[0]], []byte("\n")) + 1
		switch {
		case kind == "BEGIN" && open != "":
			return nil, fmt.Errorf("line %d: BEGIN %q inside block %q", line, name, open)
		case kind == "BEGIN":
			content, ok := blocks[name]
			if !ok {
				return nil, fmt.Errorf("line %d: unknown block %q", line, name)
			}
			out.Write(doc[last:loc[1]])
			out.WriteString("\n")
			out.WriteString(content)
			open = name
			seen[name] = true
		case kind == "END" && open != name:
			return nil, fmt.Errorf("line %d: END %q without its BEGIN", line, name)
		default:
			open = ""
			last = loc[0]
		}
	}
	if open != "" {
		return nil, fmt.Errorf("block %q has no END marker", open)
	}
	var missing []string
	for name := range blocks {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("no block for %s: add <!-- BEGIN mutate report: NAME --> and <!-- END mutate report: NAME --> where each belongs",
			strings.Join(missing, ", "))
	}
	out.Write(doc[last:])
	return out.Bytes(), nil
}
