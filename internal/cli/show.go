package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/text"
)

func show(ctx context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "[flags] ID...", "Print each mutant's step, contract and rationale, the design note's fragment\nit stands for, and the mutant as a unified diff against the code.")
	var sel command.Selection
	sel.Register(fs, false)
	if err := command.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return command.Usagef(fs, "no mutant id given (go tool mutate list shows them)")
	}
	sel.Only = ""
	for i, id := range fs.Args() {
		if i > 0 {
			sel.Only += ","
		}
		sel.Only += id
	}
	plan, err := c.SelectPlan(ctx, &sel, nil)
	if err != nil {
		return err
	}
	first, story := true, ""
	for _, u := range plan.Units {
		story = cmp.Or(story, u.Story())
		for _, a := range u.Applied {
			if !first {
				fmt.Fprintln(c.Stdout)
			}
			first = false
			m := a.Mutant
			file := u.Target.RelFile(a)
			title := ""
			if m.Title != "" {
				title = ": " + m.Title
			}
			fmt.Fprintf(c.Stdout, "%s (%s%s:%d)%s\n\n", u.Qual+m.ID, text.StepPrefix(m.Step), file, a.Line, title)
			field(c.Stdout, "contract", m.Contract)
			field(c.Stdout, "rationale", m.Rationale)
			if m.Seed != "" {
				field(c.Stdout, "seed", m.Seed+"   (the design note's fragment, in its whole statement)")
			}
			field(c.Stdout, "rewrite", m.Describe())
			field(c.Stdout, "question", m.Question)
			fmt.Fprintln(c.Stdout)
			fmt.Fprint(c.Stdout, a.Diff(file))
		}
	}
	if story != "" {
		fmt.Fprintf(c.Stdout, "\nThe exercise, its steps and its closing questions: %s\n", story)
	}
	return nil
}

// field prints a field of a mutant, its value wrapped under itself.
func field(w io.Writer, name, value string) {
	if value != "" {
		fmt.Fprintf(w, "%-10s %s\n", name+":", text.Wrap(value, 78, "           "))
	}
}
