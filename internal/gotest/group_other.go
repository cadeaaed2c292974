//go:build !linux

package gotest

import (
	"os/exec"
	"syscall"
)

// waitUnreaped waits for cmd, reaping it: without waitid's WNOWAIT the
// process group is killed just after its leader is reaped.
func waitUnreaped(cmd *exec.Cmd) (reaped bool, err error) {
	return true, cmd.Wait()
}

// setParentDeathSignal does nothing: only Linux has a parent-death signal.
func setParentDeathSignal(*syscall.SysProcAttr) {}
