package lease_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// newPath returns the path of a fresh jobs file in the test's own directory.
func newPath(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(tb.TempDir(), "jobs.db")
}

// open is lease.Open, bounded: a call that never returns fails the test
// (see lease.Within).
func open(tb testing.TB, path string) (*lease.Store, error) {
	tb.Helper()
	return lease.Within(tb, fmt.Sprintf("Open(%q)", path), func() (*lease.Store, error) { return lease.Open(path) })
}

// openAt opens a Store on path and closes it when the test ends.
func openAt(tb testing.TB, path string) *lease.Store {
	tb.Helper()
	s, err := open(tb, path)
	if err != nil {
		tb.Fatalf("Open(%q) error = %v", path, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close() error = %v", err)
		}
	})
	return s
}

// newStore opens a Store on a fresh file.
func newStore(tb testing.TB) *lease.Store {
	tb.Helper()
	return openAt(tb, newPath(tb))
}

func enqueue(tb testing.TB, s *lease.Store, id string) {
	tb.Helper()
	added, err := s.Enqueue(lease.Bounded(tb), id)
	if err != nil || !added {
		tb.Fatalf("Enqueue(%q) = %v, %v; want true, nil", id, added, err)
	}
}

func claim(tb testing.TB, s *lease.Store, id, owner string, now, ttl float64) int64 {
	tb.Helper()
	fence, err := s.Claim(lease.Bounded(tb), id, owner, now, ttl)
	if err != nil {
		tb.Fatalf("Claim(%q, %q, now=%v, ttl=%v) error = %v", id, owner, now, ttl, err)
	}
	return fence
}

// mustClaim claims a job and fails the test unless a fence was granted.
func mustClaim(tb testing.TB, s *lease.Store, id, owner string, now, ttl float64) int64 {
	tb.Helper()
	fence := claim(tb, s, id, owner, now, ttl)
	if fence == 0 {
		tb.Fatalf("Claim(%q, %q, now=%v, ttl=%v) = 0, want a fence", id, owner, now, ttl)
	}
	return fence
}

func complete(tb testing.TB, s *lease.Store, id, owner string, fence int64, now float64, result string) bool {
	tb.Helper()
	ok, err := s.Complete(lease.Bounded(tb), id, owner, fence, now, result)
	if err != nil {
		tb.Fatalf("Complete(%q, %q, fence=%d, now=%v) error = %v", id, owner, fence, now, err)
	}
	return ok
}

// state reads the stored state of id; it fails the test if the job is missing.
func state(tb testing.TB, s *lease.Store, id string) lease.Job {
	tb.Helper()
	j, err := s.State(lease.Bounded(tb), id)
	if err != nil {
		tb.Fatalf("State(%q) error = %v", id, err)
	}
	if j == nil {
		tb.Fatalf("State(%q) = nil, want the stored job", id)
	}
	return *j
}

// wantState fails the test unless the stored state of want.ID is want.
func wantState(tb testing.TB, s *lease.Store, want lease.Job) {
	tb.Helper()
	if got := state(tb, s, want.ID); got != want {
		tb.Fatalf("State(%q) = %+v, want %+v", want.ID, got, want)
	}
}
