package lease

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// Another writer may begin between Open's commit and its switch to WAL, and
// SQLite then fails the switch at once, calling no busy handler: Open must
// wait for that writer as it waits at BEGIN. (Not parallel: it sets a
// package variable that every Open reads.)
func TestOpen_WaitsForAWriterThatBeginsJustBeforeTheSwitchToWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	committed := make(chan error, 1)
	hooked := false
	testHookBeforeWAL = func() {
		testHookBeforeWAL, hooked = nil, true
		if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
			t.Errorf("the other writer's BEGIN IMMEDIATE: %v", err)
		}
		go func() {
			time.Sleep(50 * time.Millisecond)
			_, err := conn.ExecContext(context.Background(), "COMMIT")
			committed <- err
		}()
	}
	t.Cleanup(func() { testHookBeforeWAL = nil })
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open(file whose other writer begins before the switch to WAL) error = %v, want nil once it commits", err)
	}
	defer s.Close()
	if !hooked {
		t.Fatal("Open() switched to WAL without passing the point between its commit and the switch")
	}
	if err := <-committed; err != nil {
		t.Fatalf("the other writer's COMMIT: %v", err)
	}
	var mode string
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (error %v), want wal", mode, err)
	}
}
