// Package command holds what every command of mutate shares: its call
// (where it prints, and what a printed hint must repeat), its flags (the
// selection of mutants, the runs' flags and sandbox, the outputs of a
// run), the files it may write, and the exit code that what it returns
// maps to (exit.go). Package cli runs the commands of a run, package
// course those of a course.
package command

import (
	"io"
	"time"

	"github.com/fencelab/fencelab/internal/testgrade"
)

// Call is one invocation of a command: where it prints, and what a
// printed hint must repeat to work as printed.
type Call struct {
	Name           string // the command
	Stdout, Stderr io.Writer
	Dir            string           // -C
	Started        time.Time        // when the command began
	Eng            testgrade.Engine // what selects and runs, for every command
}

// prefix starts the error messages of the call: "mutate run".
func (c *Call) prefix() string {
	if c.Name == "" {
		return "mutate"
	}
	return "mutate " + c.Name
}
