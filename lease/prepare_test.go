package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// White-box tests of Open's waits: each wait for another connection's lock
// ends with the context, or after the busy timeout, and only SQLITE_BUSY
// makes Open wait at all.

// blocker holds a lock on a file from a connection of its own until its
// release; its statements run when the test asks.
type blocker struct {
	t    *testing.T
	db   *sql.DB
	conn *sql.Conn
}

func newBlocker(t *testing.T, path string) *blocker {
	t.Helper()
	// A busy timeout, so that the blocker's own commit waits out a shared
	// lock that Open's retry may hold for a moment.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &blocker{t: t, db: db, conn: conn}
}

func (b *blocker) exec(stmts ...string) {
	b.t.Helper()
	for _, stmt := range stmts {
		if _, err := b.conn.ExecContext(context.Background(), stmt); err != nil {
			b.t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// hooks returns ctx with Open's hooks set: before, between Open's commit
// and its switch to WAL, and wait, each time another connection's lock
// makes it wait.
func hooks(ctx context.Context, before, wait func()) context.Context {
	if before != nil {
		ctx = context.WithValue(ctx, beforeWALHook{}, before)
	}
	if wait != nil {
		ctx = context.WithValue(ctx, waitHook{}, wait)
	}
	return ctx
}

// Every wait of OpenContext ends when its context does, at once, with an
// error that wraps the context's: for a writer at BEGIN (of a new file,
// and of one that a Store of the process has open), for a reader at the
// commit, for a writer that began at the switch to WAL, and for a
// connection that holds the file in locking_mode=EXCLUSIVE, which even a
// read waits for.
func TestOpenContext_EveryWaitEndsWithTheContext(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setUp func(t *testing.T, path string) (before func())
		stage string // the step of Open that waited, as its error names it
	}{
		{"WriterAtBegin", func(t *testing.T, path string) func() {
			newBlocker(t, path).exec("BEGIN IMMEDIATE", "CREATE TABLE other(x)")
			return nil
		}, "begin: "},
		{"ReaderAtCommit", func(t *testing.T, path string) func() {
			createTable(t, path)
			newBlocker(t, path).exec("BEGIN", "SELECT count(*) FROM jobs")
			return nil
		}, "create table: "},
		{"WriterAtTheSwitchToWAL", func(t *testing.T, path string) func() {
			b := newBlocker(t, path)
			return func() { b.exec("BEGIN IMMEDIATE") }
		}, "set journal mode: "},
		{"WriterAtBeginOfAFileAStoreHasOpen", func(t *testing.T, path string) func() {
			openHere(t, path)
			newBlocker(t, path).exec("BEGIN IMMEDIATE", "CREATE TABLE other(x)")
			return nil
		}, "begin: "},
		{"ExclusiveLockingMode", func(t *testing.T, path string) func() {
			createTable(t, path)
			newBlocker(t, path).exec("PRAGMA locking_mode=EXCLUSIVE", "BEGIN EXCLUSIVE", "COMMIT")
			return nil
		}, "set synchronous: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "jobs.db")
			before := tc.setUp(t, path)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			// The context ends at Open's first wait; on a clock of the
			// test's, whose waits are over at once, Open must not go on
			// waiting until its busy timeout.
			clock := &fakeClock{t: t, start: time.Now()}
			waited := false
			ctx = context.WithValue(hooks(ctx, before, func() { waited = true; cancel() }), clockKey{}, clock)
			s, err := OpenContext(ctx, path)
			if err == nil {
				s.Close()
				t.Fatal("OpenContext() error = nil, want the context's")
			}
			if !waited || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), tc.stage) {
				t.Fatalf("OpenContext() waited %v, error = %v; want it to wait, then wrap context.Canceled at %q", waited, err, tc.stage)
			}
			if clock.elapsed >= time.Second {
				t.Fatalf("OpenContext() went on waiting for %v after its context ended, want it to return at once", clock.elapsed)
			}
		})
	}
}

// createTable makes path a jobs file, in the rollback journal.
func createTable(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
}

// A writer that never lets go: Open gives up after the busy timeout (here
// shortened) with SQLITE_BUSY, a "locked" error, not at the end of its
// context, which is far away.
func TestOpen_GivesUpOnAWriterAfterTheBusyTimeout(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "jobs.db")
	newBlocker(t, path).exec("BEGIN IMMEDIATE", "CREATE TABLE other(x)")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	waited := false
	ctx = context.WithValue(hooks(ctx, nil, func() { waited = true }), openTimeoutKey{}, 100*time.Millisecond)
	s, err := OpenContext(ctx, path)
	if err == nil {
		s.Close()
		t.Fatal("OpenContext(file a writer never lets go) error = nil, want SQLITE_BUSY")
	}
	var se *sqlite.Error
	if !waited || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("OpenContext() waited %v, error = %v; want it to wait, then fail with SQLITE_BUSY (database is locked)", waited, err)
	}
	if !strings.Contains(err.Error(), "database is locked") {
		t.Errorf("error = %v, want it to say the database is locked", err)
	}
}

// An error that is not SQLITE_BUSY is not waited out: a file that is not a
// database fails at once.
func TestOpen_DoesNotWaitOutAFileThatIsNotADatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "jobs.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	waited := false // a wait ends the call at once: it is caught, not waited out
	s, err := OpenContext(hooks(ctx, nil, func() { waited = true; cancel() }), path)
	if err == nil {
		s.Close()
		t.Fatal("OpenContext(text file) error = nil, want one")
	}
	var se *sqlite.Error
	if waited || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_NOTADB {
		t.Fatalf("OpenContext(text file) waited %v, error = %v; want SQLITE_NOTADB at once", waited, err)
	}
}

// The schema check reads a table's definition token by token, in one
// spelling: what SQLite does not tell apart (the case of keywords and
// names, quotes around a name, whitespace, comments) is not told apart.
func TestSQLTokens_OneSpellingOfWhatMeansTheSame(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"CREATE TABLE jobs(id TEXT)", "create|table|jobs|(|id|text|)"},
		{`create  table "Jobs" ( [ID] text ) -- end`, "create|table|jobs|(|id|text|)"},
		{"a /* x */ b", "a|b"},
		{`'It''s' "two words" 'X'`, `'It''s'|"two words"|'X'`},
		{"a<>b<=c||d 0.5", "a|<>|b|<=|c||||d|0.5"},
		{"x /* never closed", "x"},
		{"x /**/ y -- to the end", "x|y"},
		{"/*/ x */ y /*/ z */", "y"},
		{"x -- one line\r\ny", "x|y"},
		// Names and numbers are whole tokens, whatever their bytes.
		{"fence_1990 < 19, size_Zone $x À", "fence_1990|<|19|,|size_zone|$x|À"},
		// Quotes stay where a name needs them: it starts with a digit,
		// holds a space, or is empty.
		{`"0k" "9lives" "a0" "my col" ""`, `"0k"|"9lives"|a0|"my col"|""`},
		{"'never closed", "'never closed"},
	} {
		if got := strings.Join(sqlTokens(tc.in), "|"); got != tc.want {
			t.Errorf("sqlTokens(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// fakeClock is a clock whose time moves only when Open waits on it: each
// wait is recorded, moves the time on by its length, and is over at once.
// onWait, if set, runs at each wait with the time waited so far: another
// connection's steps, at a time of Open's clock. Open calls it on the
// test's goroutine.
type fakeClock struct {
	t       *testing.T
	start   time.Time
	onWait  func(elapsed time.Duration)
	mu      sync.Mutex // the test may move the time on (advance) while Open runs
	elapsed time.Duration
	waits   []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.start.Add(c.elapsed)
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.elapsed += d
	n, elapsed := len(c.waits), c.elapsed
	c.mu.Unlock()
	// 10 s is 207 waits of the backoff: far more is a wait that does not
	// move the time on.
	if n > 10000 {
		c.t.Fatalf("Open waited %d times in %v", n, elapsed)
	}
	if c.onWait != nil {
		c.onWait(elapsed)
	}
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

// advance moves the time on by d, as a wait that is not Open's own.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.elapsed += d
}

// wantBusy fails the test unless err is SQLITE_BUSY, met at stage.
func wantBusy(t *testing.T, err error, stage string) {
	t.Helper()
	var se *sqlite.Error
	if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || !strings.Contains(err.Error(), stage) {
		t.Fatalf("OpenContext() error = %v, want SQLITE_BUSY at %q", err, stage)
	}
}

// Open tries again after 1 ms, then after twice as long each time, up to
// 50 ms, and gives up once the busy timeout has passed.
func TestOpen_BacksOffFrom1msDoublingTo50ms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	newBlocker(t, path).exec("BEGIN IMMEDIATE", "CREATE TABLE other(x)")
	clock := &fakeClock{t: t, start: time.Now()}
	s, err := OpenContext(context.WithValue(t.Context(), clockKey{}, clock), path)
	if err == nil {
		s.Close()
		t.Fatal("OpenContext(file a writer never lets go) error = nil, want SQLITE_BUSY")
	}
	wantBusy(t, err, "begin: ")
	wantBackoff(t, clock)
}

// wantBackoff fails the test unless Open waited on clock 1 ms, then twice
// as long each time up to 50 ms, and gave up at the first retry after
// 10 s.
func wantBackoff(t *testing.T, clock *fakeClock) {
	t.Helper()
	ms := time.Millisecond
	want := []time.Duration{1 * ms, 2 * ms, 4 * ms, 8 * ms, 16 * ms, 32 * ms, 50 * ms}
	if len(clock.waits) < len(want) || !slices.Equal(clock.waits[:len(want)], want) {
		t.Fatalf("Open waited %v, want it to begin with %v", clock.waits[:min(len(clock.waits), len(want))], want)
	}
	for i, d := range clock.waits[len(want):] {
		if d != 50*ms {
			t.Fatalf("wait %d was %v, want 50ms from the 7th wait on", len(want)+i+1, d)
		}
	}
	wantGaveUpAt10s(t, clock)
}

// wantGaveUpAt10s fails the test unless Open gave up at its first retry
// after 10 s of clock's time, all its waits counted.
func wantGaveUpAt10s(t *testing.T, clock *fakeClock) {
	t.Helper()
	last := clock.waits[len(clock.waits)-1]
	if clock.elapsed <= 10*time.Second || clock.elapsed-last > 10*time.Second {
		t.Fatalf("Open gave up after waiting %v in all, want it to give up at the first retry after 10s", clock.elapsed)
	}
}

// A second Open of a file that a Store of the process has open runs on a
// connection of that Store's pool, and waits for another connection's
// lock as the first Open does: 1 ms, then twice as long each time up to
// 50 ms, until the busy timeout.
func TestOpen_OfAFileAStoreHasOpenBacksOffFrom1msDoublingTo50ms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	first := openHere(t, path)
	newBlocker(t, path).exec("BEGIN IMMEDIATE", "CREATE TABLE other(x)")
	clock := &fakeClock{t: t, start: time.Now()}
	s, err := OpenContext(context.WithValue(t.Context(), clockKey{}, clock), path)
	if err == nil {
		s.Close()
		t.Fatal("OpenContext(file a Store has open, a writer never lets go) error = nil, want SQLITE_BUSY")
	}
	wantBusy(t, err, "begin: ")
	wantBackoff(t, clock)
	if got := first.db.Stats().OpenConnections; got > maxConns {
		t.Errorf("the pool has %d connections open, want at most %d: the second Open ran on it", got, maxConns)
	}
}

// Open's one deadline counts its wait for a connection of the pool too:
// when every connection of the Stores' pool is busy for 9.995 s, and
// another connection holds the file's lock after that, Open gives up 10 s
// after it started, not 10 s after it got a connection.
func TestOpen_WaitsOneDeadlineFromItsStartForThePoolAndTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	first := openHere(t, path)
	if _, err := first.Enqueue(t.Context(), "job"); err != nil {
		t.Fatal(err)
	}
	newBlocker(t, path).exec("BEGIN IMMEDIATE", "CREATE TABLE other(x)")
	claims := holdPool(t, first)
	clock := &fakeClock{t: t, start: time.Now()}
	pooled := 10*time.Second - 5*time.Millisecond
	go func() {
		// Once Open waits for a connection, the claims hold the pool for
		// 9.995 s of its clock; then one ends.
		if !waitFor(func() bool { return first.db.Stats().WaitCount > 0 }) {
			t.Error("Open never waited for a connection of the pool")
		}
		clock.advance(pooled)
		claims[0]()
	}()
	s, err := OpenContext(context.WithValue(t.Context(), clockKey{}, clock), path)
	if err == nil {
		s.Close()
		t.Fatal("OpenContext() error = nil, want SQLITE_BUSY at BEGIN")
	}
	wantBusy(t, err, "begin: ")
	if clock.elapsed < pooled {
		t.Fatalf("Open gave up after %v, before a connection of the pool was free at %v", clock.elapsed, pooled)
	}
	wantGaveUpAt10s(t, clock)
}

// The wait for a connection of the pool ends with OpenContext's context
// too, at once, not when the busy timeout has passed.
func TestOpenContext_TheWaitForAConnectionOfThePoolEndsWithTheContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	first := openHere(t, path)
	if _, err := first.Enqueue(t.Context(), "job"); err != nil {
		t.Fatal(err)
	}
	newBlocker(t, path).exec("BEGIN IMMEDIATE", "CREATE TABLE other(x)")
	holdPool(t, first)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		waitFor(func() bool { return first.db.Stats().WaitCount > 0 })
		cancel()
	}()
	s, err := Within(t, "OpenContext() once its context ended", func() (*Store, error) { return OpenContext(ctx, path) })
	if err == nil {
		s.Close()
		t.Fatal("OpenContext() error = nil, want the context's")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("OpenContext() error = %v, want it to wrap context.Canceled", err)
	}
	if n := first.db.Stats().WaitCount; n == 0 {
		t.Fatal("OpenContext() never waited for a connection of the pool, the wait this test ends")
	}
}

// openHere opens path, and closes it when the test ends.
func openHere(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// holdPool makes every connection of s's pool busy: a claim of "job" on
// each waits for another connection's write lock, which the test holds.
// It returns the claims' cancels; they all end with the test.
func holdPool(t *testing.T, s *Store) []context.CancelFunc {
	t.Helper()
	var cancels []context.CancelFunc
	var wg sync.WaitGroup
	for i := range maxConns {
		ctx, cancel := context.WithCancel(context.Background())
		cancels = append(cancels, cancel)
		wg.Go(func() { s.Claim(ctx, "job", fmt.Sprint("w", i), 20, 10) })
	}
	t.Cleanup(func() {
		for _, cancel := range cancels {
			cancel()
		}
		wg.Wait()
	})
	Eventually(t, "every connection of the pool is held by a claim", func() bool { return s.db.Stats().InUse == maxConns })
	return cancels
}

// waitFor reports whether cond holds within WaitLimit, polling it; for a
// goroutine other than the test's, which cannot end the test.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(WaitLimit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// Open's waits share one deadline: a writer that holds it up for 6 s at
// BEGIN, then a reader that holds up its commit, make it give up 10 s
// after it started, not 10 s after its commit began to wait. The table it
// was creating is rolled back.
func TestOpen_WaitsOneDeadlineForAllItsStatements(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.db")
	writer := newBlocker(t, path)
	writer.exec("BEGIN IMMEDIATE", "CREATE TABLE other(x)")
	reader := newBlocker(t, path)
	clock := &fakeClock{t: t, start: time.Now()}
	clock.onWait = func(elapsed time.Duration) {
		if elapsed >= 6*time.Second && writer != nil {
			writer.exec("COMMIT")
			reader.exec("BEGIN", "SELECT count(*) FROM other")
			writer = nil
		}
	}
	s, err := OpenContext(context.WithValue(t.Context(), clockKey{}, clock), path)
	if err == nil {
		s.Close()
		t.Fatal("OpenContext() error = nil, want SQLITE_BUSY at the commit")
	}
	wantBusy(t, err, "create table: ")
	if writer != nil {
		t.Fatalf("Open gave up after %v, before the writer let go at 6s", clock.elapsed)
	}
	last := clock.waits[len(clock.waits)-1]
	if clock.elapsed <= 10*time.Second || clock.elapsed-last > 10*time.Second {
		t.Fatalf("Open gave up after waiting %v in all, want it to give up at the first retry after 10s", clock.elapsed)
	}
	reader.exec("COMMIT")
	var tables int
	if err := reader.conn.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema WHERE name = 'jobs'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("after Open gave up, the file has %d jobs tables (error %v), want 0: rolled back", tables, err)
	}
}
