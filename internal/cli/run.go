package cli

import (
	"context"
	"errors"
)

const runSummary = `Run the unmutated suite (the baseline), then the suite once per mutant, and
print the kill matrix: which tests failed under each mutant. Progress goes to
stderr, the result to stdout.

Statuses (a verdict rests on the test binary's events, never on its output):
  killed        a test failed, or the test binary died while a test ran
                (that test is named, with how the binary ended)
  survived      every test of the baseline ran and passed: the suite cannot
                tell the mutant from the reference
  crashed       the binary ended before every test ran, with none failing and
                none running (an exit at init, in TestMain, between tests), or
                failed after every test passed: detected, but by no test
  timeout       the binary was still running at the limit and was stopped
                (10x the baseline's test run plus 5s, or -timeout)
  build-failed  the mutant is not valid Go: a defect of the mutant, never a kill

Every test binary runs in a private copy of its package directory, with a
HOME and TMPDIR of its own; the source tree is checked after every run, and
a change stops the run (exit 2). Results are cached: an unchanged tree is
answered at once (-no-cache runs again).

Exit codes: 0 every mutant killed or crashed; 1 some mutant survived; 3 some
mutant timed out and none survived; 2 a usage, input or harness error.`

func run(ctx context.Context, c *call, args []string) error {
	fs := newFlagSet(c, "[flags]", runSummary)
	var mf mutantFlags
	mf.register(fs)
	var rf runFlags
	rf.register(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON instead of the kill matrix")
	junit := fs.String("junit", "", "also write the result as JUnit XML to `file`")
	var files reportFiles
	fs.StringVar(&files.stryker, "stryker", "", "also write the result to `file` as JSON in the mutation-testing-report-schema (Stryker's)")
	fs.StringVar(&files.html, "html", "", "also write the result to `file` as a self-contained HTML report")
	github := fs.Bool("github", false, "also print GitHub Actions annotations for mutants not killed")
	verbose := fs.Bool("v", false, "print each failing test's message in the kill matrix")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return err
	}
	if *asJSON && *github {
		return errors.New("-json and -github both write to stdout: pick one (-junit FILE writes a file)")
	}
	if *junit != "" {
		if err := checkOutput(*junit, true); err != nil {
			return err
		}
	}
	if err := files.check(); err != nil {
		return err
	}
	s, err := c.open(ctx, &mf, &rf, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := s.Run(ctx, s.cfg)
	if err != nil {
		return err
	}
	if *github {
		if err := rep.WriteGitHub(c.stdout, func(id string) string { return c.command(&mf, "show", id) }); err != nil {
			return err
		}
	}
	if *asJSON {
		err = rep.WriteJSON(c.stdout)
	} else {
		err = rep.WriteText(c.stdout, *verbose)
	}
	if err != nil {
		return err
	}
	if *junit != "" {
		if err := writeFile(*junit, rep.WriteJUnit); err != nil {
			return err
		}
	}
	if err := files.write(s, rep); err != nil {
		return err
	}
	if code := rep.ExitCode(); code != exitOK {
		return verdict(code)
	}
	return nil
}
