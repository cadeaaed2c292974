//go:build unix

package gotest

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockKept takes the lock of the kept binary at path, waiting while
// another build holds it, and returns its release.
func lockKept(ctx context.Context, path string) (release func(), err error) {
	for {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			select {
			case <-ctx.Done():
				f.Close()
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
		// TrimKept may have removed the directory while this waited: the
		// lock is good only if its file is still the one at its path.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path + ".lock")
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return func() { f.Close() }, nil
		}
		f.Close()
	}
}

// removeKept removes the directory of a kept binary unless a build holds
// its lock.
func removeKept(dir string) error {
	locks, _ := filepath.Glob(filepath.Join(dir, "*.lock"))
	for _, lock := range locks {
		f, err := os.Open(lock)
		if err != nil {
			continue
		}
		defer f.Close()
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			return nil // in use
		}
	}
	return os.RemoveAll(dir)
}
