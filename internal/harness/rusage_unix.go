//go:build unix

package harness

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time, user and system, of this process and of
// every child it has waited for (and theirs): the go command's builds,
// the test binaries and their sandboxes. ok is false where it cannot be
// read.
func cpuTime() (d time.Duration, ok bool) {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0, false
	}
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, children.Utime, children.Stime} {
		d += time.Duration(tv.Nano())
	}
	return d, true
}
