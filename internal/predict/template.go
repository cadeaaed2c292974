package predict

import (
	"fmt"
	"io"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/mutation"
)

// Template is a prediction file to fill in.
type Template struct {
	Learner string // written into the file, or left for the learner
	Package string // the mutated package, as the module names it: "./stock"
	Mutants []*mutation.Mutant
	Tests   []string // the suite's tests, every subtest included
	// Worksheet are the exercise's closing questions, each with a place
	// for its answer.
	Worksheet []exercise.Question
	// Story is the document that tells the exercise's story, from the
	// module root; "" for none.
	Story string
	// Check is the command that checks the file, and Show returns the one
	// that shows a mutant, with the flags that chose the mutants, so that
	// the file's hints work as printed.
	Check string
	Show  func(id string) string
}

// Write writes the template: every mutant in order, with its step,
// contract and fragment as comments and an empty prediction (and a place
// for the answer to its step's question, if it has one), the worksheet's
// closing questions with a place for each answer, then the names of the
// suite's tests as a comment block, so that a learner never has to guess
// a name. An entry left as it is written is not answered.
func (t Template) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, `# Predictions of the tests that fail under each mutant of package %s
#
# Before running anything, list for each mutant the tests you expect to
# fail under it: full names as listed at the end of this file, a subtest as
# Parent/sub. A top-level name stands for its subtests too. Write fails: []
# if you expect the mutant to survive. In why, say which input, error or
# state exposes the difference. An entry left empty is not answered.
#
`, t.Package)
	if t.Story != "" {
		fmt.Fprintf(&b, "# The exercise, its steps and its closing questions: %s\n#\n", t.Story)
	}
	fmt.Fprintf(&b, "# Then check yourself:\n#   %s\n", t.Check)
	if t.Learner == "" {
		b.WriteString("learner:\n")
	} else {
		fmt.Fprintf(&b, "learner: %s\n", yamlScalar(t.Learner))
	}
	b.WriteString("predictions:\n")
	for i, m := range t.Mutants {
		if i > 0 {
			b.WriteString("\n")
		}
		title := m.Title
		if title == "" {
			title = m.ID
		}
		if m.Step > 0 {
			title = fmt.Sprintf("step %d: %s", m.Step, title)
		}
		comment(&b, "  ", title)
		if m.Contract != "" {
			comment(&b, "  ", "contract: "+m.Contract)
		}
		if m.Seed != "" {
			comment(&b, "  ", "faulty fragment: "+m.Seed)
		}
		comment(&b, "  ", fmt.Sprintf("rewrite: %s (%s)", m.Describe(), t.Show(m.ID)))
		if m.Question != "" {
			comment(&b, "  ", "question: "+m.Question)
		}
		fmt.Fprintf(&b, "  %s:\n    fails:\n    why:\n", m.ID)
		if m.Question != "" {
			b.WriteString("    answer:\n")
		}
	}
	if len(t.Worksheet) > 0 {
		b.WriteString("\n# The worksheet: answer each question in your own words, after your\n# predictions (not graded: your instructor reads the answers).\nworksheet:\n")
		for i, q := range t.Worksheet {
			if i > 0 {
				b.WriteString("\n")
			}
			comment(&b, "  ", q.Question)
			fmt.Fprintf(&b, "  %s:\n", q.ID)
		}
	}
	fmt.Fprintf(&b, "\n# The suite's tests (%d), a subtest as Parent/sub:\n", len(t.Tests))
	for _, name := range t.Tests {
		fmt.Fprintf(&b, "#   %s\n", name)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// comment writes text as YAML comment lines of at most about 78 columns.
func comment(b *strings.Builder, indent, text string) {
	line := indent + "#"
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > 78 && len(line) > len(indent)+1 {
			b.WriteString(line + "\n")
			line = indent + "#  "
		}
		line += " " + word
	}
	b.WriteString(line + "\n")
}

// yamlScalar quotes s when plain YAML would misread it.
func yamlScalar(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\n") || strings.TrimSpace(s) != s {
		return fmt.Sprintf("%q", s)
	}
	return s
}
