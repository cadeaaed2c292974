// Command mutate applies documented faults of a Go package as AST
// rewrites, runs the test suite once per mutant, and reports which tests
// caught each one. Run "mutate help" for its commands and exit codes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/fencelab/fencelab/internal/cli"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/internal/testgrade"
)

func main() {
	// Each test binary runs in a sandbox whose init is mutate itself, and
	// each learner's test file is type-checked in a process of its own.
	sandbox.Init()
	testgrade.ChildMain()
	// On Linux, what a test starts and leaves running, even in a session
	// of its own, comes back to mutate, which kills it. Elsewhere the
	// process groups of the test binaries are all there is.
	_ = gotest.BecomeSubreaper()
	// A closed pipe (mutate run | head) or a closed terminal stops a run
	// like Ctrl-C does: every process stopped, every temporary file
	// removed, exit 2.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
