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
// call to the next. A lease on a job is live while now < until. At
// now == until it has expired, and the job may be claimed again.
//
// The fence counts grants. It starts at 0, every successful [Store.Claim]
// adds one and returns the new value, and nothing else changes it: not
// [Store.Release], not reopening the file. Granted fences therefore start at
// 1, and 0 means "not granted".
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
package lease
