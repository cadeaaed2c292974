package exercise

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

// WriteDraft writes a catalog draft for u's package from rep, a full run
// of its generated mutants: the dominator mutants (see report.Subsume),
// the few that a suite must kill to kill all the others, in source order
// and numbered as steps, each with the fields that reproduce exactly its
// rewrite, a title from its operator, its failing tests as a comment, and
// an empty contract and rationale for the instructor to write; then,
// commented out, the mutants no test kills that the compiler does not
// find equivalent: the test gaps to fix before the exercise ships. made
// says how the draft was made, for its header.
func WriteDraft(w io.Writer, u *Unit, rep *report.Report, made string) error {
	byID := map[string]*mutation.Mutant{}
	for _, a := range u.Applied {
		byID[u.Qual+a.Mutant.ID] = a.Mutant
	}
	var dominators, gaps []report.Mutant
	distinct := map[string]bool{}
	// The verdicts of the mutants that are no duplicate, by status: a
	// duplicate has its twin's, and is counted as a duplicate.
	counts := map[report.Status]int{}
	for _, m := range rep.Mutants {
		switch {
		case m.Dominator:
			dominators = append(dominators, m)
		case m.DuplicateOf == "" && m.Status.Scored() && !m.Status.Detected():
			gaps = append(gaps, m)
		}
		if m.DuplicateOf == "" {
			counts[m.Status]++
		}
		if m.Status == report.Killed {
			distinct[strings.Join(m.FailedTests, "\n")] = true
		}
	}
	bySource := func(a, b report.Mutant) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(startOf(a).Line, startOf(b).Line),
			cmp.Compare(startOf(a).Column, startOf(b).Column), strings.Compare(a.ID, b.ID))
	}
	slices.SortFunc(dominators, bySource)
	slices.SortFunc(gaps, bySource)

	var b bytes.Buffer
	fmt.Fprintf(&b, "# A catalog draft for %s, written by: %s\n#\n", u.Target.ImportPath, made)
	var rest []string
	for _, st := range report.Statuses() {
		if n := counts[st]; n > 0 && st != report.Killed && st != report.Equivalent {
			rest = append(rest, fmt.Sprintf("%d %s", n, st))
		}
	}
	others := ""
	if len(rest) > 0 {
		others = "; the others: " + strings.Join(rest, ", ")
	}
	about := fmt.Sprintf("Its mutants are the dominators of a full run of the mutants generated from the code: "+
		"each is killed by a set of tests that no other mutant's set is strictly inside, so a suite that kills these kills every mutant the run killed. "+
		"Of %s, %d compiled to the reference's code (equivalent) and %d to another mutant's (duplicates); %d were killed, by %s: %s%s.",
		text.Count(len(rep.Mutants), "generated mutant", "generated mutants"), counts[report.Equivalent],
		duplicates(rep), counts[report.Killed], text.Count(len(distinct), "distinct set of tests", "distinct sets of tests"),
		text.Count(len(dominators), "dominator", "dominators"), others)
	b.WriteString("# " + text.Wrap(about, 78, "# ") + "\n#\n")
	b.WriteString("# Write each contract and rationale, rename the ids, keep the steps that\n# teach, and run: go tool mutate run -mutants THIS-FILE\n")
	fmt.Fprintf(&b, "package: %s\nmutants:\n", u.Target.Rel)
	if len(dominators) == 0 {
		b.WriteString("  []\n")
	}
	for i, m := range dominators {
		writeDraftMutant(&b, byID[m.ID], m, i+1, "")
	}
	if len(gaps) > 0 {
		fmt.Fprintf(&b, `
# Test gaps to fix before the exercise ships: no test fails under these
# mutants, and the compiler does not make them equivalent (some may be
# equivalent all the same). A test that kills one makes it a candidate.
`)
		for _, m := range gaps {
			b.WriteString("#\n")
			writeDraftMutant(&b, byID[m.ID], m, 0, "# ")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeDraftMutant writes mutant g, with the result r, as an entry of a
// mutants file, each line after prefix.
func writeDraftMutant(b *bytes.Buffer, g *mutation.Mutant, r report.Mutant, step int, prefix string) {
	line := func(format string, args ...any) { b.WriteString(prefix + fmt.Sprintf(format, args...) + "\n") }
	line("  - id: %s", g.ID)
	if step > 0 {
		line("    step: %d", step)
	}
	line("    title: %s", quote(g.Title))
	if prefix == "" {
		line(`    contract: ""`)
		line(`    rationale: ""`)
	}
	line("    target: %s", quote(g.Target))
	line("    kind: %s", g.Kind)
	line("    find: %s", quote(g.Find))
	line("    replace: %s", quote(g.Replace))
	if g.Occurrence > 0 {
		line("    occurrence: %d", g.Occurrence)
	}
	if g.Line > 0 {
		line("    line: %d", g.Line)
	}
	if len(r.FailedTests) > 0 {
		b.WriteString(prefix + "    " + text.Wrap("# fails: "+strings.Join(r.FailedTests, ", "), 78, prefix+"    #   ") + "\n")
	} else {
		line("    # %s: %s", r.Status, cmp.Or(r.Reason, "no test fails"))
	}
}

// quote writes s as a YAML double-quoted scalar: JSON's escapes, which
// YAML reads, without HTML's.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func startOf(m report.Mutant) report.Position {
	if m.Location == nil {
		return report.Position{Line: m.Line}
	}
	return m.Location.Start
}

func duplicates(rep *report.Report) int {
	n := 0
	for _, m := range rep.Mutants {
		if m.DuplicateOf != "" {
			n++
		}
	}
	return n
}
