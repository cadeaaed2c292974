package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/text"
)

func list(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags]", "Print the mutants: step, id, target, kind (or operator) and title.")
	var sel selection
	sel.register(fs, false)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	// Listing needs the mutants only: nothing is applied or built.
	plan, err := exercise.Choose(ctx, sel.of(nil))
	if err != nil {
		return interrupted(ctx, err)
	}
	for _, note := range plan.Notes {
		fmt.Fprintf(c.stderr, "mutate: %s\n", note)
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
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
