//go:build unix

package harness

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on f without waiting, and reports
// whether it got it. The system releases it when the process dies.
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
