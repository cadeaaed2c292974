//go:build unix

// Package proctest helps tests check that processes are gone.
package proctest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Alive reports whether process pid exists and is not a zombie: a killed
// process whose parent was killed too waits as a zombie until init reaps
// it, and runs no code.
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill -0
	}
	// The state follows the command name, which is in parentheses.
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) == 0 || (fields[0] != "Z" && fields[0] != "X")
}

// Gone waits until process pid is no longer Alive and reports whether it
// went within limit. A SIGKILL takes effect when the process next leaves the
// kernel, which can be a moment after kill returned.
func Gone(pid int, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); Alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}
