package gotest

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// waitUnreaped blocks until cmd's process has exited, without reaping it:
// its pid, and so its process group, stay taken until cmd.Wait. It
// reports false: the caller must still call cmd.Wait.
func waitUnreaped(cmd *exec.Cmd) (reaped bool, err error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return false, nil
		}
	}
}
