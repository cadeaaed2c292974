// Package cli implements the mutate command: Main finds the command that
// its arguments name and runs it. Every command parses its flags, selects
// its mutants (exercise.Select), runs them (harness.Run), writes the
// report, and returns what package command maps to an exit code. The
// commands of a run (run, list, show, template, report, merge, draft) are
// here, a file each; those of a course (check, handout) are package
// course's.
package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/command"
	"github.com/fencelab/fencelab/internal/course"
	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/internal/testgrade"
)

var usage = `mutate applies faults (mutants) to a Go package as AST rewrites, runs its
test suite once per mutant, and reports which tests caught each one; it
compares that with the predictions a learner wrote beforehand.

Usage:
  go tool mutate [-C dir] <command> [flags]

Commands:
  list          print the mutants
  show ID...    print mutants as unified diffs, with step, contract and rationale
  run           run the suite against every mutant and print the kill matrix
  template      write a prediction file to fill in, with every mutant and test name
  check FILE... run the mutants and compare with the predictions in FILEs,
                or grade learners' test files (FILE_test.go) against them
  report        regenerate the generated parts of a report document from a run
  merge FILE... join the results of the shards of a run (run -shard k/n -json)
  draft         write a catalog draft for a package: its dominator mutants
  handout       write the repository learners get: the exercise without its answers
  help [CMD]    print this, or a command's usage and flags; help statuses,
                help exit-codes and help operators say what each status, exit
                code and operator of -generate means

The mutants are those of the module's mutants/catalog.yaml, or of the files
given with -mutants; each file names the package it mutates (-pkg
overrides). mutate works from any directory of the module.
`

// defaultEngine is the engine of the mutate command: exercise.Select,
// harness.Run and harness.TestNames, the export data go builds, and a
// learner's file type-checked in a process of its own. Tests replace it
// with fakes.
var defaultEngine = testgrade.Engine{Select: exercise.Select, Run: harness.Run, Baseline: harness.TestNames, Exports: exportFiles, Check: testgrade.CheckBounded}

// exportFiles returns the export data that go builds for the packages at
// paths in the module at dir.
func exportFiles(ctx context.Context, dir string, paths []string) (map[string]string, error) {
	return gotest.ExportFiles(ctx, dir, paths...)
}

// commands maps each command's name to the function that runs it.
var commands = map[string]func(ctx context.Context, c *command.Call, args []string) error{
	"list":     list,
	"show":     show,
	"run":      run,
	"template": template,
	"check":    course.Check,
	"report":   reportCmd,
	"merge":    merge,
	"draft":    draft,
	"handout":  course.Handout,
}

// Main runs the mutate command with args (without the program name) and
// returns its exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return mainWith(ctx, defaultEngine, args, stdout, stderr)
}

// mainWith is Main with the engine eng.
func mainWith(ctx context.Context, eng testgrade.Engine, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	dir := fs.String("C", "", "run in `dir` instead of the current directory")
	if err := fs.Parse(args); err != nil {
		return command.ExitCode(ctx, &command.Call{Name: "", Stderr: stderr}, err)
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "mutate: no command given\n\n%s", usage)
		return report.ExitError
	}
	if *dir != "" {
		if err := os.Chdir(*dir); err != nil {
			fmt.Fprintf(stderr, "mutate: -C: %v\n", err)
			return report.ExitError
		}
	}
	c := &command.Call{Name: fs.Arg(0), Stdout: stdout, Stderr: stderr, Dir: *dir, Started: time.Now(), Eng: eng}
	args = fs.Args()[1:]
	if c.Name == "help" {
		return command.ExitCode(ctx, c, help(ctx, c, args))
	}
	cmd, ok := commands[c.Name]
	if !ok {
		fmt.Fprintf(stderr, "mutate: unknown command %q%s\n\n%s", c.Name, suggest.Hint(c.Name, commandNames()), usage)
		return report.ExitError
	}
	return command.ExitCode(ctx, c, cmd(ctx, c, args))
}

// topics are the help pages that are not a command's.
var topics = map[string]func() string{
	"statuses":   report.StatusReference,
	"exit-codes": report.ExitReference,
	"operators": func() string {
		return "The operators of -generate, each with the rewrite it makes:\n\n" + mutation.OperatorHelp() +
			"\nThe operators on expressions (boundary to logical) rewrite the values of\nconstants too, at the top level and in functions. A //mutate:ignore\ncomment on a line, or in a function's or a declaration's doc comment,\nkeeps them off it.\n"
	},
}

// help prints the usage, or with a command's name that command's usage
// and flags, or a topic, to stdout.
func help(ctx context.Context, c *command.Call, args []string) error {
	switch len(args) {
	case 0:
		fmt.Fprint(c.Stdout, usage)
		return nil
	case 1:
		if topic, ok := topics[args[0]]; ok {
			fmt.Fprint(c.Stdout, topic())
			return nil
		}
		cmd, ok := commands[args[0]]
		if !ok {
			names := append(commandNames(), slices.Sorted(maps.Keys(topics))...)
			return fmt.Errorf("unknown command or topic %q%s; there are: %s", args[0], suggest.Hint(args[0], names), strings.Join(names, ", "))
		}
		// A command asked for -h prints its usage to its stderr.
		return cmd(ctx, &command.Call{Name: args[0], Stdout: c.Stdout, Stderr: c.Stdout, Dir: c.Dir, Eng: c.Eng}, []string{"-h"})
	}
	return fmt.Errorf("give one command, not %d", len(args))
}

func commandNames() []string {
	return slices.Sorted(maps.Keys(commands))
}
