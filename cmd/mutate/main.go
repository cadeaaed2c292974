// Command mutate applies documented faults of a Go package as AST
// rewrites, runs the test suite once per mutant, and reports which tests
// caught each one. Run "mutate help" for its commands and exit codes.
package main

import "github.com/fencelab/fencelab/internal/cli"

func main() {
	cli.Command()
}
