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

// closeCounting closes s and returns how many descriptors of the file at
// path are open then (see descriptorsOf).
func closeCounting(t *testing.T, s *lease.Store, path string) int {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}
	return descriptorsOf(t, path)
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
		wg.Go(func() { fences[i], errs[i] = s.Claim(lease.Bounded(t), "job", fmt.Sprintf("w%02d", i), 1, 10) })
	}
	// Every claim holds a connection, waiting for the lock, or waits for
	// one, and every connection of the pool has opened the file (beside
	// the other connection): nothing else moves until the lock ends.
	var (
		st   sql.DBStats
		open int
	)
	lease.Eventually(t, "every claim holds a connection of the pool or waits for one", func() bool {
		st, open = lease.Stats(s), descriptorsOf(t, path)
		return st.InUse+int(st.WaitCount) >= claims && open >= st.OpenConnections+1
	})
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
		if _, err := s.ClaimMany(lease.Bounded(t), id, []string{"A", "B", "C"}, 0, 10); err != nil {
			t.Fatalf("ClaimMany() error = %v", err)
		}
		if n := closeCounting(t, s, path); n != 0 {
			t.Fatalf("after Close, %d descriptors of the file are open, want 0", n)
		}
	}
}

// Every connection of the pool waits up to 10 s for another connection's
// write lock before a write fails with SQLITE_BUSY: also the one on which
// another Store's Open checked the file (with no busy timeout of its own
// while it did).
func TestStore_WaitsTenSecondsForAnotherWriter(t *testing.T) {
	path := newPath(t)
	s := openAt(t, path)
	ms, err := lease.BusyTimeout(lease.Bounded(t), s)
	if err != nil || ms != 10000 {
		t.Fatalf("busy timeout = %d ms, %v; want 10000 ms", ms, err)
	}
	openAt(t, path)
	ms, err = lease.BusyTimeout(lease.Bounded(t), s)
	if err != nil || ms != 10000 {
		t.Fatalf("busy timeout after another Store's Open = %d ms, %v; want 10000 ms", ms, err)
	}
}

// The Stores of one file in a process share its connections: a Store that
// is opened, used and closed while another uses the file leaves no
// descriptor of it behind (SQLite would keep a closed connection's
// descriptor open while another connection of the process locks the
// file), and the last Close closes them all.
func TestStore_CloseLeavesNoDescriptorWhileAnotherStoreUsesTheFile(t *testing.T) {
	path := newPath(t)
	a, err := open(t, path)
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, a, "job")
	state(t, a, "job")
	before := descriptorsOf(t, path)
	for i := range 3 {
		b, err := open(t, path)
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprint("b", i)
		enqueue(t, b, id)
		mustClaim(t, b, id, "B", 1, 10)
		state(t, b, id)
		if n := closeCounting(t, b, path); n != before {
			t.Fatalf("after another Store of the file closed, %d descriptors of it are open, want %d, the first Store's", n, before)
		}
	}
	if n := closeCounting(t, a, path); n != 0 {
		t.Fatalf("after the last Store of the file closed, %d descriptors of it are open, want 0", n)
	}
}

// A closed Store refuses every call with ErrClosed, and closing it again
// is no error; another Store of the same file goes on.
func TestStore_ACallAfterCloseFailsWithErrClosed(t *testing.T) {
	path := newPath(t)
	other := openAt(t, path)
	s, err := open(t, path)
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, s, "job")
	if err := s.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close() again error = %v, want nil", err)
	}
	// Another connection holds the file's write lock: a call that began a
	// transaction before it found the Store closed would wait for it, and
	// end with its context, not with ErrClosed.
	commit := holdWriteLock(t, path)
	ctx := lease.Bounded(t)
	calls := map[string]error{}
	_, calls["Enqueue"] = s.Enqueue(ctx, "x")
	_, calls["State"] = s.State(ctx, "job")
	_, calls["Claim"] = s.Claim(ctx, "job", "A", 0, 10)
	_, calls["Renew"] = s.Renew(ctx, "job", "A", 1, 0, 10)
	_, calls["Complete"] = s.Complete(ctx, "job", "A", 1, 0, "r")
	_, calls["Release"] = s.Release(ctx, "job", "A", 1)
	fences, err := s.ClaimMany(ctx, "job", []string{"A", "B"}, 0, 10)
	calls["ClaimMany"] = err
	for call, err := range calls {
		if !errors.Is(err, lease.ErrClosed) {
			t.Errorf("%s() after Close error = %v, want ErrClosed", call, err)
		}
	}
	// A closed Store is no owner's failure: ClaimMany fails as a whole.
	var oe *lease.OwnerError
	if fences != nil || errors.As(err, &oe) {
		t.Errorf("ClaimMany() after Close = %v, %v; want nil and ErrClosed itself, not an owner's error", fences, err)
	}
	commit()
	wantState(t, other, lease.Job{ID: "job"})
}
