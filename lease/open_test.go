package lease_test

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 1: Open creates the table idempotently.

func TestOpen_ReopenKeepsFencesAndResults(t *testing.T) {
	ctx := t.Context()
	path := newPath(t)
	s, err := lease.Open(path)
	if err != nil {
		t.Fatalf("first Open() error = %v", err)
	}
	enqueue(t, s, "held")
	enqueue(t, s, "finished")
	mustClaim(t, s, "held", "A", 1, 9)
	f := mustClaim(t, s, "finished", "A", 1, 9)
	if !complete(t, s, "finished", "A", f, 1, "42") {
		t.Fatalf("Complete() = false, want true")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}

	// A restarted worker opens the same file again: nothing may be reset,
	// or an expired token would become valid again.
	s = openAt(t, path)
	wantState(t, s, lease.Job{ID: "held", Owner: "A", Until: 10, Fence: 1})
	wantState(t, s, lease.Job{ID: "finished", Owner: "A", Until: 10, Fence: 1, Result: "42", Done: true})
	if got, want := claim(t, s, "held", "B", 12, 10), int64(2); got != want {
		t.Fatalf("Claim() after reopen = %d, want %d", got, want)
	}
	if added, err := s.Enqueue(ctx, "held"); err != nil || added {
		t.Fatalf("Enqueue(existing) after reopen = %v, %v; want false, nil", added, err)
	}
}

func TestOpen_SecondStoreOnSameFile(t *testing.T) {
	path := newPath(t)
	first := openAt(t, path)
	enqueue(t, first, "job")
	second := openAt(t, path)
	wantState(t, second, lease.Job{ID: "job"})
}

func TestOpen_PathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a?b#c%d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "jobs 1.db")
	s := openAt(t, path)
	enqueue(t, s, "job")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("jobs file not created at %q: %v", path, err)
	}
	wantState(t, openAt(t, path), lease.Job{ID: "job"})
}

func TestOpen_RejectsFileThatIsNotSQLite(t *testing.T) {
	path := newPath(t)
	content := bytes.Repeat([]byte("not a database\n"), 100)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := lease.Open(path)
	if err == nil {
		s.Close()
		t.Fatalf("Open(text file) error = nil, want an error")
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, content) {
		t.Fatalf("Open(text file) changed the file")
	}
}

func TestOpen_RejectsJobsTableOfAnotherShape(t *testing.T) {
	path := newPath(t)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE jobs(id TEXT PRIMARY KEY, owner TEXT, until INTEGER)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO jobs VALUES('x', 'A', 5)`); err != nil {
		t.Fatal(err)
	}

	s, err := lease.Open(path)
	if !errors.Is(err, lease.ErrSchema) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open(other jobs table) error = %v, want ErrSchema", err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pragma_table_info('jobs')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("Open(other jobs table) altered the table: %d columns, want 3", n)
	}
}

func TestOpen_RejectsEmptyPath(t *testing.T) {
	if s, err := lease.Open(""); err == nil {
		s.Close()
		t.Fatalf(`Open("") error = nil, want an error`)
	}
}
