//go:build unix

package proc

import (
	"errors"
	"runtime"
	"syscall"
	"time"
)

// Alive reports whether process pid exists and is not a zombie: a killed
// process whose parent was killed too waits as a zombie until init reaps
// it, and runs no code. Where there is no /proc, kill -0 decides.
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	st, ok := ReadStat(pid)
	if !ok {
		return runtime.GOOS != "linux" // on Linux, gone since kill -0
	}
	return !st.Zombie() && st.Fields[0] != "X"
}

// Gone waits until process pid is no longer Alive and reports whether it
// went within limit. A SIGKILL takes effect when the process next leaves
// the kernel, which can be a moment after kill returned.
func Gone(pid int, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); Alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}
