package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/internal/testgrade"
)

// Command is the mutate command, as cmd/mutate's main and the scripts'
// test binaries (internal/scripttest) run it: it reads os.Args and exits
// with Main's code. It never returns.
func Command() {
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
	code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
