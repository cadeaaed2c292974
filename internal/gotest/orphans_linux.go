package gotest

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
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
		for _, c := range children(self) {
			if started.pids[c.pid] || c.pgid == group || token != "" && !c.zombie && !carries(c.pid, token) {
				continue
			}
			orphans++
			syscall.Kill(-c.pgid, syscall.SIGKILL)
			syscall.Kill(c.pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(c.pid, &ws, 0, nil)
		}
		if orphans == 0 {
			return
		}
	}
}

type child struct {
	pid, pgid int
	zombie    bool
}

// carries reports whether the environment process pid started with holds
// the run token.
func carries(pid int, token string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range strings.SplitSeq(string(env), "\x00") {
		if kv == RunEnv+"="+token {
			return true
		}
	}
	return false
}

// children lists the processes whose parent is pid, from /proc.
func children(pid int) []child {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []child
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fields := procStat(p)
		if len(fields) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		pgid, _ := strconv.Atoi(fields[2])
		if ppid == pid {
			kids = append(kids, child{pid: p, pgid: pgid, zombie: fields[0] == "Z"})
		}
	}
	return kids
}
