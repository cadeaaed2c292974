package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

func list(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags]", "Print the mutants: step, id, target, kind and title.")
	var mf mutantFlags
	mf.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	// Each package's mutants, their ids qualified for a pattern.
	var sets [][]*mutation.Mutant
	var quals []string
	if isPattern(mf.pkg) {
		rs, err := c.openRun(ctx, &mf, &runFlags{quiet: true})
		if err != nil {
			return err
		}
		defer rs.Close()
		for _, s := range rs.sessions {
			sets, quals = append(sets, s.mutants), append(quals, report.Qualifier(s.Target.Rel))
		}
	} else {
		ch, err := mf.load(ctx)
		if err != nil {
			return err
		}
		sets, quals = [][]*mutation.Mutant{ch.mutants}, []string{""}
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tID\tTARGET\tKIND\tTITLE")
	for i, ms := range sets {
		for _, m := range ms {
			kind := string(m.Kind)
			if m.Operator != "" {
				kind = string(m.Operator)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", text.Step(m.Step), quals[i]+m.ID, m.Target, kind, m.Title)
		}
	}
	return tw.Flush()
}
