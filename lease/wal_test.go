package lease

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// Another writer may begin between Open's commit and its switch to WAL, and
// SQLite then fails the switch at once, calling no busy handler: Open must
// wait for that writer as it waits at BEGIN. The other writer begins at
// that very point and commits once Open waits for it (both hooks run on
// Open's goroutine), whatever the timing.
func TestOpen_WaitsForAWriterThatBeginsJustBeforeTheSwitchToWAL(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "jobs.db")
	// The other writer's COMMIT waits out, as any writer's does, the shared
	// lock that Open's retry may hold for a moment.
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var began, committed bool
	ctx := context.WithValue(t.Context(), beforeWALHook{}, func() {
		if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
			t.Errorf("the other writer's BEGIN IMMEDIATE: %v", err)
			return
		}
		began = true
	})
	ctx = context.WithValue(ctx, waitHook{}, func() {
		if !began || committed {
			return
		}
		committed = true
		if _, err := conn.ExecContext(context.Background(), "COMMIT"); err != nil {
			t.Errorf("the other writer's COMMIT: %v", err)
		}
	})
	s, err := OpenContext(ctx, path)
	if err != nil {
		t.Fatalf("Open(file whose other writer begins before the switch to WAL) error = %v, want nil once it commits", err)
	}
	defer s.Close()
	if !began || !committed {
		t.Fatalf("the other writer began: %v, and Open waited for it: %v; want both", began, committed)
	}
	var mode string
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (error %v), want wal", mode, err)
	}
}
