package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/fencelab/fencelab/internal/text"
)

func list(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags]", "Print the mutants: step, id, target, kind and title.")
	var mf mutantFlags
	mf.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	ch, err := mf.load(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tID\tTARGET\tKIND\tTITLE")
	for _, m := range ch.mutants {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", text.Step(m.Step), m.ID, m.Target, m.Kind, m.Title)
	}
	return tw.Flush()
}
