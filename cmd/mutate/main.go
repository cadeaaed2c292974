// Command mutate applies the documented faults of package lease as AST
// rewrites, runs the test suite once per mutant, and reports which tests
// caught each one. Run "mutate -h" for its commands and exit codes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/fencelab/fencelab/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
