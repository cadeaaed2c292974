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

// Command is one `go test -json` run of one package.
type Command struct {
	Go      string        // the go command; "go" if empty
	Dir     string        // where to run it: the module root
	Package string        // the package pattern, such as "./lease"
	Flags   []string      // extra flags before the package, such as -overlay=F
	Env     []string      // extra environment variables, KEY=VALUE
	Timeout time.Duration // kill the whole run after this long; 0 for no limit
}

// Run runs c and parses its events. The run is killed, with every process
// it started, when ctx is done or the timeout passes; a run killed by the
// timeout returns its partial result with TimedOut set. Failing tests are
// not an error: an error means the run itself did not happen as asked.
func Run(ctx context.Context, c Command) (*Result, time.Duration, error) {
	goCmd := c.Go
	if goCmd == "" {
		goCmd = "go"
	}
	runCtx := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	args := append([]string{"test", "-json", "-count=1"}, c.Flags...)
	args = append(args, c.Package)
	cmd := exec.CommandContext(runCtx, goCmd, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	killGroup(cmd)
	start := time.Now()
	runErr := cmd.Run()
	wall := time.Since(start)
	if runCtx.Err() != nil {
		reapGroup(cmd)
	}

	if ctx.Err() != nil {
		return nil, wall, ctx.Err()
	}
	res, err := Parse(&stdout)
	if err != nil {
		return nil, wall, err
	}
	if runCtx.Err() != nil {
		res.TimedOut = true
		return res, wall, nil
	}
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return nil, wall, fmt.Errorf("%s test: %w", goCmd, runErr)
	}
	if res.SetupFailed || runErr != nil && len(res.Tests) == 0 && !res.BuildFailed && res.Output == "" {
		// go test failed before building the package: a bad flag, a
		// package that does not exist, a module that cannot load.
		msg := strings.TrimSpace(res.BuildOutput + stderr.String())
		return nil, wall, fmt.Errorf("%s %s: %s", goCmd, strings.Join(args, " "), msg)
	}
	if res.BuildFailed && res.BuildOutput == "" {
		res.BuildOutput = stderr.String()
	}
	return res, wall, nil
}

// List returns the names of the top-level tests, examples and fuzz tests
// of c's package, as go test -list reports them, without running them.
func List(ctx context.Context, c Command) ([]string, error) {
	goCmd := c.Go
	if goCmd == "" {
		goCmd = "go"
	}
	args := append([]string{"test", "-list", "."}, c.Flags...)
	args = append(args, c.Package)
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", goCmd, strings.Join(args, " "), err, strings.TrimSpace(string(out)+stderr.String()))
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
	goCmd := c.Go
	if goCmd == "" {
		goCmd = "go"
	}
	args := append([]string{"test", "-c", "-o", out}, c.Flags...)
	args = append(args, c.Package)
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	killGroup(cmd)
	msgs, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return string(msgs), err
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
	runCtx := ctx
	if b.Timeout > 0 {
		args = append(args, "-test.timeout="+b.Timeout.String())
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, b.Timeout+30*time.Second)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, goCmd, args...)
	cmd.Dir = b.Dir
	cmd.Env = append(os.Environ(), b.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	killGroup(cmd)
	start := time.Now()
	runErr := cmd.Run()
	wall := time.Since(start)
	if runCtx.Err() != nil {
		reapGroup(cmd)
	}
	if ctx.Err() != nil {
		return nil, wall, ctx.Err()
	}
	res, err := Parse(&stdout)
	if err != nil {
		return nil, wall, err
	}
	if runCtx.Err() != nil {
		res.TimedOut = true
		return res, wall, nil
	}
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return nil, wall, fmt.Errorf("%s tool test2json: %w", goCmd, runErr)
	}
	if runErr != nil && len(res.Tests) == 0 && res.Output == "" {
		return nil, wall, fmt.Errorf("%s tool test2json %s: %s", goCmd, b.Path, strings.TrimSpace(stderr.String()))
	}
	return res, wall, nil
}
