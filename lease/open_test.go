package lease_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencelab/fencelab/lease"
)

// Step 1: Open creates the table idempotently.

func TestOpen_ReopenKeepsFencesAndResults(t *testing.T) {
	ctx := lease.Bounded(t)
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

// The path is a file name, not a URI: "%41" is three characters of the
// name, not an escaped "A".
func TestOpen_PathWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a?b#c%41d")
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

// A file that is not a database is refused at once, with no wait for a
// lock, and left as it was.
func TestOpen_RejectsFileThatIsNotSQLite(t *testing.T) {
	path := newPath(t)
	content := bytes.Repeat([]byte("not a database\n"), 100)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	s, waited, err := openStoppingAtAWait(path)
	if err == nil {
		s.Close()
		t.Fatalf("Open(text file) error = nil, want an error")
	}
	if waited {
		t.Fatalf("Open(text file) waited for a lock, error = %v; want it to fail at once", err)
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

// holdWriteLock opens path with a plain connection (the rollback journal
// unless the file is already WAL) and begins a write transaction on one
// pinned connection; the returned function commits it.
func holdWriteLock(t *testing.T, path string) (commit func()) {
	t.Helper()
	return holdLock(t, path, "BEGIN IMMEDIATE", "CREATE TABLE IF NOT EXISTS other(x)")
}

// holdLock runs statements on a connection of its own to the file at path
// (a transaction that they begin keeps its locks), and returns the
// function that commits and closes it.
func holdLock(t *testing.T, path string, stmts ...string) (commit func()) {
	t.Helper()
	// The commit, like any writer's, waits out the shared lock that a
	// retry of Open's may hold for a moment.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range stmts {
		if _, err := conn.ExecContext(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		if _, err := conn.ExecContext(context.Background(), "COMMIT"); err != nil {
			t.Errorf("the other connection's COMMIT: %v", err)
		}
		// Closing the database, not only handing the connection back to
		// its pool, ends a transaction that a failed COMMIT left open.
		conn.Close()
		db.Close()
	}
}

// openWhileLocked opens the file at path while another connection holds a
// lock, ends the lock once Open has met it and waits, and returns what
// Open returned: Open must wait for the lock rather than fail with
// SQLITE_BUSY.
func openWhileLocked(t *testing.T, path string, commit func()) *lease.Store {
	t.Helper()
	type opened struct {
		s   *lease.Store
		err error
	}
	ctx := lease.WaitWatch(lease.Bounded(t))
	done := make(chan opened, 1)
	go func() {
		s, err := lease.OpenContext(ctx, path)
		done <- opened{s, err}
	}()
	select {
	case <-lease.Waiting(ctx):
	case o := <-done:
		if o.err == nil {
			o.s.Close()
		}
		commit()
		t.Fatalf("Open(file locked by another connection) error = %v without waiting for the lock; want it to wait, then succeed", o.err)
	}
	commit()
	o := <-done
	if o.err != nil {
		t.Fatalf("Open(file locked by another connection) error = %v, want nil once the lock ends", o.err)
	}
	t.Cleanup(func() { o.s.Close() })
	return o.s
}

func TestOpen_WaitsForAnotherWriterOnANewFile(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	s := openWhileLocked(t, path, holdWriteLock(t, path))
	enqueue(t, s, "job")
	wantState(t, s, lease.Job{ID: "job"})
}

// A reader holds Open up too: its commit and its switch to WAL need the
// file to themselves.
func TestOpen_WaitsForAReaderBeforeSwitchingToWAL(t *testing.T) {
	t.Parallel()
	path, _ := createJobs(t, jobsDDL, `INSERT INTO jobs(id, fence) VALUES('job', 2)`)
	s := openWhileLocked(t, path, holdLock(t, path, "BEGIN", "SELECT count(*) FROM jobs"))
	wantState(t, s, lease.Job{ID: "job", Fence: 2})
	var mode string
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (error %v), want wal", mode, err)
	}
}

func TestOpenContext_GivesUpWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	commit := holdWriteLock(t, path)
	defer commit()
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	s, err := lease.OpenContext(ctx, path)
	if err == nil {
		s.Close()
		t.Fatal("OpenContext(locked file, ending context) error = nil, want the context's error")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("OpenContext(locked file, ending context) error = %v, want it to wrap context.DeadlineExceeded", err)
	}
}

// createJobs creates a jobs table with statement ddl (and more statements)
// in a new file, and returns the file's path and bytes.
func createJobs(t *testing.T, ddl ...string) (string, []byte) {
	t.Helper()
	path := newPath(t)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range ddl {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

const jobsDDL = `CREATE TABLE jobs (
	id     TEXT PRIMARY KEY,
	owner  TEXT,
	until  REAL NOT NULL DEFAULT 0,
	fence  INTEGER NOT NULL DEFAULT 0,
	result TEXT,
	done   INTEGER NOT NULL DEFAULT 0
)`

func TestOpen_RefusesWhatChangesTheMeaningOfTheTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ddl   []string
		names string // what the error must name
	}{
		{"CaseInsensitiveIDs", []string{strings.Replace(jobsDDL, "TEXT PRIMARY KEY", "TEXT PRIMARY KEY COLLATE NOCASE", 1)}, "collate nocase"},
		{"CheckConstraint", []string{strings.Replace(jobsDDL, "fence  INTEGER NOT NULL DEFAULT 0", "fence INTEGER NOT NULL DEFAULT 0 CHECK (fence < 3)", 1)}, "check (fence < 3)"},
		{"TriggerResettingTheFence", []string{jobsDDL, `CREATE TRIGGER reset AFTER UPDATE OF owner ON jobs WHEN new.owner IS NULL BEGIN UPDATE jobs SET fence = 0 WHERE id = new.id; END`}, "trigger reset"},
		{"UniqueIndexOnOwner", []string{jobsDDL, `CREATE UNIQUE INDEX one_job_per_owner ON jobs(owner)`}, "index one_job_per_owner"},
		{"LastColumnOfAnotherType", []string{strings.Replace(jobsDDL, "done   INTEGER", "done   TEXT", 1)}, "column 6"},
		{"GeneratedColumn", []string{strings.Replace(jobsDDL, "\n)", ",\n\tlate INTEGER GENERATED ALWAYS AS (until > 0)\n)", 1)}, "7 columns"},
		{"ViewNamedJobs", []string{`CREATE VIEW jobs AS SELECT 1 AS id`}, "jobs is a view"},
		// SQLite's names are case-insensitive: the package reads and
		// writes these as its own.
		{"TableNamedInOtherCase", []string{strings.Replace(strings.Replace(jobsDDL, "TABLE jobs", "TABLE Jobs", 1), "TEXT PRIMARY KEY", "TEXT PRIMARY KEY COLLATE NOCASE", 1)}, "collate nocase"},
		{"TriggerOnJOBS", []string{jobsDDL, `CREATE TRIGGER reset AFTER UPDATE OF owner ON JOBS WHEN new.owner IS NULL BEGIN UPDATE jobs SET fence = 0 WHERE id = new.id; END`}, "trigger reset"},
		{"ViewNamedJOBS", []string{`CREATE VIEW JOBS AS SELECT 1 AS id`}, "jobs is a view"},
		// A generated column in the place of one with no default.
		{"GeneratedResultColumn", []string{strings.Replace(jobsDDL, "result TEXT", "result TEXT GENERATED ALWAYS AS (NULL)", 1)}, "column 5"},
		// Spelled differently, and meaning something else too.
		{"AnotherDefaultOnOneLine", []string{`CREATE TABLE jobs(id TEXT PRIMARY KEY,owner TEXT,until REAL NOT NULL DEFAULT 0,fence INTEGER NOT NULL DEFAULT 1,result TEXT,done INTEGER NOT NULL DEFAULT 0)`}, "column 4"},
		{"ACheckInLowerCase", []string{"create table jobs (id text primary key, owner text, until real not null default 0, fence integer not null default 0, result text check (result <> 'x'), done integer not null default 0)"}, "check (result <> 'x')"},
		{"AStringThatDiffersInCase", []string{"create table jobs (id text primary key, owner text, until real not null default 0, fence integer not null default 0, result text check (result <> 'X'), done integer not null default 0)"}, "check (result <> 'X')"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, before := createJobs(t, tc.ddl...)
			s, err := open(t, path)
			if err == nil {
				s.Close()
				t.Fatal("Open() error = nil, want ErrSchema")
			}
			if !errors.Is(err, lease.ErrSchema) || !strings.Contains(err.Error(), tc.names) {
				t.Fatalf("Open() error = %v, want ErrSchema naming %q", err, tc.names)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Fatal("Open() changed a file that it refused")
			}
			if _, err := os.Stat(path + "-wal"); !os.IsNotExist(err) {
				t.Fatalf("Open() left a WAL file beside a file that it refused (stat: %v)", err)
			}
		})
	}
}

// Its own table written by hand, in any spelling that means the same: on
// one line, with other whitespace, with keywords and names in other case,
// with quoted names, with comments.
func TestOpen_AcceptsTheTableItCreatesWrittenByHand(t *testing.T) {
	for _, ddl := range []string{
		jobsDDL,
		strings.Replace(jobsDDL, "TABLE jobs", "TABLE Jobs", 1),
		`CREATE TABLE jobs(id TEXT PRIMARY KEY,owner TEXT,until REAL NOT NULL DEFAULT 0,fence INTEGER NOT NULL DEFAULT 0,result TEXT,done INTEGER NOT NULL DEFAULT 0)`,
		"create table jobs (\n  id text primary key ,\n\towner text,\n  until real not null default 0,\n  fence integer not null default 0,\n  result text,\n  done integer not null default 0\n)",
		`CREATE TABLE "jobs" ("id" TEXT PRIMARY KEY, [owner] TEXT, ` + "`until`" + ` REAL NOT NULL DEFAULT 0, fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)`,
		"CREATE TABLE jobs ( -- the lease table\n id TEXT PRIMARY KEY, /* the job */ owner TEXT, until REAL NOT NULL DEFAULT 0, fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)",
		strings.ReplaceAll(jobsDDL, "\n", "\r\n"), // as an editor on Windows saves it
		"CREATE TABLE jobs (id TEXT PRIMARY KEY/**/, owner TEXT, until REAL NOT NULL DEFAULT 0, fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0) -- no newline after",
	} {
		path, _ := createJobs(t, ddl, `INSERT INTO jobs(id, fence) VALUES('job', 4)`)
		s, err := lease.Open(path)
		if err != nil {
			t.Errorf("Open(table created as %q) error = %v, want nil", ddl, err)
			continue
		}
		wantState(t, s, lease.Job{ID: "job", Fence: 4})
		s.Close()
	}
}

// Only the jobs table's own triggers and indexes change what a write of
// this package does: those of the file's other tables are left alone.
func TestOpen_AcceptsTriggersAndIndexesOfOtherTables(t *testing.T) {
	path, _ := createJobs(t, jobsDDL,
		`CREATE TABLE audit(id TEXT, at REAL)`,
		`CREATE INDEX audit_at ON audit(at)`,
		`CREATE TRIGGER audit_once AFTER INSERT ON audit BEGIN DELETE FROM audit WHERE at < new.at - 100; END`,
		`INSERT INTO jobs(id, fence) VALUES('job', 3)`)
	s, err := lease.Open(path)
	if err != nil {
		t.Fatalf("Open(jobs file with another table's trigger and index) error = %v, want nil", err)
	}
	defer s.Close()
	wantState(t, s, lease.Job{ID: "job", Fence: 3})
}

func TestOpen_ErrorNamesThePackageOnce(t *testing.T) {
	path, _ := createJobs(t, `CREATE TABLE jobs(id TEXT PRIMARY KEY)`)
	_, err := lease.Open(path)
	want := "lease: open " + path + ": jobs table has an unexpected shape: 1 columns, want 6"
	if err == nil || err.Error() != want {
		t.Fatalf("Open() error = %v, want %q", err, want)
	}
}

func TestOpen_RefusesPathsThatAreNotOneSharedFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{"", "empty path"},
		{filepath.Join(dir, "jobs.db") + "\x00.txt", "NUL byte"},
		{":memory:", "in-memory database"},
	} {
		s, err := lease.Open(tc.path)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) error = nil, want one saying %q", tc.path, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) error = %v, want one saying %q", tc.path, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused paths created %d files, want none", len(entries))
	}
}

func TestOpen_PathStartingWithTwoSlashes(t *testing.T) {
	dir := t.TempDir() // absolute: "/" makes it start with "//"
	s := openAt(t, "/"+filepath.Join(dir, "jobs.db"))
	enqueue(t, s, "job")
	wantState(t, openAt(t, filepath.Join(dir, "jobs.db")), lease.Job{ID: "job"})
}

// SQLite compares names without the case of their ASCII letters: a table
// whose columns are spelled ID, "OWNER" or Until is the package's own,
// and the store works on it.
func TestOpen_AcceptsColumnNamesInAnyCase(t *testing.T) {
	for _, ddl := range []string{
		`CREATE TABLE jobs (ID TEXT PRIMARY KEY, "OWNER" TEXT, Until REAL NOT NULL DEFAULT 0, FENCE INTEGER NOT NULL DEFAULT 0, [Result] TEXT, done INTEGER NOT NULL DEFAULT 0)`,
		strings.ToUpper(jobsDDL),
	} {
		path, _ := createJobs(t, ddl, `INSERT INTO jobs(id, fence) VALUES('job', 4)`)
		s, err := open(t, path)
		if err != nil {
			t.Fatalf("Open(%s) error = %v, want the table accepted", ddl, err)
		}
		if f := claim(t, s, "job", "A", 1, 10); f != 5 {
			t.Errorf("Claim() on %s = %d, want 5: the stored fence 4, advanced", ddl, f)
		}
		s.Close()
	}
}

// A Store that has the file open does not spare another Open the check of
// the table: replaced meanwhile by one of another shape, it is refused with
// ErrSchema; and the first Store goes on writing at once (the check ran on
// one of its connections, and left no transaction there).
func TestOpen_ChecksTheTableWhileAnotherStoreHasTheFileOpen(t *testing.T) {
	path := newPath(t)
	first, err := open(t, path)
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, first, "job")
	commit := holdLock(t, path, "BEGIN IMMEDIATE", "DROP TABLE jobs",
		strings.Replace(jobsDDL, "fence  INTEGER NOT NULL DEFAULT 0", "fence INTEGER NOT NULL DEFAULT 0 CHECK (fence < 3)", 1))
	commit()
	s, err := open(t, path)
	if err == nil {
		s.Close()
		first.Close()
		t.Fatal("Open(a table replaced by one of another shape) error = nil, want ErrSchema")
	}
	if !errors.Is(err, lease.ErrSchema) {
		t.Fatalf("Open(a table replaced by one of another shape) error = %v, want ErrSchema", err)
	}
	if added, err := first.Enqueue(lease.Bounded(t), "after"); err != nil || !added {
		t.Fatalf("Enqueue() on the first Store after the refused Open = %v, %v; want true, nil at once", added, err)
	}
	// The refused Open counts no Store: the first one's Close is the last.
	if n := closeCounting(t, first, path); n != 0 {
		t.Fatalf("after the only Store closed, %d descriptors of the file are open, want 0", n)
	}
}
