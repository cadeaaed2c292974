package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/internal/text"
)

// NewFlagSet returns the flag set of a command, whose usage is "Usage:
// go tool mutate NAME ARGS", the summary, and the flags.
func NewFlagSet(c *Call, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet("mutate "+c.Name, flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go tool mutate %s %s\n\n%s\n\nFlags:\n", c.Name, args, summary)
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses args. A bad flag is a usage error that names the closest
// flag there is.
func Parse(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
	hint := ""
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
		hint = suggest.Hint(name, names)
	}
	return Usagef(fs, "%v%s", err, hint)
}

// ParseFlagsOnly parses args, which must hold flags and nothing else.
func ParseFlagsOnly(fs *flag.FlagSet, args []string) error {
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef(fs, "unexpected argument %q (this command takes flags only)", fs.Arg(0))
	}
	return nil
}

// Usagef prints a usage error, the reason and then the command's usage,
// and returns errUsage.
func Usagef(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "%s: %s\n\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return errUsage
}

// Files is a flag that may be given many times.
type Files []string

func (f *Files) String() string     { return strings.Join(*f, ", ") }
func (f *Files) Set(v string) error { *f = append(*f, v); return nil }

// Selection are the flags that choose the mutants: those of every command,
// and with narrow, -diff and -shard.
type Selection struct {
	Files       Files
	Pkg, Only   string
	Generate    bool
	diff, shard string
}

func (s *Selection) Register(fs *flag.FlagSet, narrow bool) {
	fs.Var(&s.Files, "mutants", "read the mutants of this YAML `file` (repeatable; default: the module's "+exercise.Catalog+")")
	fs.StringVar(&s.Pkg, "pkg", "", "the `package` to mutate, as go names it here (default: the one the mutants files name, or the catalog); with -generate, a pattern such as ./...")
	fs.StringVar(&s.Only, "only", "", "only these comma-separated mutant `ids`")
	fs.BoolVar(&s.Generate, "generate", false, "generate the mutants from the package's code by operator, instead of reading a catalog")
	if narrow {
		fs.StringVar(&s.diff, "diff", "", "only the mutants on lines changed since the git `ref` (and in files git does not track)")
		fs.StringVar(&s.shard, "shard", "", "only the k-th of n slices of the mutants, `k/n` (mutate merge joins the slices' -json results)")
	}
}

// Of returns the selection to hand to exercise.
func (s *Selection) Of(pr *progress.Reporter) exercise.Selection {
	sel := exercise.Selection{Files: s.Files, Pkg: s.Pkg, Generate: s.Generate, Diff: s.diff, Shard: s.shard, Progress: pr}
	if s.Only != "" {
		sel.Only = strings.Split(s.Only, ",")
	}
	return sel
}

// SelectPlan selects the mutants of s, applied, and says on stderr what the
// selection left out.
func (c *Call) SelectPlan(ctx context.Context, s *Selection, pr *progress.Reporter) (*exercise.Plan, error) {
	plan, err := c.Eng.Select(ctx, s.Of(pr))
	if err != nil {
		return nil, Interrupted(ctx, err)
	}
	for _, note := range plan.Notes {
		fmt.Fprintf(c.Stderr, "mutate: %s\n", note)
	}
	return plan, nil
}

// Command returns how mutate runs here, as a hint to print: "go tool
// mutate", the -C of the call, the Command and the flags that chose the
// mutants, then args. It works as printed from where the user is.
func (c *Call) Command(s *Selection, cmd string, args ...string) string {
	words := []string{"go", "tool", "mutate"}
	if c.Dir != "" {
		words = append(words, "-C", c.Dir)
	}
	if cmd != "" {
		words = append(words, cmd)
	}
	if s != nil {
		for _, file := range s.Files {
			words = append(words, "-mutants", file)
		}
		if s.Generate {
			words = append(words, "-generate")
		}
		if s.Pkg != "" {
			words = append(words, "-pkg", s.Pkg)
		}
	}
	words = append(words, args...)
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n'\"$`\\*?[]{}()<>|&;#~") {
			words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// ShowCommand returns the command that shows mutant id of a run: in a run
// of a pattern, its id is qualified by its package, which show names with
// -pkg.
func (c *Call) ShowCommand(s *Selection, multi bool, id string) string {
	if !multi {
		return c.Command(s, "show", id)
	}
	q, bare, _ := strings.Cut(id, ":")
	one := *s
	one.Pkg, one.Only = "./"+q, ""
	if q == "." {
		one.Pkg = "."
	}
	return c.Command(&one, "show", bare)
}

// RunFlags are the flags of every command that runs mutants.
type RunFlags struct {
	Jobs    int
	timeout time.Duration
	mode    string
	NoCache bool
	Quiet   bool
	Full    bool
	noTCE   bool
	SandboxFlags
}

// SandboxFlags are the flags of every command that runs test binaries:
// how their sandboxes bound them.
type SandboxFlags struct {
	memory  memoryFlag
	network bool
	binds   Files
	// sandbox is what the test binaries run in: -sandbox, or none with
	// -no-sandbox.
	sandbox   string
	noSandbox bool
}

func (sf *SandboxFlags) Register(fs *flag.FlagSet) {
	fs.Var(&sf.memory, "memory", fmt.Sprintf("limit of what one test binary, with what it starts, may hold in memory: a `size` such as 2GiB, or off (default: %d× the baseline's peak, at least %s; Linux only)", harness.MemoryFactor, text.Bytes(harness.MemoryFloor)))
	fs.BoolVar(&sf.network, "network", false, "let test binaries use the host's network (default: none of it: in namespaces each has a network of its own with only a loopback interface, in Landlock no network at all)")
	fs.Var(&sf.binds, "bind", "let each sandbox hold the host's directory `dir` too, read-only, for a suite that reads it (repeatable; every output says so)")
	fs.StringVar(&sf.sandbox, "sandbox", "auto", "what test binaries run in: `auto` (the strongest sandbox this host allows: namespaces, else landlock), namespaces, landlock, or none (as you: reduced isolation, nothing cached; for your own code where there is no sandbox)")
	fs.BoolVar(&sf.noSandbox, "no-sandbox", false, "the same as -sandbox=none")
}

// Choice returns the sandbox that the flags choose.
func (sf *SandboxFlags) Choice() harness.Sandbox {
	if sf.noSandbox {
		return harness.SandboxNone
	}
	s, _ := harness.ParseSandbox(sf.sandbox) // checked by check
	return s
}

// Check checks the directories of -bind, each a directory of the host,
// and makes their paths absolute; a sandbox it goes in is needed.
func (sf *SandboxFlags) Check() error {
	if _, err := harness.ParseSandbox(sf.sandbox); err != nil {
		return fmt.Errorf("-sandbox: %w", err)
	}
	if sf.noSandbox && sf.sandbox != "auto" && sf.sandbox != string(harness.SandboxNone) {
		return fmt.Errorf("-no-sandbox runs without a sandbox, and -sandbox=%s in one: choose one", sf.sandbox)
	}
	if len(sf.binds) > 0 && sf.Choice() == harness.SandboxNone {
		return errors.New("-bind gives sandboxes a directory of the host, and -sandbox=none runs without: choose one")
	}
	for i, dir := range sf.binds {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("-bind %s: %w", dir, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("-bind %s: %w", dir, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("-bind %s: not a directory", dir)
		}
		sf.binds[i] = abs
	}
	return nil
}

// memoryFlag is a size in bytes, such as 2GiB or 512MB; off is -1, and
// unset 0.
type memoryFlag int64

func (m *memoryFlag) String() string {
	switch {
	case *m < 0:
		return "off"
	case *m == 0:
		return ""
	}
	return text.Bytes(int64(*m))
}

func (m *memoryFlag) Set(v string) error {
	if v == "off" || v == "0" {
		*m = -1
		return nil
	}
	n, err := humanize.ParseBytes(v)
	if err != nil || n == 0 || n > math.MaxInt64 {
		return fmt.Errorf("want a size such as 2GiB or 512MiB, or off")
	}
	*m = memoryFlag(n)
	return nil
}

func (rf *RunFlags) Register(fs *flag.FlagSet) {
	rf.RegisterAllButFull(fs)
	fs.BoolVar(&rf.Full, "full", false, "run generated mutants like catalog ones: every test, to the end (not only the tests that reach the mutant, up to the first failure)")
}

// RegisterAllButFull registers the flags of a command that always runs
// its mutants to the end.
func (rf *RunFlags) RegisterAllButFull(fs *flag.FlagSet) {
	fs.IntVar(&rf.Jobs, "j", 2*runtime.NumCPU(), "run `n` mutants at the same time (twice the CPUs: a mutant's run often waits, on a lock or a limit)")
	fs.DurationVar(&rf.timeout, "timeout", 0, fmt.Sprintf("limit for one mutant's test run, the only one when set (default: %d× the baseline's test run, plus %s, and on Linux a limit of CPU time: see help statuses)", harness.TimeoutFactor, harness.TimeoutSlack))
	fs.StringVar(&rf.mode, "mode", string(harness.ModeSwitch), "`switch`: one build holds every mutant; overlay: one build per mutant")
	fs.BoolVar(&rf.NoCache, "no-cache", false, "run even if the results of an unchanged tree are cached")
	fs.BoolVar(&rf.Quiet, "q", false, "print no progress on stderr")
	rf.SandboxFlags.Register(fs)
	fs.BoolVar(&rf.noTCE, "no-tce", false, "do not compile the generated mutants to find those the compiler makes equivalent to the code or to each other (with -full, every mutant before the run; else those no test killed, after it)")
}

func (rf *RunFlags) Check() error {
	if err := rf.SandboxFlags.Check(); err != nil {
		return err
	}
	if rf.Jobs < 1 {
		return fmt.Errorf("-j %d: want at least 1", rf.Jobs)
	}
	if rf.timeout < 0 {
		return fmt.Errorf("-timeout %s: want a positive duration", rf.timeout)
	}
	if _, err := harness.ParseMode(rf.mode); err != nil {
		return fmt.Errorf("-mode %s: want switch or overlay", rf.mode)
	}
	return nil
}

// Options returns the harness's Options of c's run, progress on stderr.
func (rf *RunFlags) Options(c *Call, pr *progress.Reporter) harness.Options {
	return harness.Options{
		Mode: harness.Mode(rf.mode), Jobs: rf.Jobs, Timeout: rf.timeout, NoCache: rf.NoCache, Full: rf.Full, NoTCE: rf.noTCE, Progress: pr,
		Memory: int64(rf.memory), Network: rf.network, Binds: rf.binds, Sandbox: rf.Choice(), Started: c.Started,
	}
}

// WriteFile writes what write writes to path, and says so on stderr.
func (c *Call) WriteFile(path, what string, write func(io.Writer) error) error {
	if err := writeOut(path, write); err != nil {
		return err
	}
	fmt.Fprintf(c.Stderr, "mutate: wrote %s; %s\n", path, what)
	return nil
}
