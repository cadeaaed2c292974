//go:build unix

package gotest

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// setProcAttr makes cmd the leader of a process group of its own, so that
// it and everything it starts can be killed at once, and, where the system
// offers it, has it killed when mutate dies.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// killGroupOnCancel makes cmd the leader of a process group of its own
// that gets SIGKILL when cmd's context is done. A gentler signal would not
// do: go tool and test2json start their children with SIGINT ignored.
// Nothing is lost: every temporary file of a run, the go command's work
// directory included, is under a directory that is removed when the run
// ends (the scratch directory, or the work directory of a kept binary).
func killGroupOnCancel(cmd *exec.Cmd) {
	setProcAttr(cmd)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
}

// killGroup kills the process group that p leads.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// signalOf names the signal that ended a process, or "".
func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
