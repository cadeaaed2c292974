// Package cli implements the mutate command.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/mutants"
)

// Exit codes, documented in usage.
const (
	exitOK    = report.ExitKilled
	exitError = report.ExitError
)

const usage = `mutate applies documented faults (mutants) to package lease as AST rewrites,
runs the test suite once per mutant, and reports which tests caught each.

Usage:
  mutate [-C dir] <command> [flags]

Commands:
  list          print the catalog of mutants
  show ID       print a mutant as a unified diff, with its step, contract and rationale
  run           run the suite against every mutant and print the kill matrix
  template      write a prediction file to fill in, with every mutant and test name
  check FILE... run the mutants and compare with the predictions in FILEs
  report        regenerate the generated parts of REPORT.md from a run

Run 'mutate <command> -h' for a command's flags.

Exit codes of run:
  0  every mutant was killed
  1  some mutant survived (no test failed under it)
  2  usage, input or harness error: bad flags, a mutant that no longer matches
     the code, a test suite that is red or flaky before any mutant runs, a
     mutant that does not compile, an interrupted run
  3  some mutant timed out, and none survived

Exit codes of check:
  0  every prediction in every file was exact
  1  some prediction differs from what failed
  2  an invalid prediction file (each error names file:line:col), or any
     error that run exits 2 for; nothing runs when a file is invalid

Exit codes of report: 0 the file was rewritten or is up to date; 1 with
-check, the file is out of date; 2 an error.

list, show and template exit 0, or 2 on an error.
`

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
a change stops the run (exit 2).

Exit codes: 0 every mutant killed or crashed; 1 some mutant survived; 3 some
mutant timed out and none survived; 2 a usage, input or harness error.`

// commands maps each command's name to the function that runs it. A
// command returns its exit code, and an error to print; see exitCode.
var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error){
	"list":     list,
	"show":     show,
	"run":      run,
	"template": template,
	"check":    check,
	"report":   reportCmd,
}

// Main runs the mutate command with args (without the program name) and
// returns its exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	dir := fs.String("C", "", "run in `dir` instead of the current directory")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitError
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
	name, rest := fs.Arg(0), fs.Args()[1:]
	if name == "help" {
		return help(ctx, rest, stdout, stderr)
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "mutate: unknown command %q%s\n\n%s", name, suggest.Hint(name, commandNames()), usage)
		return exitError
	}
	code, err := cmd(ctx, rest, stdout, stderr)
	return exitCode(name, code, err, stderr)
}

// help prints the usage, or with a command's name that command's usage
// and flags, to stdout.
func help(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		fmt.Fprint(stdout, usage)
		return exitOK
	case 1:
		if cmd, ok := commands[args[0]]; ok {
			// A command asked for -h prints its usage to its stderr.
			code, err := cmd(ctx, []string{"-h"}, stdout, stdout)
			return exitCode(args[0], code, err, stderr)
		}
		fmt.Fprintf(stderr, "mutate help: unknown command %q%s; the commands are: %s\n", args[0], suggest.Hint(args[0], commandNames()), strings.Join(commandNames(), ", "))
	default:
		fmt.Fprintf(stderr, "mutate help: give one command, not %d\n", len(args))
	}
	return exitError
}

func commandNames() []string {
	return slices.Sorted(maps.Keys(commands))
}

// maxProblems is how many problems of the input files are printed; the
// rest are counted.
const maxProblems = 20

// exitCode prints err, if any, and returns the exit code of command name.
// A usage error has already been printed by the flag set; a list of
// problems in input files is printed one per line, each with its
// file:line:col.
func exitCode(name string, code int, err error, stderr io.Writer) int {
	if err == nil {
		return code
	}
	var list predict.Errors
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
	case errors.As(err, &list):
		for i, e := range list {
			if i == maxProblems {
				fmt.Fprintf(stderr, "… and %d more\n", len(list)-maxProblems)
				break
			}
			fmt.Fprintln(stderr, e)
		}
		fmt.Fprintf(stderr, "mutate %s: %d %s in the prediction files\n", name, len(list), plural(len(list), "problem", "problems"))
	default:
		fmt.Fprintf(stderr, "mutate %s: %v\n", name, err)
	}
	if code != exitOK {
		return code
	}
	return exitError
}

// errUsage marks an error whose message, and the command's usage, have
// been printed.
var errUsage = errors.New("usage")

// mutantFlags are the flags that choose the mutants and their package.
type mutantFlags struct {
	pkg     string
	file    string
	catalog bool
	only    string
}

func (f *mutantFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.pkg, "pkg", "./lease", "the `package` to mutate")
	fs.StringVar(&f.file, "mutants", "", "also read mutants from this YAML `file`")
	fs.BoolVar(&f.catalog, "catalog", true, "include the built-in catalog")
	fs.StringVar(&f.only, "only", "", "run only these comma-separated mutant `ids`")
}

// load returns the chosen mutants in order: the catalog, then the file's.
func (f *mutantFlags) load() ([]*mutants.Mutant, error) {
	_, chosen, err := f.loadAll()
	return chosen, err
}

// loadAll returns every mutant the flags make known, and those of them
// that -only chooses (all of them without it).
func (f *mutantFlags) loadAll() (all, chosen []*mutants.Mutant, err error) {
	if f.catalog {
		all = mutants.Catalog()
	}
	if f.file != "" {
		extra, err := mutants.LoadFile(f.file)
		if err != nil {
			return nil, nil, err
		}
		if all, err = mutants.Combine(all, extra); err != nil {
			return nil, nil, err
		}
	}
	if len(all) == 0 {
		return nil, nil, errors.New("no mutants: -catalog=false needs -mutants FILE")
	}
	if f.only == "" {
		return all, all, nil
	}
	for id := range strings.SplitSeq(f.only, ",") {
		m, err := mutants.Lookup(all, strings.TrimSpace(id))
		if err != nil {
			return nil, nil, err
		}
		chosen = append(chosen, m)
	}
	return all, chosen, nil
}

// newFlagSet returns the flag set of a command, whose usage line is
// "mutate NAME ARGS" followed by summary and the flags.
func newFlagSet(name, args, summary string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("mutate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mutate %s %s\n\n%s\n\nFlags:\n", name, args, summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args. A bad flag has been printed with the usage by the
// flag package; the error says so.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// usagef prints a usage error, the reason and then the command's usage,
// and returns errUsage.
func usagef(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "%s: %s\n\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return errUsage
}

// parseFlagsOnly parses args, which must hold flags and nothing else.
func parseFlagsOnly(fs *flag.FlagSet, args []string) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef(fs, "unexpected argument %q (this command takes flags only)", fs.Arg(0))
	}
	return nil
}

func list(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("list", "[flags]", "Print the mutants: step, id, target, kind and title.", stderr)
	var mf mutantFlags
	mf.register(fs)
	if err := parseFlagsOnly(fs, args); err != nil {
		return exitError, err
	}
	ms, err := mf.load()
	if err != nil {
		return exitError, err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tID\tTARGET\tKIND\tTITLE")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", stepText(m.Step), m.ID, m.Target, m.Kind, m.Title)
	}
	return exitOK, tw.Flush()
}

func show(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("show", "[flags] ID...", "Print each mutant's step, contract and rationale, and the mutant as a unified diff.", stderr)
	var mf mutantFlags
	mf.register(fs)
	if err := parse(fs, args); err != nil {
		return exitError, err
	}
	if fs.NArg() == 0 {
		return exitError, usagef(fs, "no mutant id given (mutate list shows them)")
	}
	all, err := mf.load()
	if err != nil {
		return exitError, err
	}
	var ms []*mutants.Mutant
	for _, id := range fs.Args() {
		m, err := mutants.Lookup(all, id)
		if err != nil {
			return exitError, err
		}
		ms = append(ms, m)
	}
	p, err := harness.Prepare(ctx, harness.Config{Package: mf.pkg, Mutants: ms, Progress: progress.New(stderr, false)})
	if err != nil {
		return exitError, err
	}
	defer p.Close()
	for i, a := range p.Applied {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		m := a.Mutant
		file := p.RelFile(a)
		fmt.Fprintf(stdout, "%s (step %s): %s\n\n", m.ID, stepText(m.Step), m.Title)
		field(stdout, "contract", m.Contract)
		field(stdout, "rationale", m.Rationale)
		field(stdout, "seed", m.Seed)
		field(stdout, "rewrite", fmt.Sprintf("%s `%s` -> `%s` in %s (%s:%d)", m.Kind, oneLine(m.Find), oneLine(m.Replace), m.Target, file, a.Line))
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, a.Diff(file))
	}
	return exitOK, nil
}

func field(w io.Writer, name, value string) {
	if value != "" {
		fmt.Fprintf(w, "%-10s %s\n", name+":", value)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("run", "[flags]", runSummary, stderr)
	var mf mutantFlags
	mf.register(fs)
	var rf runFlags
	rf.register(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON instead of the kill matrix")
	junit := fs.String("junit", "", "also write the result as JUnit XML to `file`")
	github := fs.Bool("github", false, "also print GitHub Actions annotations for mutants not killed")
	verbose := fs.Bool("v", false, "print each failing test's message in the kill matrix")
	if err := parseFlagsOnly(fs, args); err != nil {
		return exitError, err
	}
	if err := rf.check(); err != nil {
		return exitError, err
	}
	if *asJSON && *github {
		return exitError, errors.New("-json and -github both write to stdout: pick one (-junit FILE writes a file)")
	}
	if *junit != "" {
		if err := checkOutput(*junit, true); err != nil {
			return exitError, err
		}
	}
	ms, err := mf.load()
	if err != nil {
		return exitError, err
	}
	cfg := rf.config("", mf.pkg, ms, stderr)
	p, err := harness.Prepare(ctx, cfg)
	if err != nil {
		return exitError, err
	}
	defer p.Close()
	rep, err := rf.runAll(ctx, cfg, p)
	if err != nil {
		return exitError, err
	}
	if *github {
		if err := rep.WriteGitHub(stdout); err != nil {
			return exitError, err
		}
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout, *verbose)
	}
	if err != nil {
		return exitError, err
	}
	if *junit != "" {
		if err := writeFile(*junit, rep.WriteJUnit); err != nil {
			return exitError, err
		}
	}
	return rep.ExitCode(), nil
}

// errExists is returned by checkOutput for a file that must not be
// overwritten.
var errExists = errors.New("exists")

// checkOutput checks, before anything runs, that a file can be written at
// path: its directory exists and takes new files, and unless overwrite,
// nothing is there yet (errExists).
func checkOutput(path string, overwrite bool) error {
	if _, err := os.Stat(path); err == nil && !overwrite {
		return fmt.Errorf("%s %w", path, errExists)
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".mutate-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func stepText(step int) string {
	if step == 0 {
		return "-"
	}
	return fmt.Sprint(step)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 50 {
		s = s[:47] + "..."
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
