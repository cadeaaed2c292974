package cli

import (
	"context"
	"errors"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

var runSummary = `Run the unmutated suite (the baseline), then the suite once per mutant, and
print the kill matrix: which tests failed under each mutant. Progress goes to
stderr, the result to stdout.

Statuses (a verdict rests on the test binary's events, never on its output):
` + report.StatusHelp() + `

With -generate the mutants come from the package's code, by operator, instead
of a catalog. Each runs only the tests that reach its site: the likeliest
killer alone first (the test that killed a mutant of its line, or of its
function), then the fast tests, then every test once, and stops at its first
failing test (-full runs every test to the end, as catalog mutants always do).
-min-score gates on the share detected instead of on every mutant.

A kill is confirmed: the tests that failed under a mutant run again together
under it (they must fail again; a run of one test that failed is its run
alone) and without it (they must pass); a test that does not reproduce so
runs alone, and one that needs the tests before it is tried in the grouping
it failed in. A killer must have passed five runs without any mutant in the
groupings it failed in (the baseline's count; the first time it falls short,
it runs until it has, and the cache keeps that for the same test binary). A
failure that does not reproduce is flaky: named, never a kill, never cached.
A mutant whose only failures were flaky runs once more, and is flaky if again
none reproduces.

Every test binary runs in a private copy of its package directory, with a
HOME and TMPDIR of its own, in a sandbox: as an ordinary user with no
privilege on the host, even when mutate runs as root; everything but its
own files read-only or out of reach; no network of the host's (-network
shares it); its memory bounded (-memory); its processes ended with it. The
sandbox is the strongest this host allows (-sandbox): Linux namespaces (a
private /tmp, a network with only loopback, blind to other processes), else
Landlock (no /tmp, no network at all); where there is neither, a run
refuses: -sandbox=none runs without (reduced isolation, nothing cached). The
source tree is checked after every run, and the reference runs again after
the mutants: a change stops the run (exit 2). Results are cached: an
unchanged tree is answered at once (-no-cache runs again).

` + text.Wrap("Exit codes: "+report.ExitHelp("run"), 78, "")

func run(ctx context.Context, c *command.Call, args []string) error {
	fs := command.NewFlagSet(c, "[flags]", runSummary)
	var sel command.Selection
	sel.Register(fs, true)
	var rf command.RunFlags
	rf.Register(fs)
	var out command.Outputs
	out.Register(fs)
	if err := command.ParseFlagsOnly(fs, args); err != nil {
		return err
	}
	if err := rf.Check(); err != nil {
		return err
	}
	if err := out.Check(); err != nil {
		return err
	}
	pr := progress.New(c.Stderr, rf.Quiet)
	plan, err := c.SelectPlan(ctx, &sel, pr)
	if err != nil {
		return err
	}
	out.Exercise = command.ExerciseIDs(plan)
	opt := rf.Options(c, pr)
	if !out.Answers {
		opt.Answers = out.Exercise
	}
	rep, err := c.Eng.Run(ctx, plan, opt)
	if rep != nil && errors.Is(err, harness.ErrInterrupted) {
		// What finished, marked as partial (and cached): no file is
		// written from it, and the run exits 2.
		out.StdoutOnly()
		if werr := out.Write(c, plan.Root, rep, nil); werr != nil && !errors.As(werr, new(command.Answer)) {
			return werr
		}
		return err
	}
	if err != nil {
		return err
	}
	return out.Write(c, plan.Root, rep, func(id string) string { return c.ShowCommand(&sel, plan.Multi, id) })
}
