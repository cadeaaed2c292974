package gotest

import (
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/fencelab/fencelab/internal/proc"
)

// BecomeSubreaper makes the calling process a child subreaper: a process
// that a test starts and that outlives its parent, even in a session of
// its own (setsid), is then reparented to mutate instead of init, and the
// next SweepOrphans kills it. Call it once, early in main.
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// SweepOrphans kills and reaps every child of this process that this
// package did not start and that left its process group: what a test
// binary left behind, reparented here (see BecomeSubreaper). Children in
// mutate's own process group (the go and git commands that other packages
// run) are left alone. With a run's token (see Exec), only the orphans
// that carry it in their environment are killed: those of that run, not
// those of a test binary still running beside it, whose tests may still
// need them. Killing an orphan reparents its own children here, so the
// sweep goes on until none is left.
func SweepOrphans(token string) {
	started.Lock()
	defer started.Unlock()
	self, group := os.Getpid(), syscall.Getpgrp()
	for range 100 {
		orphans := 0
		for _, pid := range proc.Children(self) {
			st, ok := proc.ReadStat(pid)
			if !ok || started.pids[pid] || st.Group() == group || token != "" && !st.Zombie() && !carries(pid, token) {
				continue
			}
			orphans++
			syscall.Kill(-st.Group(), syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
		if orphans == 0 {
			return
		}
	}
}

// carries reports whether the environment process pid started with holds
// the run token.
func carries(pid int, token string) bool {
	return slices.Contains(proc.Environ(pid), runEnv+"="+token)
}
