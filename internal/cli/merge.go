package cli

import (
	"context"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

var mergeSummary = `Join the results of the shards of one run (mutate run -shard k/n -json, for
every k from 1 to n, each on a machine of its own, say) into the result of
the whole run, its mutants in the order of an unsharded run, and print it
as run does: the kill matrix, or JSON, JUnit, GitHub annotations, Stryker's
schema or HTML. Run it in a checkout of the same commit: the HTML and
Stryker reports read the sources from it. A shard given twice or missing,
or shards of different runs, are an error.

` + text.Wrap("Exit codes: "+report.ExitHelp("merge"), 78, "")

// merge joins the results of the shards of a run.
func merge(_ context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "[flags] FILE...", mergeSummary)
	var out command.Outputs
	out.Register(fs)
	if err := command.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return command.Usagef(fs, "no result file given (mutate run -shard k/n -json writes one)")
	}
	if err := out.Check(); err != nil {
		return err
	}
	var shards []*report.Report
	for _, file := range fs.Args() {
		rep, err := report.ReadFile(file)
		if err != nil {
			return err
		}
		shards = append(shards, rep)
	}
	rep, err := report.Merge(shards)
	if err != nil {
		return err
	}
	root, err := exercise.FindRoot(".")
	if err != nil {
		return err
	}
	show := func(id string) string {
		sel := command.Selection{Pkg: rep.Package}
		for _, m := range rep.Mutants {
			if m.ID == id {
				sel.Generate = m.Generated()
			}
		}
		return c.ShowCommand(&sel, len(rep.Packages) > 0, id)
	}
	return out.Write(c, root, rep, show)
}
