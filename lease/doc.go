// Package lease implements job ownership leases with monotonic fencing
// tokens on SQLite.
//
// Worker A claims a job and stalls. Its lease expires, worker B claims the
// same job and completes it, and then A wakes up and tries to complete it
// too. A lease duration alone cannot stop that stale write. This package
// stops it by checking, on every write, both the owner and the generation of
// the lease: the fencing token.
//
//	claim A fence=1 → expires → claim B fence=2 → B completes
//	                 A completes with fence=1 ──────────→ rejected
//
// # State Model
//
// A job is one row of the table
//
//	jobs(id TEXT PRIMARY KEY, owner TEXT, until REAL NOT NULL DEFAULT 0,
//	     fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)
//
// Time is a number the caller passes in as now; it must not decrease from one
// call to the next, and it starts at 0: a negative now is refused
// (ErrInvalidTime), since a job that nobody holds has until 0, which must
// read as expired at every valid now. A lease on a job is live while
// now < until. At now == until it has expired, and the job may be claimed
// again.
//
// Time is a float64, so now+ttl is rounded: a ttl too small to move now
// (1 at now = 1e17, 1e-8 at now = 1.7e9, Unix seconds) would grant a lease
// that has already expired, and is refused (ErrInvalidTTL). Far from that
// limit, until is still now+ttl rounded to float64's 53 bits: pick a unit
// in which ttl is many orders of magnitude above now's last digit.
//
// The fence counts grants. It starts at 0, every successful [Store.Claim]
// adds one and returns the new value, and nothing else changes it: not
// [Store.Release], not reopening the file. Granted fences therefore start at
// 1, and 0 means "not granted". The last fence there is, the largest int64,
// is granted like any other; after it a job cannot be claimed again:
// [Store.Claim] returns [ErrFenceExhausted], naming the job, and changes
// nothing, since the next fence would wrap around to a negative number, and
// fences never go back. (At one grant a nanosecond, that is 292 years.)
//
// Job ids and owners are compared byte for byte: "JOB" is another job than
// "job", "a" another owner than "A", and " " is an owner, not nobody ("").
//
// # Fenced Writes
//
// [Store.Renew], [Store.Complete] and [Store.Release] each name the owner and
// the fence they were granted, and each is one conditional UPDATE that
// matches only the current generation:
//
//	UPDATE jobs SET ... WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?
//
// (Release leaves out the expiry check: a holder may give up a lease that
// has expired, as long as nobody has claimed the job since.) The row count
// decides the answer; a refused call changes nothing.
//
// The invariant that makes a stale write impossible: once B has been
// granted fence n, the stored fence is at least n, and it never goes back.
// A holds a smaller fence, so no fenced write of A's can match the row
// again. Claim reads the row and writes the new fence inside one BEGIN
// IMMEDIATE transaction, so two claims cannot both see the job as free and
// both be granted, whether they come from one process or many.
//
// Every connection runs with synchronous=FULL in WAL mode: once a call that
// writes has returned, its effect survives a crash of the process or a
// power loss, and a fence that was handed out is never handed out again.
//
// # What It Does Not Promise
//
//   - Exactly-once execution. A stalled worker may still run the job's work
//     a second time; what it cannot do is overwrite the stored result.
//   - Clock agreement. now is whatever the caller says. Clock steps and skew
//     between hosts are not modelled: a worker whose clock runs slow believes
//     its lease is live after the store's other users consider it expired.
//   - Side effects outside the store. Only writes through this package are
//     fenced. A worker that sends an email or writes another database must
//     pass its fence along and have that system reject smaller fences, or
//     make the effect idempotent.
//   - Throughput. SQLite gives real locks and transactions on one file; it
//     says nothing about how a large distributed queue would behave. The
//     file must be on a local file system: network file systems often break
//     the locking that WAL mode relies on.
//
// # Opening
//
// [Open] (and [OpenContext], which also gives up when its context ends)
// waits for other connections' locks, for at most the busy timeout of 10 s,
// while it checks and creates the table and switches the file to WAL: for
// a writer, for a reader (the commit and the switch need the file to
// themselves), for a connection that holds the file in exclusive locking
// mode. Every one of those waits ends with the context of OpenContext, with
// an error that wraps the context's; after the busy timeout the error is
// SQLITE_BUSY ("database is locked"). Any other error (a file that is not a
// database, a read-only file) ends Open at once. It checks the shape of an
// existing jobs table first, and refuses one that differs in anything that
// changes meaning (its columns, a collation or a constraint, a trigger or an
// index on it) with [ErrSchema], leaving the file as it was; a table written
// in another spelling (on one line, keywords in lower case, names quoted,
// with comments) is the same table. The path names one file that every
// connection and process shares: a path with a NUL byte and ":memory:" are
// refused.
//
// # Arguments and Errors
//
// Every method checks its arguments before it touches the store, in one
// order: the ttl, then now, then the job id, then the owner (ClaimMany:
// every owner, each invalid one reported as an [OwnerError] at its place),
// and only then the context. The first that is wrong decides the error:
// Claim(ctx, "", "", 5, 0) is [ErrInvalidTTL], Claim(ctx, "", "", 5, 1)
// is [ErrEmptyID], and a call with an empty owner and a cancelled context
// is [ErrEmptyOwner]. A ttl is wrong when it is not a positive finite number,
// or when now+ttl is not a finite number greater than now: a sum that
// overflows to +Inf is refused, never clamped. A now is wrong when it is
// negative, NaN or infinite; -0 is 0. A refused call changes nothing.
//
// A write's error means that nothing was written, and its answer without
// an error that the write is stored. A context that has ended when a call
// starts, that ends while the call waits for another connection's lock,
// or that ends while its statement runs, before the commit, stops the
// call: nothing is written, and the error wraps the context's error and
// its cause (the one given to [context.WithCancelCause]), for
// [errors.Is]. A context that ends once the commit has begun changes
// nothing: the write is stored, and the call reports it as if the context
// had not ended. [Store.State] under an ended context is an error too,
// never "no such job". An error of SQLite itself (a full disk, a busy
// timeout) keeps its *sqlite.Error (modernc.org/sqlite) for [errors.As].
// A call on a closed Store fails with [ErrClosed].
//
// Stored state is read as it was written: a job that nobody holds has
// owner NULL in the table (Job.Owner ""), never the empty string.
//
// # Contexts, Locks and Resources
//
// Each write is one transaction that holds the file's write lock. A call
// that meets another connection's lock waits for it, for at most the busy
// timeout of 10 s (then SQLITE_BUSY, "database is locked"), or until its
// context ends. [Store.State] never waits for a writer: it reads on
// connections of its own (at most 4; a State beyond them waits for one of
// them), and in WAL mode a reader sees the last commit while another
// connection writes, so neither a writer's lock nor writes queued for the
// pool hold it up.
//
// The Stores of one file in one process share its connections: at most 8
// that write and 4 that read, so at most 12 descriptors of the file,
// however many calls and Stores there are. [Store.ClaimMany] runs one
// Claim per owner, on its own goroutine, and the claims beyond 8 wait for
// a connection of the pool, not for the file. The connections stay open
// until the last of the file's Stores closes, and its [Store.Close] closes
// them all: SQLite keeps the descriptor of a connection closed earlier
// open while another connection of the process locks the file, which in
// WAL mode every open one does. [Open] of a file that no Store of the
// process has open opens one connection more while it runs, and closes it
// before it returns; of one that a Store has open, it runs on a
// connection of their pool. [Open]'s waits share one deadline, the busy
// timeout from its start, whatever it waits for: a connection of that
// pool, or another connection's lock, at whichever statement meets it. It
// tries a statement that met the lock again after 1 ms, then after twice
// as long each time, up to 50 ms.
//
// With no owners, ClaimMany claims nothing and returns an empty slice,
// unless its context has ended: the context is checked as for any call. A
// claim of ClaimMany that fails, the context's end included, is an
// [OwnerError] at its owner's place, with that owner's fence 0.
//
// # Paths and Spellings
//
// The path is a file name, never a URI: "%41", "?" and "#" in it are
// those characters of the name. A jobs table created by hand is accepted
// when it means the same as the one this package creates, whatever its
// spelling: keywords and names in any case, names quoted or not, any
// whitespace (CRLF line ends too), comments; a column's name is compared
// as SQLite compares names, its ASCII letters in any case ("ID", "Owner").
package lease
