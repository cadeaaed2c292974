//go:build unix

package gotest

import (
	"os/exec"
	"syscall"
	"time"
)

// killGroup makes cmd the leader of a new process group: go test starts
// the test binary, and the binary may start processes of its own. When the
// run is cancelled the whole group gets SIGKILL at once. A gentler signal
// would not do: go tool and test2json start their children with SIGINT
// ignored. Nothing is lost: every temporary file of a run, the go
// command's work directory included, is under a directory the harness
// removes.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
}

// reapGroup kills what is left of a cancelled run's process group.
func reapGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
