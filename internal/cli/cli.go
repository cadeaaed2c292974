// Package cli implements the mutate command: it parses the flags of each
// command, hands the work to the packages that do it, prints, and maps
// what a command returns to the process's exit code. Each command is a
// file of its own.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/internal/text"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

const usage = `mutate applies faults (mutants) to a Go package as AST rewrites, runs its
test suite once per mutant, and reports which tests caught each one; it
compares that with the predictions a learner wrote beforehand.

Usage:
  go tool mutate [-C dir] <command> [flags]

Commands:
  list          print the mutants
  show ID...    print mutants as unified diffs, with step, contract and rationale
  run           run the suite against every mutant and print the kill matrix
  template      write a prediction file to fill in, with every mutant and test name
  check FILE... run the mutants and compare with the predictions in FILEs
  report        regenerate the generated parts of a report document from a run
  merge FILE... join the results of the shards of a run (run -shard k/n -json)
  help [CMD]    print this, or a command's usage and flags

The mutants are those of the module's mutants/catalog.yaml, or of the files
given with -mutants; each file names the package it mutates (-pkg
overrides). mutate works from any directory of the module.

Exit codes of run: 0 every mutant killed (or crashed); 1 some mutant
survived; 3 some mutant timed out, and none survived; 2 a usage, input or
harness error (a red or flaky baseline, a mutant that does not compile or
whose tests are flaky, a tree that changed, an interrupted run).
Exit codes of check: 0 every prediction exact; 1 some prediction differs;
2 an invalid prediction file, or any error that run exits 2 for.
Exit codes of report: 0 rewritten or up to date; 1 with -check, out of date.
list, show and template exit 0, or 2 on an error.
`

// call is one invocation of a command: where it prints, and what a
// printed hint must repeat to work as printed.
type call struct {
	name           string // the command
	stdout, stderr io.Writer
	dir            string // -C
}

// commands maps each command's name to the function that runs it.
var commands = map[string]func(ctx context.Context, c *call, args []string) error{
	"list":     list,
	"show":     show,
	"run":      run,
	"template": template,
	"check":    check,
	"report":   reportCmd,
	"merge":    merge,
}

// Main runs the mutate command with args (without the program name) and
// returns its exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	dir := fs.String("C", "", "run in `dir` instead of the current directory")
	if err := fs.Parse(args); err != nil {
		return exitCode(&call{name: "", stderr: stderr}, err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "mutate: no command given\n\n%s", usage)
		return exitError
	}
	if *dir != "" {
		if err := os.Chdir(*dir); err != nil {
			fmt.Fprintf(stderr, "mutate: -C: %v\n", err)
			return exitError
		}
	}
	c := &call{name: fs.Arg(0), stdout: stdout, stderr: stderr, dir: *dir}
	args = fs.Args()[1:]
	if c.name == "help" {
		return exitCode(c, help(ctx, c, args))
	}
	cmd, ok := commands[c.name]
	if !ok {
		fmt.Fprintf(stderr, "mutate: unknown command %q%s\n\n%s", c.name, suggest.Hint(c.name, commandNames()), usage)
		return exitError
	}
	return exitCode(c, cmd(ctx, c, args))
}

// help prints the usage, or with a command's name that command's usage
// and flags, to stdout.
func help(ctx context.Context, c *call, args []string) error {
	switch len(args) {
	case 0:
		fmt.Fprint(c.stdout, usage)
		return nil
	case 1:
		cmd, ok := commands[args[0]]
		if !ok {
			return fmt.Errorf("unknown command %q%s; the commands are: %s", args[0], suggest.Hint(args[0], commandNames()), strings.Join(commandNames(), ", "))
		}
		// A command asked for -h prints its usage to its stderr.
		return cmd(ctx, &call{name: args[0], stdout: c.stdout, stderr: c.stdout, dir: c.dir}, []string{"-h"})
	}
	return fmt.Errorf("give one command, not %d", len(args))
}

func commandNames() []string {
	return slices.Sorted(maps.Keys(commands))
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 2
)

// verdict is a command's answer when it is not 0: the exit code of a run
// with a survivor (1) or a timeout (3), of a check with an inexact
// prediction (1), of a report out of date (1). It is not an error: the
// command has printed its result.
type verdict int

func (v verdict) Error() string { return fmt.Sprintf("exit status %d", int(v)) }

// errUsage marks an error whose message, and the command's usage, have
// been printed.
var errUsage = errors.New("usage")

// maxProblems is how many problems of the input files are printed; the
// rest are counted.
const maxProblems = 20

// exitCode prints what a command returned, if anything is left to print,
// and maps it to the exit code: 0 for nothing, a verdict's own code, and 2
// for any error. A list of problems in input files is printed one per
// line, each at its file:line:col, the first maxProblems of them.
func exitCode(c *call, err error) int {
	var (
		v    verdict
		list yamlfile.Errors
	)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &v):
		return int(v)
	case errors.Is(err, errUsage):
	case errors.As(err, &list):
		for i, e := range list {
			if i == maxProblems {
				fmt.Fprintf(c.stderr, "… and %d more\n", len(list)-maxProblems)
				break
			}
			fmt.Fprintln(c.stderr, e)
		}
		fmt.Fprintf(c.stderr, "%s: %s\n", c.prefix(), text.Count(len(list), "problem", "problems"))
	default:
		fmt.Fprintf(c.stderr, "%s: %v\n", c.prefix(), err)
	}
	return exitError
}

// prefix starts the error messages of the call: "mutate run".
func (c *call) prefix() string {
	if c.name == "" {
		return "mutate"
	}
	return "mutate " + c.name
}
