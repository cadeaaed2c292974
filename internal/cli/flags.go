package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/suggest"
)

// newFlagSet returns the flag set of a command, whose usage is "Usage:
// go tool mutate NAME ARGS", the summary, and the flags.
func newFlagSet(c *call, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet("mutate "+c.name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go tool mutate %s %s\n\n%s\n\nFlags:\n", c.name, args, summary)
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

// usagef prints a usage error, the reason and then the command's usage,
// and returns errUsage.
func usagef(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "%s: %s\n\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return errUsage
}

// files is a flag that may be given many times.
type files []string

func (f *files) String() string     { return strings.Join(*f, ", ") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

// mutantFlags are the flags that choose the mutants and their package.
type mutantFlags struct {
	files    files
	pkg      string
	only     string
	generate bool
}

func (f *mutantFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.files, "mutants", "read the mutants of this YAML `file` (repeatable; default: the module's "+exercise.Catalog+")")
	fs.StringVar(&f.pkg, "pkg", "", "the `package` to mutate, as go names it here (default: the one the mutants files name, or the catalog)")
	fs.StringVar(&f.only, "only", "", "only these comma-separated mutant `ids`")
	fs.BoolVar(&f.generate, "generate", false, "generate the mutants from the package's code by operator, instead of reading a catalog")
}

// chosen is what mutantFlags chose: the mutants and where their package is.
type chosen struct {
	set     *exercise.Set      // nil for generated mutants
	all     []*mutation.Mutant // every mutant of the files
	mutants []*mutation.Mutant // those -only chooses; all without it
	dir     string             // where go names the package
	pkg     string             // the package, as go names it from dir
	written string             // the files' own package, when -pkg names another
	// For generated mutants, the package they were generated from.
	target *harness.Target
	source *mutation.Package
}

// load reads the mutants files of the module that holds the current
// directory, or generates the mutants of the package, and checks -only.
func (f *mutantFlags) load(ctx context.Context) (*chosen, error) {
	root, err := exercise.FindRoot(".")
	if err != nil {
		return nil, err
	}
	var ch *chosen
	if f.generate {
		if ch, err = f.generated(ctx, root); err != nil {
			return nil, err
		}
	} else if ch, err = f.read(root); err != nil {
		return nil, err
	}
	if f.only != "" {
		ch.mutants = nil
		for id := range strings.SplitSeq(f.only, ",") {
			m, err := lookup(ch.all, strings.TrimSpace(id))
			if err != nil {
				return nil, fmt.Errorf("-only: %w", err)
			}
			ch.mutants = append(ch.mutants, m)
		}
	}
	return ch, nil
}

// generated generates the mutants of the package -pkg names, or else the
// catalog's, or else the one in the current directory.
func (f *mutantFlags) generated(ctx context.Context, root string) (*chosen, error) {
	if len(f.files) > 0 {
		return nil, errors.New("-generate and -mutants exclude each other: the mutants come from the code, or from the files")
	}
	ch := &chosen{pkg: f.pkg}
	if ch.pkg == "" {
		ch.pkg = "."
		if cat, err := exercise.LoadFile(filepath.Join(root, filepath.FromSlash(exercise.Catalog))); err == nil && cat.Package != "" {
			ch.dir, ch.pkg = root, cat.Package
		}
	}
	t, err := harness.FindTarget(ctx, harness.Config{Dir: ch.dir, Package: ch.pkg})
	if err != nil {
		return nil, err
	}
	src, err := mutation.Load(t.Dir)
	if err != nil {
		return nil, err
	}
	ch.target, ch.source = t, src
	ch.all = src.Generate()
	if len(ch.all) == 0 {
		return nil, fmt.Errorf("package %s has no code that an operator applies to", t.Rel)
	}
	ch.mutants = ch.all
	return ch, nil
}

// read reads the mutants files, or the catalog.
func (f *mutantFlags) read(root string) (*chosen, error) {
	set, err := exercise.Load(root, f.files)
	if err != nil {
		return nil, err
	}
	ch := &chosen{set: set, all: set.Mutants, mutants: set.Mutants}
	switch {
	case f.pkg != "":
		ch.pkg = f.pkg
		if set.Package != "" && set.Package != f.pkg {
			ch.written = set.Package
		}
	case set.Package != "":
		ch.dir, ch.pkg = root, set.Package
	default:
		// A learner's own file of mutants for the module's exercise need
		// not say which package it mutates.
		if cat, err := exercise.LoadFile(filepath.Join(root, filepath.FromSlash(exercise.Catalog))); err == nil && cat.Package != "" {
			ch.dir, ch.pkg = root, cat.Package
		}
	}
	return ch, nil
}

// needPackage returns an error unless the package to mutate is known.
func (ch *chosen) needPackage() error {
	if ch.pkg == "" {
		var names []string
		for _, f := range ch.set.Files {
			names = append(names, f.Path)
		}
		return fmt.Errorf("no package to mutate: %s names none, and the module has no %s that does; add \"package: ./dir\" to it, or pass -pkg", strings.Join(names, ", "), exercise.Catalog)
	}
	return nil
}

// session is the chosen mutants applied to their package, ready to run:
// Close it when done.
type session struct {
	*chosen
	cfg harness.Config
	*harness.Prepared
}

// open loads the mutants that mf chooses (pick, if given, chooses among
// them then) and applies them to their package, with rf's settings. When
// -pkg names another package than the one the mutants are written for,
// and their targets are not there, it says so.
func (c *call) open(ctx context.Context, mf *mutantFlags, rf *runFlags, pick func(*chosen) error) (*session, error) {
	ch, err := mf.load(ctx)
	if err != nil {
		return nil, err
	}
	if err := ch.needPackage(); err != nil {
		return nil, err
	}
	if pick != nil {
		if err := pick(ch); err != nil {
			return nil, err
		}
	}
	cfg := rf.config(ch, c.stderr)
	p, err := harness.Prepare(ctx, cfg)
	if ch.written != "" && errors.Is(err, mutation.ErrUnknownTarget) {
		fmt.Fprintf(c.stderr, "mutate: the mutants are written for package %s, and -pkg names %s\n", ch.written, ch.pkg)
	}
	if err != nil {
		return nil, err
	}
	return &session{chosen: ch, cfg: cfg, Prepared: p}, nil
}

// lookup returns the mutant with id, or an error that suggests the
// closest id.
func lookup(ms []*mutation.Mutant, id string) (*mutation.Mutant, error) {
	ids := make([]string, len(ms))
	for i, m := range ms {
		if m.ID == id {
			return m, nil
		}
		ids[i] = m.ID
	}
	return nil, fmt.Errorf("no mutant %q%s (go tool mutate list shows them)", id, suggest.Hint(id, ids))
}

// command returns how mutate runs here, as a hint to print: "go tool
// mutate", the -C of the call, the command and the flags that chose the
// mutants, then args. It works as printed from where the user is.
func (c *call) command(f *mutantFlags, cmd string, args ...string) string {
	words := []string{"go", "tool", "mutate"}
	if c.dir != "" {
		words = append(words, "-C", c.dir)
	}
	if cmd != "" {
		words = append(words, cmd)
	}
	if f != nil {
		for _, file := range f.files {
			words = append(words, "-mutants", file)
		}
		if f.generate {
			words = append(words, "-generate")
		}
		if f.pkg != "" {
			words = append(words, "-pkg", f.pkg)
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

// runFlags are the flags of every command that runs mutants.
type runFlags struct {
	jobs    int
	timeout time.Duration
	mode    string
	noCache bool
	quiet   bool
	full    bool
}

func (rf *runFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&rf.jobs, "j", runtime.NumCPU(), "run `n` mutants at the same time")
	fs.DurationVar(&rf.timeout, "timeout", 0, fmt.Sprintf("limit for one mutant's test run (default: %d× the baseline's test run, plus %s)", harness.TimeoutFactor, harness.TimeoutSlack))
	fs.StringVar(&rf.mode, "mode", string(harness.ModeSwitch), "`switch`: one build holds every mutant; overlay: one build per mutant")
	fs.BoolVar(&rf.noCache, "no-cache", false, "run even if the results of an unchanged tree are cached")
	fs.BoolVar(&rf.quiet, "q", false, "print no progress on stderr")
	fs.BoolVar(&rf.full, "full", false, "run generated mutants like catalog ones: every test, to the end (not only the tests that reach the mutant, up to the first failure)")
}

func (rf *runFlags) check() error {
	if rf.jobs < 1 {
		return fmt.Errorf("-j %d: want at least 1", rf.jobs)
	}
	if rf.timeout < 0 {
		return fmt.Errorf("-timeout %s: want a positive duration", rf.timeout)
	}
	if _, err := harness.ParseMode(rf.mode); err != nil {
		return fmt.Errorf("-mode %s: want switch or overlay", rf.mode)
	}
	return nil
}

// config returns the harness's configuration of a run of ch's mutants.
func (rf *runFlags) config(ch *chosen, stderr io.Writer) harness.Config {
	return harness.Config{
		Dir: ch.dir, Package: ch.pkg, Mutants: ch.mutants, Target: ch.target, Source: ch.source,
		Mode: harness.Mode(rf.mode), Jobs: rf.jobs, Timeout: rf.timeout, NoCache: rf.noCache, Full: rf.full,
		Progress: progress.New(stderr, rf.quiet),
	}
}

// errExists is returned by checkOutput for a file that must not be
// overwritten.
var errExists = errors.New("exists")

// checkOutput checks, before anything runs, that a file can be written at
// path: its directory exists, or is made, and takes new files; and unless
// overwrite, nothing is there yet (errExists).
func checkOutput(path string, overwrite bool) error {
	if _, err := os.Stat(path); err == nil && !overwrite {
		return fmt.Errorf("%s %w", path, errExists)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	probe, err := os.CreateTemp(dir, ".mutate-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// writeFile writes what write writes to path.
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
