package command

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/text"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Answer is a command's Answer when it is not 0: the exit code of a run
// with a survivor (1) or a timeout (3), of a check with an inexact
// prediction (1), of a report out of date (1). It is not an error: the
// command has printed its result.
type Answer int

func (v Answer) Error() string { return fmt.Sprintf("exit status %d", int(v)) }

// errUsage marks an error whose message, and the command's usage, have
// been printed.
var errUsage = errors.New("usage")

// maxProblems is how many problems of the input files are printed; the
// rest are counted.
const maxProblems = 20

// ExitCode prints what a command returned, if anything is left to print,
// and maps it to the exit code (see report.ExitHelp): 0 for nothing, an
// answer's own code, and 2 for any error. An interrupt, at any moment,
// is the one message of harness.ErrInterrupted, whatever was running. A
// list of problems in input files is printed one per line, each at its
// file:line:col, the first maxProblems of each list; so is every list of
// errors joined (the problems of each file of a class). What an error
// quotes of an input never moves the terminal's cursor (see text.Prose).
func ExitCode(ctx context.Context, c *Call, err error) int {
	var v Answer
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return report.ExitKilled
	case errors.As(err, &v):
		return int(v)
	case ctx.Err() != nil || errors.Is(err, harness.ErrInterrupted):
		fmt.Fprintf(c.Stderr, "%s: %v\n", c.prefix(), harness.ErrInterrupted)
	case errors.Is(err, errUsage):
	case isProblems(err):
		n := 0
		for _, list := range problemLists(err) {
			for i, e := range list {
				if i == maxProblems {
					fmt.Fprintf(c.Stderr, "… and %d more\n", len(list)-maxProblems)
					break
				}
				fmt.Fprintln(c.Stderr, text.Prose(e.Error()))
			}
			n += len(list)
		}
		fmt.Fprintf(c.Stderr, "%s: %s\n", c.prefix(), text.Count(n, "problem", "problems"))
	default:
		fmt.Fprintf(c.Stderr, "%s: %s\n", c.prefix(), text.Prose(err.Error()))
	}
	return report.ExitError
}

// isProblems reports whether err is a list of problems in input files,
// or holds one among errors joined.
func isProblems(err error) bool {
	var list yamlfile.Errors
	return errors.As(err, &list)
}

// problemLists returns the lists of problems of err: err itself, or each
// error it joins, a list of its own when it is not one of problems.
func problemLists(err error) []yamlfile.Errors {
	if list, ok := err.(yamlfile.Errors); ok {
		return []yamlfile.Errors{list}
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		var list yamlfile.Errors
		if errors.As(err, &list) {
			return []yamlfile.Errors{list}
		}
		return []yamlfile.Errors{{err}}
	}
	var lists []yamlfile.Errors
	for _, e := range joined.Unwrap() {
		lists = append(lists, problemLists(e)...)
	}
	return lists
}

// Interrupted returns err, or harness.ErrInterrupted if ctx is done.
func Interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return harness.ErrInterrupted
	}
	return err
}
