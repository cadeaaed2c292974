package lease

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// White-box tests of what no return value shows: the settings of every
// pooled connection, and the lock that Claim's transaction takes.

func TestOpen_EveryConnectionIsDurable(t *testing.T) {
	ctx := t.Context()
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

func TestClaim_TransactionTakesTheWriteLockAtBegin(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "jobs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The transaction Claim reads and writes in.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// Under BEGIN IMMEDIATE the write lock is already taken, so no other
	// connection can start writing. A DEFERRED transaction would take it
	// only at its first write, after the read: two claims could read the
	// same free job and then collide.
	if _, err := other.ExecContext(ctx, "BEGIN IMMEDIATE"); err == nil {
		other.ExecContext(ctx, "ROLLBACK")
		t.Fatal("another connection began writing while Claim's transaction was open; want SQLITE_BUSY")
	}
}
