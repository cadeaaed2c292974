package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
)

var runSummary = `Run the unmutated suite (the baseline), then the suite once per mutant, and
print the kill matrix: which tests failed under each mutant. Progress goes to
stderr, the result to stdout.

Statuses (a verdict rests on the test binary's events, never on its output):
` + report.StatusHelp() + `

With -generate the mutants come from the package's code, by operator, instead
of a catalog. Each runs only the tests that reach its site, the tests that
killed its neighbours and the fastest first, and stops at its first failing
test (-full runs every test to the end, as catalog mutants always do).
-min-score gates on the share detected instead of on every mutant.

A kill is confirmed: each test that failed under a mutant runs again, alone,
under it (it must fail again) and without it (it must pass); one that needs
the tests before it is tried in the grouping it failed in. A failure that does
not reproduce is flaky: named, never a kill, never cached. A mutant whose only
failures were flaky runs once more, and is flaky if again none reproduces.

Every test binary runs in a private copy of its package directory, with a
HOME and TMPDIR of its own, and on Linux in namespaces of its own: a private
/tmp, everything else read-only, its processes ended with it and blind to
others (MUTATE_NO_NAMESPACES=1 goes without). The source tree is checked
after every run, and the reference runs again after the mutants: a change
stops the run (exit 2). Results are cached: an unchanged tree is answered at
once (-no-cache runs again).

Exit codes: 0 every mutant killed or crashed; 1 some mutant survived or is
not covered, or skipped (with -min-score: the score is below it); 3 some mutant timed out
and none survived; 2 a usage, input or harness error, a mutant that does not
compile or whose tests are flaky.`

func run(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags]", runSummary)
	var mf mutantFlags
	mf.register(fs)
	var rf runFlags
	rf.register(fs)
	var out outputs
	out.register(fs)
	diff := fs.String("diff", "", "run only the mutants on lines changed since the git `ref` (and in files git does not track)")
	shard := fs.String("shard", "", "run only the k-th of n slices of the mutants, `k/n` (mutate merge joins the slices' -json results)")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return err
	}
	if *shard != "" {
		if _, _, err := parseShard(*shard); err != nil {
			return err
		}
	}
	if err := out.check(); err != nil {
		return err
	}
	rs, err := c.openRun(ctx, &mf, &rf)
	if err != nil {
		return err
	}
	defer rs.Close()
	if *diff != "" {
		before := rs.count()
		if err := rs.inDiff(ctx, *diff); err != nil {
			return err
		}
		fmt.Fprintf(c.stderr, "mutate: -diff %s: %d of %s on changed lines\n", *diff, rs.count(), text.Count(before, "mutant", "mutants"))
	}
	if err := rs.numberAndShard(*shard); err != nil {
		return err
	}
	rep, err := rs.run(ctx, mf.pkg)
	if err != nil {
		return err
	}
	src := func() (report.Sources, error) { return sourcesOf(rs.root, rep, docs(rs.sessions, rs.multi)) }
	return out.write(c, rep, src, func(id string) string { return showCommand(c, &mf, rs.multi, id) })
}

// showCommand returns the command that shows mutant id of a run: in a run
// of a pattern, its id is qualified by its package, which show names with
// -pkg.
func showCommand(c *call, mf *mutantFlags, multi bool, id string) string {
	if !multi {
		return c.command(mf, "show", id)
	}
	q, bare, _ := strings.Cut(id, ":")
	one := *mf
	one.pkg, one.only = "./"+q, ""
	if q == "." {
		one.pkg = "."
	}
	return c.command(&one, "show", bare)
}
