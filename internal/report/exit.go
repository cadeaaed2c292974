package report

import (
	"fmt"
	"strings"

	"github.com/fencelab/fencelab/internal/text"
)

// Exit codes of mutate, for every command; what each means, by command, is
// the table exitCodes.
const (
	ExitKilled   = 0 // run: every mutant killed
	ExitSurvived = 1 // run: some mutant survived, or no test reaches it
	ExitError    = 2 // usage, input or harness error, or a mutant that gives no verdict
	ExitTimeout  = 3 // run: some mutant timed out or ran out of memory, and none survived
)

// exitCode is what one exit code means, by command.
type exitCode struct {
	code               int
	run, check, report string
}

// exitCodes is the one place that says what each exit code means: the
// commands' help and the documentation are made from it.
var exitCodes = []exitCode{
	{ExitKilled, "every mutant killed (or crashed)", "every prediction in every file exact (with -partial, every prediction made)", "the document rewritten, or up to date"},
	{ExitSurvived, "some mutant survived, is not covered or skipped (with -min-score: the score is below it)", "some prediction differs, or a mutant is not answered (unless -partial)", "with -check, the document is out of date"},
	{ExitError, "a usage, input or harness error: bad flags or mutants file, a fragment that no longer matches the code, a red or flaky baseline, a mutant that does not compile or whose tests are flaky, a tree that changed, an interrupted run, a package of a pattern that could not run", "an invalid prediction file, or any error that run exits 2 for", "an error"},
	{ExitTimeout, "some mutant timed out or ran out of memory, and none survived", "", ""},
}

// ExitHelp returns what the exit codes of command (run, check, report,
// merge) mean, "0 …; 1 …"; list, show and template exit 0 or 2.
func ExitHelp(command string) string {
	var parts []string
	for _, e := range exitCodes {
		var what string
		switch command {
		case "run", "merge":
			what = e.run
		case "check":
			what = e.check
		case "report":
			what = e.report
		default:
			what = map[int]string{ExitKilled: "done", ExitError: "an error"}[e.code]
		}
		if what != "" {
			parts = append(parts, fmt.Sprintf("%d %s", e.code, what))
		}
	}
	return strings.Join(parts, "; ") + "."
}

// ExitReference returns what every exit code means for every command, as
// "mutate help exit-codes" prints it.
func ExitReference() string {
	var b strings.Builder
	for _, e := range exitCodes {
		if e.code != exitCodes[0].code {
			b.WriteString("\n")
		}
		for i, part := range []struct{ cmds, what string }{
			{"run, merge", e.run}, {"check", e.check}, {"report", e.report},
		} {
			if part.what == "" {
				continue
			}
			code := "  "
			if i == 0 {
				code = fmt.Sprintf("%d ", e.code)
			}
			b.WriteString(code + text.Wrap(part.cmds+": "+part.what, 78, "  ") + "\n")
		}
	}
	b.WriteString("\nlist, show, template and help exit 0, or 2 on an error. When a run's\n" +
		"mutants give several codes, 2 wins over 1, and 1 over 3.\n")
	return b.String()
}

// exitRank orders exit codes by which wins when a run's mutants give
// several: an error, then a survivor, then a timeout.
var exitRank = map[int]int{ExitKilled: 0, ExitTimeout: 1, ExitSurvived: 2, ExitError: 3}

// ExitCodeMinScore returns the exit code of a run gated on its mutation
// score instead of every mutant's fate: 2 for a mutant that gives no
// verdict on the suite (build-failed, flaky), 1 if the score is below
// min, and 0 otherwise (timeouts count as detected).
func (r *Report) ExitCodeMinScore(min float64) int {
	if r.ExitCode() == ExitError {
		return ExitError
	}
	if r.Summary().Score < min {
		return ExitSurvived
	}
	return ExitKilled
}

// ExitCode returns the exit code for the report: the weightiest of its
// mutants' statuses (see exitRank).
func (r *Report) ExitCode() int {
	if len(r.NotRun) > 0 || r.Interrupted {
		return ExitError
	}
	code := ExitKilled
	for st, n := range r.Summary().counts {
		if e := st.def().exit; n > 0 && exitRank[e] > exitRank[code] {
			code = e
		}
	}
	return code
}
