package lease_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// What a Store holds of the machine: at most 8 connections to its file,
// none once it is closed, and a busy timeout of 10 s on each.

// descriptorsOf returns how many of this process's file descriptors are
// open on the file at path (not its -wal or -shm file). It skips the test
// where /proc/self/fd does not list them.
func descriptorsOf(tb testing.TB, path string) int {
	tb.Helper()
	if runtime.GOOS != "linux" {
		tb.Skipf("counting a file's descriptors reads /proc/self/fd, which %s does not have", runtime.GOOS)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Skipf("counting a file's descriptors reads /proc/self/fd: %v", err)
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

// 64 claims at once, behind another connection's write lock, each waiting
// for the lock: the pool opens 8 connections to the file and no more, and
// the claims beyond them wait for a connection of the pool.
func TestStore_OpensAtMostEightConnectionsToTheFile(t *testing.T) {
	path := newPath(t)
	s := openAt(t, path)
	enqueue(t, s, "job")
	commit := holdWriteLock(t, path)
	const claims = 64
	fences := make([]int64, claims)
	errs := make([]error, claims)
	var wg sync.WaitGroup
	for i := range claims {
		wg.Go(func() { fences[i], errs[i] = s.Claim(t.Context(), "job", fmt.Sprintf("w%02d", i), 1, 10) })
	}
	// Every claim holds a connection, waiting for the lock, or waits for
	// one, and every connection of the pool has opened the file (beside
	// the other connection): nothing else moves until the lock ends.
	var (
		st   sql.DBStats
		open int
	)
	for {
		st, open = lease.Stats(s), descriptorsOf(t, path)
		if st.InUse+int(st.WaitCount) >= claims && open >= st.OpenConnections+1 {
			break
		}
		runtime.Gosched()
	}
	commit()
	wg.Wait()
	if err := errors.Join(errs...); err != nil || len(winners(fences)) != 1 {
		t.Fatalf("64 claims at once = %v, %v; want one winner", fences, err)
	}
	// The other connection's lock is one descriptor of the file.
	if open > 8+1 || st.OpenConnections > 8 {
		t.Fatalf("64 claims at once held %d descriptors of the file (%d connections of the store, %d in use, %d waits for one); want at most 8 and the other connection's", open, st.OpenConnections, st.InUse, st.WaitCount)
	}
}

// Close closes every connection to the file, Open's own included: a
// worker that opens and closes the store in a loop does not run out of
// descriptors.
func TestStore_CloseLeavesNoDescriptorOfTheFile(t *testing.T) {
	path := newPath(t)
	for i := range 3 {
		s, err := lease.Open(path)
		if err != nil {
			t.Fatalf("Open() error = %v", err)
		}
		id := fmt.Sprint("job", i)
		enqueue(t, s, id)
		if _, err := s.ClaimMany(t.Context(), id, []string{"A", "B", "C"}, 0, 10); err != nil {
			t.Fatalf("ClaimMany() error = %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close() error = %v", err)
		}
		if n := descriptorsOf(t, path); n != 0 {
			t.Fatalf("after Close, %d descriptors of the file are open, want 0", n)
		}
	}
}

// Every connection of the pool waits up to 10 s for another connection's
// write lock before a write fails with SQLITE_BUSY.
func TestStore_WaitsTenSecondsForAnotherWriter(t *testing.T) {
	s := newStore(t)
	ms, err := lease.BusyTimeout(t.Context(), s)
	if err != nil || ms != 10000 {
		t.Fatalf("busy timeout = %d ms, %v; want 10000 ms", ms, err)
	}
}
