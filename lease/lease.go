package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors returned for input that the contract rejects. They are returned
// before the store is touched, so a rejected call changes nothing.
var (
	// ErrInvalidTTL is returned when a ttl is zero, negative, NaN or
	// infinite, or when now+ttl is not a finite float64 greater than now
	// (a ttl too small to move now, after rounding, would grant a lease
	// that has already expired).
	ErrInvalidTTL = errors.New("lease: ttl must be a positive finite number")
	// ErrInvalidTime is returned when now is negative, NaN or infinite.
	// Time starts at 0: a job that nobody holds has until 0, which must
	// read as expired at every valid now.
	ErrInvalidTime = errors.New("lease: now must be a finite number, not negative")
	// ErrEmptyID is returned when a job id is the empty string.
	ErrEmptyID = errors.New("lease: job id must not be empty")
	// ErrEmptyOwner is returned when an owner is the empty string.
	ErrEmptyOwner = errors.New("lease: owner must not be empty")
	// ErrFenceExhausted is returned by Claim for a job whose fence is
	// already the largest int64: a grant would have to wrap the fence
	// around to a smaller number, and fences never go back. The job can
	// no longer be claimed; its stored state is left as it is.
	ErrFenceExhausted = errors.New("lease: the job's fences are used up")
	// ErrSchema is returned by Open when the file holds a jobs table that
	// differs from the one this package creates: its columns, their types,
	// defaults, collations or constraints, or triggers or indexes on it.
	// Open then leaves the file as it was.
	ErrSchema = errors.New("lease: jobs table has an unexpected shape")
)

// busyTimeoutMillis bounds how long a connection waits for another writer's
// lock before a write fails with SQLITE_BUSY.
const busyTimeoutMillis = 10000

// maxConns bounds the pool of connections of a Store: claims beyond it
// (ClaimMany of many owners) wait for a connection, not for the file lock.
const maxConns = 8

// jobsTable is the jobs table as this package defines it.
const jobsTable = `jobs (
	id     TEXT PRIMARY KEY,
	owner  TEXT,
	until  REAL NOT NULL DEFAULT 0,
	fence  INTEGER NOT NULL DEFAULT 0,
	result TEXT,
	done   INTEGER NOT NULL DEFAULT 0
)`

// schema is step 1 of the contract. It must stay idempotent: running it on
// a file that already holds jobs keeps every fence, so that a restarted
// worker cannot make an expired token valid again.
const schema = "CREATE TABLE IF NOT EXISTS " + jobsTable

// Job is the stored state of one job.
type Job struct {
	ID     string
	Owner  string  // "" when nobody holds it (NULL in the table)
	Until  float64 // the lease is live while now < Until
	Fence  int64   // the generation of the last grant; 0 before the first
	Result string  // "" until completed
	Done   bool
}

// Store is a handle on one SQLite file of jobs. It is safe for concurrent
// use; several Stores, in one process or many, may share a file. The Stores
// of one file in one process share its connections (see shared).
type Store struct {
	db     *sql.DB // the writes' pool, of at most maxConns connections
	reads  *sql.DB // State's, of at most maxReads: it never waits for a writer
	file   *shared
	closed atomic.Bool
}

// maxReads bounds State's own connections: States beyond it wait for one
// of them, never for a writer's.
const maxReads = 4

// shared is a file's connections in this process, shared by its Stores:
// SQLite keeps the descriptor of a closed connection open while another
// connection of the process holds a lock on the same file (closing it
// would drop that connection's POSIX locks too), and in WAL mode every
// open connection holds one. Connections of one pool, shared and never
// closed before the last Store of the file is, leave no descriptor behind.
type shared struct {
	info      os.FileInfo // the file's identity
	db, reads *sql.DB
	stores    int
}

// files are the files this process has open, each with its Stores'
// connections.
var files struct {
	sync.Mutex
	open []*shared
}

// dsn returns the modernc.org/sqlite data source name for path. The pragmas
// sit in the DSN so that every pooled connection gets them, and _txlock makes
// every transaction BEGIN IMMEDIATE. The WAL journal mode is a property of
// the file, which Open sets once (setWAL).
func dsn(path string) string {
	return "file:" + escapePath(path) +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", busyTimeoutMillis) +
		"&_pragma=synchronous(FULL)" +
		"&_txlock=immediate"
}

// escapePath returns path as the path of a "file:" URI. SQLite reads
// "file:" names as URIs: it escapes what a URI would misread, and gives an
// absolute path an empty authority, so that one starting with "//" is not
// read as a host.
func escapePath(path string) string {
	escaped := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	if strings.HasPrefix(escaped, "/") {
		escaped = "//" + escaped
	}
	return escaped
}

// checkPath refuses the paths that would not name one file that every
// connection, and every process, shares.
func checkPath(path string) error {
	switch {
	case path == "":
		return errors.New("empty path")
	case strings.ContainsRune(path, 0):
		return errors.New("path contains a NUL byte")
	case path == ":memory:":
		// Each pooled connection would get a database of its own, and no
		// other process could see it: leases need one shared file.
		return errors.New("an in-memory database cannot be shared by connections and processes; give a file path")
	}
	return nil
}

// Open opens the jobs file at path, creating the file and the jobs table if
// they do not exist yet (step 1). Opening a file that already holds jobs
// keeps them. Open fails if path is not a SQLite database or if its jobs
// table has another shape (ErrSchema), and then leaves the file as it was.
// It waits for a writer of another connection or process, for at most the
// busy timeout (10 s); OpenContext also gives up when its context ends.
func Open(path string) (*Store, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is Open, waiting for other connections at most until ctx
// ends: every wait of it, for another connection's lock or for anything
// else, ends when ctx does, with an error that wraps ctx's.
func OpenContext(ctx context.Context, path string) (*Store, error) {
	if err := checkPath(path); err != nil {
		return nil, &openError{path, err}
	}
	// Every wait of Open ends by one deadline, the busy timeout from now,
	// whatever it waits for first: a connection of the file's pool, the
	// file's lock, the schema check.
	deadline := clockOf(ctx).Now().Add(openTimeout(ctx))
	f, err := openShared(ctx, path, deadline)
	if err != nil {
		return nil, &openError{path, withContext(ctx, err)}
	}
	return &Store{db: f.db, reads: f.reads, file: f}, nil
}

// openShared prepares the file at path (see prepare), waiting for other
// connections until deadline, and returns its connections, counting one
// Store more: those of this process's Stores of it, or new ones.
func openShared(ctx context.Context, path string, deadline time.Time) (*shared, error) {
	if f := sharedOf(path); f != nil {
		// On a connection of its own pool: one more would leave its
		// descriptor open when it closed (see shared). The wait for one
		// ends by Open's deadline too.
		wait, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		conn, err := f.db.Conn(wait)
		if err == nil {
			err = prepareOn(ctx, conn, true, deadline)
			conn.Close()
		}
		if err != nil {
			f.release()
			return nil, err
		}
		return f, nil
	}
	if err := prepare(ctx, path, deadline); err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if hook, ok := ctx.Value(beforeShareHook{}).(func()); ok {
		hook()
	}
	files.Lock()
	defer files.Unlock()
	for _, f := range files.open {
		if os.SameFile(f.info, info) {
			// Another Open of the file got there first.
			f.stores++
			return f, nil
		}
	}
	// sql.Open connects to nothing yet: an error is an unknown driver's.
	db, err := sql.Open("sqlite", dsn(path))
	reads, rerr := sql.Open("sqlite", dsn(path)+"&_pragma=query_only(1)")
	if err := errors.Join(err, rerr); err != nil {
		return nil, err
	}
	// Connections are kept until the last Store closes: one closed
	// before would leave its descriptor open (see shared).
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	reads.SetMaxOpenConns(maxReads)
	reads.SetMaxIdleConns(maxReads)
	f := &shared{info: info, db: db, reads: reads, stores: 1}
	files.open = append(files.open, f)
	return f, nil
}

// sharedOf returns the connections of this process's Stores of the file at
// path, counting one Store more; nil if none has it open.
func sharedOf(path string) *shared {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	files.Lock()
	defer files.Unlock()
	for _, f := range files.open {
		if os.SameFile(f.info, info) {
			f.stores++
			return f
		}
	}
	return nil
}

// release counts one Store of f less, and closes its connections after the
// last one.
func (f *shared) release() error {
	files.Lock()
	defer files.Unlock()
	if f.stores--; f.stores > 0 {
		return nil
	}
	files.open = slices.DeleteFunc(files.open, func(other *shared) bool { return other == f })
	return errors.Join(f.db.Close(), f.reads.Close())
}

// openError is an error of Open: "lease: open PATH: " and the cause,
// without the cause's own "lease: ", so that a sentinel (ErrSchema) reads
// once.
type openError struct {
	path string
	err  error
}

func (e *openError) Error() string {
	return fmt.Sprintf("lease: open %s: %s", e.path, strings.TrimPrefix(e.err.Error(), "lease: "))
}

func (e *openError) Unwrap() error { return e.err }

// prepare checks the shape of an existing jobs table, creates it when it
// is missing, and then switches the file to WAL, on a connection of its
// own. The check and the creation run in one BEGIN IMMEDIATE transaction,
// so a file that is refused is left untouched, before its journal mode
// changes: the connection is closed when prepare returns, and SQLite rolls
// back a transaction that its connection closes without a commit.
//
// The connection has no busy timeout: SQLite's busy handler would wait
// whatever ctx says, and opening a connection runs its DSN's pragmas with
// no context at all. Each statement that meets another connection's lock
// is tried again here instead, until deadline (Open's: the busy timeout,
// 10 s, from its start) passes or ctx ends; an error that is not
// SQLITE_BUSY (a file that is not a database, a read-only file) ends
// prepare at once.
func prepare(ctx context.Context, path string, deadline time.Time) error {
	db, err := sql.Open("sqlite", prepareDSN(path))
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return prepareOn(ctx, conn, false, deadline)
}

// prepareOn is prepare on conn: prepare's own connection, or, pooled, a
// connection of the Stores of the file in this process, whose busy
// timeout it sets to 0 while it runs and then back, and which it hands
// back with no transaction open. It waits for other connections' locks
// until deadline, on ctx's clock.
func prepareOn(ctx context.Context, conn *sql.Conn, pooled bool, deadline time.Time) (err error) {
	if pooled {
		if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout=0"); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout=%d", busyTimeoutMillis))
	}
	clock := clockOf(ctx)
	exec := func(stmt string) error {
		return retryBusy(ctx, clock, deadline, func() error {
			_, err := conn.ExecContext(ctx, stmt)
			return err
		})
	}
	// What the pool's connections get from their DSN: the table's
	// creation is as durable as any write.
	if err := exec("PRAGMA synchronous=FULL"); err != nil {
		return fmt.Errorf("set synchronous: %w", err)
	}
	if err := exec("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			// A refused file is left as it was; and a pooled connection
			// must not keep the transaction, and the file's write lock.
			// (After the commit there is none, and ROLLBACK does nothing.)
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	if err := checkSchema(ctx, conn); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	// A reader holds up the commit, which needs the file to itself.
	if err := exec("COMMIT"); err != nil {
		return fmt.Errorf("create table: %w", err)
	}
	// So does the WAL switch, and SQLite calls no busy handler for it when
	// another connection has begun to write (as another Open may have,
	// since the commit).
	if hook, ok := ctx.Value(beforeWALHook{}).(func()); ok {
		hook()
	}
	var mode string
	err = retryBusy(ctx, clock, deadline, func() error {
		return conn.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode)
	})
	if err != nil {
		return fmt.Errorf("set journal mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %s, want wal (is the file on a local file system?)", mode)
	}
	return nil
}

// prepareDSN returns the data source name of prepare's connection to path:
// no busy timeout (see prepare), and no pragma that would read the file
// while the connection opens.
func prepareDSN(path string) string {
	return "file:" + escapePath(path) + "?_pragma=busy_timeout(0)"
}

// beforeShareHook, beforeWALHook, waitHook, openTimeoutKey and clockKey
// are the keys of context values that tests set, to order another
// connection's steps with Open's without guessing at timing, and to
// shorten or follow its waits: a func() that Open calls once it has
// prepared a file that no Store of the process had open, before it
// shares the file's connections; one that prepare calls between its
// commit and the switch to WAL; one that retryBusy calls each time
// another connection's lock makes it wait; the time.Duration that
// replaces the busy timeout; and the clock that Open reads and waits
// with.
type (
	beforeShareHook struct{}
	beforeWALHook   struct{}
	waitHook        struct{}
	openTimeoutKey  struct{}
	clockKey        struct{}
)

// clock is what Open reads the time and waits with.
type clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// systemClock is the clock of the system.
type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// clockOf returns the system's clock, or the one a test set in ctx.
func clockOf(ctx context.Context) clock {
	if c, ok := ctx.Value(clockKey{}).(clock); ok {
		return c
	}
	return systemClock{}
}

// openTimeout returns how long Open waits for other connections' locks:
// the busy timeout, or what a test set in ctx.
func openTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(openTimeoutKey{}).(time.Duration); ok {
		return d
	}
	return busyTimeoutMillis * time.Millisecond
}

// retryBusy calls f until it does not fail with SQLITE_BUSY, deadline
// passes on clock or ctx ends, and returns its last error. It waits 1 ms
// before the first retry, and twice as long before each next one, up to
// 50 ms.
func retryBusy(ctx context.Context, clock clock, deadline time.Time, f func() error) error {
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := f()
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || clock.Now().After(deadline) {
			return err
		}
		if hook, ok := ctx.Value(waitHook{}).(func()); ok {
			hook()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up waiting for another writer)", err)
		case <-clock.After(wait):
		}
	}
}

// querier is what checkSchema reads with: a connection in a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// column is one row of PRAGMA table_xinfo. SQLite reports a type it
// knows (TEXT, REAL, INTEGER) in upper case however it was written, and
// any other as written.
type column struct {
	name, typ string
	notNull   bool
	dflt      string
	pk        bool
	hidden    bool // a generated column
}

var wantColumns = []column{
	{name: "id", typ: "TEXT", pk: true},
	{name: "owner", typ: "TEXT"},
	{name: "until", typ: "REAL", notNull: true, dflt: "0"},
	{name: "fence", typ: "INTEGER", notNull: true, dflt: "0"},
	{name: "result", typ: "TEXT"},
	{name: "done", typ: "INTEGER", notNull: true, dflt: "0"},
}

// checkSchema compares an existing jobs table with the one schema creates,
// and names the first difference: its columns, then its definition (which
// holds collations and constraints, such as COLLATE NOCASE, CHECK or
// UNIQUE, that no pragma shows), then triggers and indexes on it. A file
// without a jobs table passes.
func checkSchema(ctx context.Context, tx querier) error {
	// SQLite's names are case-insensitive: "Jobs" is the table that the
	// package's statements read and write.
	var kind, name, def string
	err := tx.QueryRowContext(ctx, `SELECT type, name, sql FROM sqlite_schema WHERE name = 'jobs' COLLATE NOCASE`).Scan(&kind, &name, &def)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read jobs table: %w", err)
	}
	if kind != "table" {
		return fmt.Errorf("%w: jobs is a %s", ErrSchema, kind)
	}
	got, err := columns(ctx, tx)
	if err != nil {
		return err
	}
	if len(got) != len(wantColumns) {
		return fmt.Errorf("%w: %d columns, want %d", ErrSchema, len(got), len(wantColumns))
	}
	for i, want := range wantColumns {
		if got[i] != want {
			return fmt.Errorf("%w: column %d is %+v, want %+v", ErrSchema, i+1, got[i], want)
		}
	}
	// SQLite keeps the statement that created the table, without IF NOT
	// EXISTS.
	if want := normalize("CREATE TABLE " + jobsTable); normalize(def) != want {
		return fmt.Errorf("%w: it is defined as %q, want %q", ErrSchema, normalize(def), want)
	}
	rows, err := tx.QueryContext(ctx, `SELECT type, name FROM sqlite_schema WHERE tbl_name = 'jobs' COLLATE NOCASE AND type IN ('trigger', 'index') ORDER BY type, name`)
	if err != nil {
		return fmt.Errorf("read jobs table: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ, other string
		if err := rows.Scan(&typ, &other); err != nil {
			return fmt.Errorf("read jobs table: %w", err)
		}
		// The primary key's own index is SQLite's; any other changes
		// what a write does or refuses.
		if other != "sqlite_autoindex_"+name+"_1" {
			return fmt.Errorf("%w: %s %s on it is not one this package creates", ErrSchema, typ, other)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read jobs table: %w", err)
	}
	return nil
}

// columns returns the columns of the jobs table, hidden ones included.
func columns(ctx context.Context, tx querier) ([]column, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, type, "notnull", coalesce(dflt_value, ''), pk, hidden FROM pragma_table_xinfo('jobs') ORDER BY cid`)
	if err != nil {
		return nil, fmt.Errorf("read jobs table: %w", err)
	}
	defer rows.Close()
	var got []column
	for rows.Next() {
		var c column
		var pk, hidden int
		if err := rows.Scan(&c.name, &c.typ, &c.notNull, &c.dflt, &pk, &hidden); err != nil {
			return nil, fmt.Errorf("read jobs table: %w", err)
		}
		c.name = asciiLower(c.name) // SQLite's rule for names: ASCII letters in any case
		c.pk = pk > 0
		c.hidden = hidden != 0
		got = append(got, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read jobs table: %w", err)
	}
	return got, nil
}

// normalize returns a CREATE TABLE statement in one spelling, so that two
// spellings of the same table compare equal: its tokens (see sqlTokens),
// one space between them but around parentheses and before commas.
func normalize(def string) string {
	toks := sqlTokens(def)
	var b strings.Builder
	for i, tok := range toks {
		if i > 0 && tok != ")" && tok != "," && toks[i-1] != "(" {
			b.WriteByte(' ')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// sqlTokens splits a SQL statement into its tokens, in one spelling:
// keywords and names in lower case and unquoted where they need no quotes
// (see asciiLower), strings and numbers as written, with no whitespace and
// no comments.
func sqlTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case strings.ContainsRune(" \t\n\r\f", rune(c)):
			i++
		case strings.HasPrefix(s[i:], "--"):
			// To the end of the line, or of s.
			_, rest, _ := strings.Cut(s[i:], "\n")
			i = len(s) - len(rest)
		case strings.HasPrefix(s[i:], "/*"):
			// To "*/", or to the end of s: SQLite reads a comment
			// that is never closed to the end.
			_, rest, _ := strings.Cut(s[i+2:], "*/")
			i = len(s) - len(rest)
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := i + 1
			for j < len(s) && (s[j] != closer || closer != ']' && j+1 < len(s) && s[j+1] == closer) {
				if s[j] == closer {
					j++ // a doubled quote stands for itself
				}
				j++
			}
			tok := s[i:min(j+1, len(s))]
			if c != '\'' {
				// A quoted name: the name itself, where it needs no quotes.
				if name := asciiLower(s[i+1 : min(j, len(s))]); isPlainName(name) {
					tok = name
				}
			}
			toks = append(toks, tok)
			i = j + 1
		case isNameByte(c):
			j := i
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			toks = append(toks, asciiLower(s[i:j]))
			i = j
		default:
			n := 1
			for _, op := range []string{"<>", "<=", ">=", "==", "!=", "||", "<<", ">>"} {
				if strings.HasPrefix(s[i:], op) {
					n = 2
				}
			}
			toks = append(toks, s[i:i+n])
			i += n
		}
	}
	return toks
}

// asciiLower returns s with its ASCII letters in lower case: SQLite's
// names are case-insensitive in ASCII only ("À" is another name than "à").
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// isNameByte reports whether c may be part of a keyword, a name or a
// number.
func isNameByte(c byte) bool {
	return c == '_' || c == '$' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// isPlainName reports whether name can be written without quotes.
func isPlainName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := range len(name) {
		if !isNameByte(name[i]) || name[i] == '.' || name[i] == '$' {
			return false
		}
	}
	return true
}

// Close closes the store. The last Store of its file in this process
// closes every connection to the file, and with them every descriptor.
// A call after Close fails with ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.file.release()
}

// ErrClosed is the error of a call on a Store after its Close.
var ErrClosed = errors.New("lease: the store is closed")

// open returns ErrClosed once s is closed.
func (s *Store) open() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return nil
}

// write runs stmt, a write of one row, in a transaction of its own, and
// reports whether it wrote the row: an error means that nothing was
// written, and no error that the write is stored, however ctx ends. A
// context that ends before the commit (while the call waits for the lock,
// or while the statement runs) rolls the write back; one that ends after
// the commit began does not undo it, and the call reports the write.
func (s *Store) write(ctx context.Context, op, stmt string, args ...any) (bool, error) {
	if err := s.open(); err != nil {
		return false, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, callError(ctx, op, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, stmt, args...)
	if err != nil {
		return false, callError(ctx, op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, callError(ctx, op, err)
	}
	if err := tx.Commit(); err != nil {
		return false, callError(ctx, op, err)
	}
	return n == 1, nil
}

// Enqueue registers job id with the default state: no owner, until 0, fence
// 0, no result, not done (step 2). It reports whether the job was new; an
// existing job keeps its state, so registering it again cannot reset a
// lease in flight.
func (s *Store) Enqueue(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, ErrEmptyID
	}
	return s.write(ctx, "enqueue", `INSERT OR IGNORE INTO jobs(id) VALUES(?)`, id)
}

// State returns the stored state of job id (step 3), or nil and no error if
// there is no such job.
func (s *Store) State(ctx context.Context, id string) (*Job, error) {
	if id == "" {
		return nil, ErrEmptyID
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	var (
		j             Job
		owner, result sql.NullString
	)
	err := s.reads.QueryRowContext(ctx,
		`SELECT id, owner, until, fence, result, done FROM jobs WHERE id=?`, id,
	).Scan(&j.ID, &owner, &j.Until, &j.Fence, &result, &j.Done)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, callError(ctx, "state", err)
	}
	j.Owner, j.Result = owner.String, result.String
	return &j, nil
}

// Claim grants owner a lease on job id until now+ttl and returns the new
// fence (step 4). A job that is missing, done, or leased until a time after
// now is not granted: Claim returns 0. At now == Until the old lease has
// expired and the job may be reassigned. Every grant advances the fence by
// one, so fences handed out for a job are never reused.
//
// The read and the write happen in one BEGIN IMMEDIATE transaction, so two
// concurrent claims cannot both see the job as free.
func (s *Store) Claim(ctx context.Context, id, owner string, now, ttl float64) (int64, error) {
	expires, err := leaseEnd(now, ttl)
	if err != nil {
		return 0, err
	}
	if err := checkHolder(id, owner); err != nil {
		return 0, err
	}
	if err := s.open(); err != nil {
		return 0, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, callError(ctx, "claim", err)
	}
	defer tx.Rollback()

	var (
		until float64
		done  bool
		fence int64
	)
	err = tx.QueryRowContext(ctx, `SELECT until, done, fence FROM jobs WHERE id=?`, id).Scan(&until, &done, &fence)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, callError(ctx, "claim", err)
	}
	if done {
		return 0, nil
	}
	if until > now {
		return 0, nil // the current lease is still live
	}
	if fence == math.MaxInt64 {
		return 0, fmt.Errorf("%w: job %q has handed out fence %d", ErrFenceExhausted, id, fence)
	}
	fence++
	if _, err := tx.ExecContext(ctx, `UPDATE jobs SET owner=?, until=?, fence=? WHERE id=?`, owner, expires, fence, id); err != nil {
		return 0, callError(ctx, "claim", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, callError(ctx, "claim", err)
	}
	return fence, nil
}

// Renew extends the lease of owner at fence on job id until now+ttl (step
// 5). It succeeds only while that lease is live: same owner and fence, not
// done, and now < Until. An expired lease cannot be revived, because a new
// worker may already hold the job.
func (s *Store) Renew(ctx context.Context, id, owner string, fence int64, now, ttl float64) (bool, error) {
	expires, err := leaseEnd(now, ttl)
	if err != nil {
		return false, err
	}
	if err := checkHolder(id, owner); err != nil {
		return false, err
	}
	return s.write(ctx, "renew",
		`UPDATE jobs SET until=? WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?`,
		expires, id, owner, fence, now)
}

// Complete stores result for job id and marks it done (step 6). It succeeds
// only under a live lease: same owner and fence, not done, and now < Until.
// Otherwise it returns false and the stored result is kept, so a worker
// whose lease expired cannot overwrite the result of the worker that took
// over.
func (s *Store) Complete(ctx context.Context, id, owner string, fence int64, now float64, result string) (bool, error) {
	if err := checkTime(now); err != nil {
		return false, err
	}
	if err := checkHolder(id, owner); err != nil {
		return false, err
	}
	return s.write(ctx, "complete",
		`UPDATE jobs SET result=?, done=1 WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?`,
		result, id, owner, fence, now)
}

// Release gives up the lease of owner at fence on job id (step 7): the
// owner is cleared and Until is set to 0, so the job can be claimed at
// once. The fence is kept, so the next claim hands out a new number. It
// returns false unless owner and fence match a job that is not done.
func (s *Store) Release(ctx context.Context, id, owner string, fence int64) (bool, error) {
	if err := checkHolder(id, owner); err != nil {
		return false, err
	}
	return s.write(ctx, "release",
		`UPDATE jobs SET owner=NULL, until=0 WHERE id=? AND owner=? AND fence=? AND done=0`,
		id, owner, fence)
}

// ClaimMany calls Claim for every owner at the same time and returns their
// fences in the order of owners (step 8). Each claim runs on its own
// goroutine, on a connection of the store's pool (at most 8 at once, the
// rest wait for one); for a job that is free, exactly one owner gets a
// fence and every other gets 0. The claims queue for one write lock: a
// claim that waits for it longer than the busy timeout (10 s) fails with
// SQLITE_BUSY.
//
// The arguments are checked first, as Claim checks them (ttl, now, id),
// and then every owner: if any is invalid, nothing is claimed, and the
// error joins an *OwnerError for each invalid owner, at its place. With no
// owners, ClaimMany claims nothing and returns an empty slice. A context
// that is done stops it: nothing is claimed, and the error wraps the
// context's. The error of a claim that fails is an *OwnerError too, at its
// place, with that owner's fence 0.
func (s *Store) ClaimMany(ctx context.Context, id string, owners []string, now, ttl float64) ([]int64, error) {
	if _, err := leaseEnd(now, ttl); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, ErrEmptyID
	}
	var bad []error
	for i, owner := range owners {
		if err := checkHolder(id, owner); err != nil {
			bad = append(bad, &OwnerError{Index: i, Owner: owner, Err: err})
		}
	}
	if len(bad) > 0 {
		return nil, errors.Join(bad...)
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, callError(ctx, "claim many", err)
	}
	fences := make([]int64, len(owners))
	errs := make([]error, len(owners))
	var wg sync.WaitGroup
	for i, owner := range owners {
		wg.Go(func() {
			fences[i], errs[i] = s.Claim(ctx, id, owner, now, ttl)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			errs[i] = &OwnerError{Index: i, Owner: owners[i], Err: err}
		}
	}
	return fences, errors.Join(errs...)
}

// OwnerError is the error of one owner of ClaimMany, at its place in the
// owners it was given. Its message names the place and the owner, then
// the error.
type OwnerError struct {
	Index int    // in owners
	Owner string // owners[Index]
	Err   error
}

func (e *OwnerError) Error() string {
	return fmt.Sprintf("owners[%d] (%q): %v", e.Index, e.Owner, e.Err)
}

func (e *OwnerError) Unwrap() error { return e.Err }

// leaseEnd validates ttl, then now, and returns now+ttl, which must be
// finite and later than now.
func leaseEnd(now, ttl float64) (float64, error) {
	if !(ttl > 0) || math.IsInf(ttl, 1) {
		return 0, fmt.Errorf("%w: got %v", ErrInvalidTTL, ttl)
	}
	if err := checkTime(now); err != nil {
		return 0, err
	}
	until := now + ttl
	if math.IsInf(until, 0) {
		return 0, fmt.Errorf("%w: now+ttl overflows (now %v, ttl %v)", ErrInvalidTTL, now, ttl)
	}
	if !(until > now) {
		return 0, fmt.Errorf("%w: ttl %v is too small to move now %v in float64", ErrInvalidTTL, ttl, now)
	}
	return until, nil
}

func checkTime(now float64) error {
	if math.IsNaN(now) || math.IsInf(now, 0) || now < 0 {
		return fmt.Errorf("%w: got %v", ErrInvalidTime, now)
	}
	return nil
}

func checkHolder(id, owner string) error {
	if id == "" {
		return ErrEmptyID
	}
	if owner == "" {
		return ErrEmptyOwner
	}
	return nil
}

// callError is the error of op when the store failed it: "lease: op: "
// and err, with ctx's end (see withContext).
func callError(ctx context.Context, op string, err error) error {
	return fmt.Errorf("lease: %s: %w", op, withContext(ctx, err))
}

// withContext returns err, which also wraps ctx's error and its cause when
// ctx has ended: the driver may report the end as an interrupted
// statement, or as ctx's error without the cause that
// context.WithCancelCause gave it.
func withContext(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	for _, end := range []error{context.Cause(ctx), ctx.Err()} {
		if !errors.Is(err, end) {
			err = fmt.Errorf("%w (%w)", err, end)
		}
	}
	return err
}
