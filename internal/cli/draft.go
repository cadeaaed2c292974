package cli

import (
	"context"
	"io"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/progress"
)

const draftSummary = `Draft a catalog for a package: run its generated mutants to the end, leave out
those the compiler makes equivalent or duplicates, and write the dominators
(each killed by a set of tests that no other's set is strictly inside) as a
mutants file, in source order, with their failing tests as comments. The
mutants no test kills follow, commented out: the test gaps to fix first.`

func draft(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "-pkg PACKAGE -o FILE [flags]", draftSummary)
	var sel selection
	fs.StringVar(&sel.pkg, "pkg", "", "the `package` whose mutants to generate, as go names it here")
	fs.StringVar(&sel.only, "only", "", "only these comma-separated generated mutant `ids`")
	var rf runFlags
	rf.registerAllButFull(fs)
	out := fs.String("o", "", "write the draft to `file` (which must not exist) instead of stdout")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if sel.pkg == "" || exercise.IsPattern(sel.pkg) {
		return usagef(fs, "draft generates the mutants of one package: give -pkg PACKAGE (not a pattern)")
	}
	if err := rf.check(); err != nil {
		return err
	}
	if *out != "" {
		if err := checkOut(*out, false); err != nil {
			return err
		}
	}
	sel.generate, rf.full = true, true
	pr := progress.New(c.stderr, rf.quiet)
	plan, err := c.selectPlan(ctx, &sel, pr)
	if err != nil {
		return err
	}
	rep, err := c.eng.Run(ctx, plan, rf.options(c, pr))
	if err != nil {
		return err
	}
	write := func(w io.Writer) error {
		return exercise.WriteDraft(w, plan.Units[0], rep, c.command(&selection{pkg: sel.pkg}, "draft"))
	}
	if *out == "" {
		return write(c.stdout)
	}
	return c.writeFile(*out, "a catalog draft: write its contracts and rationales", write)
}
