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
// # Contexts and Concurrent Claims
//
// Every method takes a context, which bounds its waits for another
// connection's write lock: when it ends, the call returns an error that
// wraps the context's, and changes nothing. [Store.ClaimMany] checks its
// arguments like [Store.Claim] (ttl, now, then the id), then every owner,
// reporting each invalid one as an [OwnerError] at its place; with no owners
// it claims nothing and returns an empty slice.
package lease
