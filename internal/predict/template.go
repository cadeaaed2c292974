package predict

import (
	"fmt"
	"io"
	"strings"

	"github.com/fencelab/fencelab/mutants"
)

// WriteTemplate writes a prediction file to fill in: every mutant in order,
// with its step, contract and fragment as comments and an empty prediction,
// then the names of the suite's tests as a comment block, so that a learner
// never has to guess a name.
func WriteTemplate(w io.Writer, learner, pkg string, ms []*mutants.Mutant, tests []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, `# Predictions of the tests that fail under each mutant of package %s
#
# Before running anything, list for each mutant the tests you expect to
# fail under it: full names as listed at the end of this file, a subtest as
# Parent/sub. A top-level name stands for its subtests too. Write fails: []
# if you expect the mutant to survive. In why, say which input, error or
# state exposes the difference.
#
# Then check yourself: go tool mutate check FILE
`, pkg)
	if learner == "" {
		b.WriteString("learner:\n")
	} else {
		fmt.Fprintf(&b, "learner: %s\n", yamlScalar(learner))
	}
	b.WriteString("predictions:\n")
	for i, m := range ms {
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
		comment(&b, "  ", "rewrite: "+describeRewrite(m))
		fmt.Fprintf(&b, "  %s:\n    fails: []\n    why:\n", m.ID)
	}
	fmt.Fprintf(&b, "\n# The suite's tests (%d), a subtest as Parent/sub:\n", len(tests))
	for _, t := range tests {
		fmt.Fprintf(&b, "#   %s\n", t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describeRewrite says in one line what m changes, and where to see it.
func describeRewrite(m *mutants.Mutant) string {
	find := short(m.Find)
	switch {
	case m.Kind == mutants.Body:
		return fmt.Sprintf("the whole body of %s is replaced (mutate show %s)", m.Target, m.ID)
	case strings.TrimSpace(m.Replace) == "":
		return fmt.Sprintf("%s is deleted from %s (mutate show %s)", find, m.Target, m.ID)
	}
	return fmt.Sprintf("%s -> %s in %s (mutate show %s)", find, short(m.Replace), m.Target, m.ID)
}

// short puts a fragment on one line of at most 60 characters.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
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
