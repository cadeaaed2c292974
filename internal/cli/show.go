package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/fencelab/fencelab/internal/text"
)

func show(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags] ID...", "Print each mutant's step, contract and rationale, the design note's fragment\nit stands for, and the mutant as a unified diff against the code.")
	var sel selection
	sel.register(fs, false)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef(fs, "no mutant id given (go tool mutate list shows them)")
	}
	sel.only = ""
	for i, id := range fs.Args() {
		if i > 0 {
			sel.only += ","
		}
		sel.only += id
	}
	plan, err := c.selectPlan(ctx, &sel, nil)
	if err != nil {
		return err
	}
	first, story := true, ""
	for _, u := range plan.Units {
		story = cmp.Or(story, u.Story())
		for _, a := range u.Applied {
			if !first {
				fmt.Fprintln(c.stdout)
			}
			first = false
			m := a.Mutant
			file := u.Target.RelFile(a)
			title := ""
			if m.Title != "" {
				title = ": " + m.Title
			}
			fmt.Fprintf(c.stdout, "%s (%s%s:%d)%s\n\n", u.Qual+m.ID, text.StepPrefix(m.Step), file, a.Line, title)
			field(c.stdout, "contract", m.Contract)
			field(c.stdout, "rationale", m.Rationale)
			if m.Seed != "" {
				field(c.stdout, "seed", m.Seed+"   (the design note's fragment, in its whole statement)")
			}
			field(c.stdout, "rewrite", m.Describe())
			field(c.stdout, "question", m.Question)
			fmt.Fprintln(c.stdout)
			fmt.Fprint(c.stdout, a.Diff(file))
		}
	}
	if story != "" {
		fmt.Fprintf(c.stdout, "\nThe exercise, its steps and its closing questions: %s\n", story)
	}
	return nil
}

// field prints a field of a mutant, its value wrapped under itself.
func field(w io.Writer, name, value string) {
	if value != "" {
		fmt.Fprintf(w, "%-10s %s\n", name+":", text.Wrap(value, 78, "           "))
	}
}
