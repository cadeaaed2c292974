//go:build !unix

package gotest

import (
	"os/exec"
	"time"
)

// killGroup kills only the go command itself where process groups are not
// available.
func killGroup(cmd *exec.Cmd) {
	cmd.WaitDelay = 5 * time.Second
}

func reapGroup(*exec.Cmd) {}
