package gotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Command is one `go test` run of one package.
type Command struct {
	Go      string        // the go command; "go" if empty
	Dir     string        // where to run it: the module root
	Package string        // the package pattern, such as "./lease"
	Flags   []string      // extra flags before the package, such as -overlay=F
	Env     []string      // extra environment variables, KEY=VALUE
	Timeout time.Duration // kill the whole run after this long; 0 for no limit
}

// goCommand returns the go command of c with args, then c's flags, then
// its package.
func (c Command) goCommand(ctx context.Context, args ...string) *exec.Cmd {
	goCmd := c.Go
	if goCmd == "" {
		goCmd = "go"
	}
	args = append(append(args, c.Flags...), c.Package)
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	return cmd
}

// run is one finished execution of a command that prints go test -json
// events.
type run struct {
	res    *Result
	wall   time.Duration
	failed bool   // it exited with a status other than 0
	stderr string // what it wrote to stderr
}

// execute runs the command that newCmd makes in a process group of its
// own, killed when ctx is done or timeout passes, and parses its events. A
// run killed by the timeout returns its partial result with TimedOut set.
// An error means that the command did not run as asked.
func execute(ctx context.Context, timeout time.Duration, newCmd func(context.Context) *exec.Cmd) (*run, error) {
	runCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := newCmd(runCtx)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	killGroup(cmd)
	start := time.Now()
	err := cmd.Run()
	r := &run{wall: time.Since(start), stderr: stderr.String()}
	if runCtx.Err() != nil {
		reapGroup(cmd)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if r.res, err = parseAfter(&stdout, err); err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	if runCtx.Err() != nil {
		r.res.TimedOut = true
		return r, nil
	}
	r.failed = err != nil
	return r, nil
}

// parseAfter parses the events of a command that ended with runErr; an
// exit status is not an error, a command that could not run is.
func parseAfter(stdout *bytes.Buffer, runErr error) (*Result, error) {
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return nil, runErr
	}
	return Parse(stdout)
}

// Run runs `go test -json -count=1` as c says and parses its events. The
// run is killed, with every process it started, when ctx is done or the
// timeout passes; a run killed by the timeout returns its partial result
// with TimedOut set. Failing tests are not an error: an error means the
// run itself did not happen as asked.
func Run(ctx context.Context, c Command) (*Result, time.Duration, error) {
	var cmdline string
	r, err := execute(ctx, c.Timeout, func(ctx context.Context) *exec.Cmd {
		cmd := c.goCommand(ctx, "test", "-json", "-count=1")
		cmdline = strings.Join(cmd.Args, " ")
		return cmd
	})
	if err != nil {
		return nil, 0, err
	}
	res := r.res
	if !res.TimedOut && (res.SetupFailed || r.failed && len(res.Tests) == 0 && !res.BuildFailed && res.Output == "") {
		// go test failed before building the package: a bad flag, a
		// package that does not exist, a module that cannot load.
		return nil, r.wall, fmt.Errorf("%s: %s", cmdline, strings.TrimSpace(res.BuildOutput+r.stderr))
	}
	if res.BuildFailed && res.BuildOutput == "" {
		res.BuildOutput = r.stderr
	}
	return res, r.wall, nil
}

// Binary is one run of a compiled test binary.
type Binary struct {
	Go         string        // the go command, for go tool test2json; "go" if empty
	Path       string        // the test binary
	Dir        string        // the package's directory, where go test would run it
	ImportPath string        // the package, as test2json reports it
	Env        []string      // extra environment variables, KEY=VALUE
	Timeout    time.Duration // the binary's own -test.timeout; ours is a little longer
}

// RunBinary runs a test binary through test2json, so that its events are
// those of go test -json, and parses them. Like Run, it kills the process
// group when ctx is done or the timeout passes.
func RunBinary(ctx context.Context, b Binary) (*Result, time.Duration, error) {
	goCmd := b.Go
	if goCmd == "" {
		goCmd = "go"
	}
	args := []string{"tool", "test2json", "-t", "-p", b.ImportPath, b.Path,
		"-test.v=test2json", "-test.count=1", "-test.paniconexit0"}
	var timeout time.Duration
	if b.Timeout > 0 {
		// The binary's own alarm fires first, with a stack dump.
		args = append(args, "-test.timeout="+b.Timeout.String())
		timeout = b.Timeout + 30*time.Second
	}
	r, err := execute(ctx, timeout, func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Dir = b.Dir
		cmd.Env = append(os.Environ(), b.Env...)
		return cmd
	})
	if err != nil {
		return nil, 0, err
	}
	if r.failed && len(r.res.Tests) == 0 && r.res.Output == "" {
		return nil, r.wall, fmt.Errorf("%s tool test2json %s: %s", goCmd, b.Path, strings.TrimSpace(r.stderr))
	}
	return r.res, r.wall, nil
}

// List returns the names of the top-level tests, examples and fuzz tests
// of c's package, as go test -list reports them, without running them.
func List(ctx context.Context, c Command) ([]string, error) {
	cmd := c.goCommand(ctx, "test", "-list", ".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(string(out)+stderr.String()))
	}
	var names []string
	for line := range strings.Lines(string(out)) {
		name := strings.TrimSpace(line)
		for _, prefix := range []string{"Test", "Example", "Fuzz"} {
			if strings.HasPrefix(name, prefix) && !strings.ContainsAny(name, " \t") {
				names = append(names, name)
				break
			}
		}
	}
	slices.Sort(names)
	return names, nil
}

// Build compiles the test binary of c's package to out, without running
// it, and returns the compiler's messages when it fails.
func Build(ctx context.Context, c Command, out string) (string, error) {
	cmd := c.goCommand(ctx, "test", "-c", "-o", out)
	killGroup(cmd)
	msgs, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return string(msgs), err
}
