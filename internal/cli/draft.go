package cli

import (
	"context"
	"io"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/progress"
)

const draftSummary = `Draft a catalog for a package: run its generated mutants to the end, leave out
those the compiler makes equivalent or duplicates, and write the dominators
(each killed by a set of tests that no other's set is strictly inside) as a
mutants file, in source order, with their failing tests as comments. The
mutants no test kills follow, commented out: the test gaps to fix first.`

func draft(ctx context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "-pkg PACKAGE -o FILE [flags]", draftSummary)
	var sel command.Selection
	fs.StringVar(&sel.Pkg, "pkg", "", "the `package` whose mutants to generate, as go names it here")
	fs.StringVar(&sel.Only, "only", "", "only these comma-separated generated mutant `ids`")
	var rf command.RunFlags
	rf.RegisterAllButFull(fs)
	out := fs.String("o", "", "write the draft to `file` (which must not exist) instead of stdout")
	if err := command.ParseFlagsOnly(fs, args); err != nil {
		return err
	}
	if sel.Pkg == "" || exercise.IsPattern(sel.Pkg) {
		return command.Usagef(fs, "draft generates the mutants of one package: give -pkg PACKAGE (not a pattern)")
	}
	if err := rf.Check(); err != nil {
		return err
	}
	if *out != "" {
		if err := command.CheckOut(*out, false); err != nil {
			return err
		}
	}
	sel.Generate, rf.Full = true, true
	pr := progress.New(c.Stderr, rf.Quiet)
	plan, err := c.SelectPlan(ctx, &sel, pr)
	if err != nil {
		return err
	}
	rep, err := c.Eng.Run(ctx, plan, rf.Options(c, pr))
	if err != nil {
		return err
	}
	write := func(w io.Writer) error {
		return exercise.WriteDraft(w, plan.Units[0], rep, c.Command(&command.Selection{Pkg: sel.Pkg}, "draft"))
	}
	if *out == "" {
		return write(c.Stdout)
	}
	return c.WriteFile(*out, "a catalog draft: write its contracts and rationales", write)
}
