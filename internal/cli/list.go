package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/text"
)

func list(ctx context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "[flags]", "Print the mutants: step, id, target, kind (or operator) and title.")
	var sel command.Selection
	sel.Register(fs, false)
	if err := command.ParseFlagsOnly(fs, args); err != nil {
		return err
	}
	// Listing needs the mutants only: nothing is applied or built.
	plan, err := exercise.Choose(ctx, sel.Of(nil))
	if err != nil {
		return command.Interrupted(ctx, err)
	}
	for _, note := range plan.Notes {
		fmt.Fprintf(c.Stderr, "mutate: %s\n", note)
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tID\tTARGET\tKIND\tTITLE")
	for _, u := range plan.Units {
		for _, m := range u.Mutants {
			kind := string(m.Kind)
			if m.Generated() {
				kind = string(m.Operator)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", text.Step(m.Step), u.Qual+m.ID, m.Target, kind, m.Title)
		}
	}
	return tw.Flush()
}
