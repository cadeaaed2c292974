package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/progress"
)

const templateSummary = `Write a prediction file to fill in: every mutant with an empty prediction, and
the names of every test of the suite (from a run of the unmutated suite, or
the cache). It never overwrites a file, and makes the directory it goes in.`

func template(ctx context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "[flags]", templateSummary)
	var sel command.Selection
	sel.Register(fs, false)
	learner := fs.String("learner", "", "the learner's `name`, written into the file")
	out := fs.String("o", "", "write the template to `file` (which must not exist) instead of stdout")
	var rf command.RunFlags
	fs.BoolVar(&rf.NoCache, "no-cache", false, "run the suite even if the names of its tests are cached")
	fs.BoolVar(&rf.Quiet, "q", false, "print no progress on stderr")
	rf.SandboxFlags.Register(fs)
	if err := command.ParseFlagsOnly(fs, args); err != nil {
		return err
	}
	if err := rf.SandboxFlags.Check(); err != nil {
		return err
	}
	if *out != "" {
		if err := command.CheckOut(*out, false); errors.Is(err, command.ErrExists) {
			return fmt.Errorf("%w; the template does not overwrite a prediction file", err)
		} else if err != nil {
			return err
		}
	}
	rf.Jobs = 1
	pr := progress.New(c.Stderr, rf.Quiet)
	plan, err := c.SelectPlan(ctx, &sel, pr)
	if err != nil {
		return err
	}
	// The names of subtests are known only from a run of the suite.
	names, err := harness.TestNames(ctx, plan, rf.Options(c, pr))
	if err != nil {
		return err
	}
	path := *out
	if path == "" {
		path = "FILE"
	}
	u := plan.Units[0]
	tmpl := predict.Template{
		Learner: *learner, Package: u.Target.Rel, Mutants: u.Mutants, Tests: names, Worksheet: u.Worksheet(), Story: u.Story(),
		Check: c.Command(&sel, "check", path),
		Show:  func(id string) string { return c.Command(&sel, "show", id) },
	}
	if *out == "" {
		return tmpl.Write(c.Stdout)
	}
	return c.WriteFile(*out, "fill in fails and why for each mutant, then run: "+tmpl.Check, func(w io.Writer) error { return tmpl.Write(w) })
}
