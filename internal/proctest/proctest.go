//go:build unix

// Package proctest helps tests check that processes are gone.
package proctest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
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
