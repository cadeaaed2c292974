package lease

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// White-box tests of what no return value shows: the settings of every
// pooled connection, and when Claim's transaction takes the write lock.

func TestOpen_EveryConnectionIsDurable(t *testing.T) {
	ctx := Bounded(t)
	s, err := Open(filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Holding several connections at once makes each a new one of the pool.
	for i := range 4 {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var sync, timeout int
		var mode string
		if err := c.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&timeout); err != nil {
			t.Fatal(err)
		}
		// synchronous 2 is FULL: in WAL mode, NORMAL (1) may lose the last
		// commits on a power loss, and with them a fence already handed out.
		if sync != 2 || mode != "wal" || timeout != busyTimeoutMillis {
			t.Fatalf("connection %d: synchronous=%d journal_mode=%s busy_timeout=%d; want 2 (FULL), wal, %d",
				i, sync, mode, timeout, busyTimeoutMillis)
		}
	}
}

func TestClaim_ReadsOnlyAfterTakingTheWriteLock(t *testing.T) {
	t.Parallel()
	ctx := Bounded(t)
	path := filepath.Join(t.TempDir(), "jobs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Enqueue(ctx, "job"); err != nil {
		t.Fatal(err)
	}
	// Another worker's claim, by hand, on one pinned connection: BEGIN,
	// the grant and COMMIT all run on it.
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "UPDATE jobs SET owner='B', until=100, fence=fence+1 WHERE id='job'"); err != nil {
		t.Fatal(err)
	}
	type claimed struct {
		fence int64
		err   error
	}
	done := make(chan claimed, 1)
	ctx = WaitWatch(ctx)
	go func() {
		f, err := s.Claim(ctx, "job", "A", 5, 10)
		done <- claimed{f, err}
	}()
	// Under BEGIN IMMEDIATE, Claim waits for the lock and then reads B's
	// grant. A DEFERRED transaction would read the job as free now and
	// fail (or, worse, win) when it writes, without ever waiting.
	select {
	case <-Waiting(ctx):
	case c := <-done:
		t.Fatalf("Claim() while another claim held the write lock = %d, %v without waiting for the lock; want it to wait, then read B's grant", c.fence, c.err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if c := <-done; c.fence != 0 || c.err != nil {
		t.Fatalf("Claim() while another claim held the lock = %d, %v; want 0, nil (the job is B's once the lock is free)", c.fence, c.err)
	}
	var owner string
	var fence int64
	if err := conn.QueryRowContext(ctx, "SELECT owner, fence FROM jobs WHERE id='job'").Scan(&owner, &fence); err != nil {
		t.Fatal(err)
	}
	if owner != "B" || fence != 1 {
		t.Fatalf("after both claims: owner %q, fence %d; want B, 1", owner, fence)
	}
}
