package lease

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// busyWatch is a context that notices when a call made with it waits for
// another connection's lock: in SQLite's busy handler, which
// modernc.org/sqlite makes ask the context of the call in progress, on
// every retry, whether to go on waiting; or in Open's own retries, which
// call the context's waitHook. A test then knows that a call waits for a
// lock, rather than guess it from time.
type busyWatch struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

// WaitWatch returns ctx, watched for waits for a lock (see Waiting).
func WaitWatch(ctx context.Context) context.Context {
	return &busyWatch{Context: ctx, waiting: make(chan struct{})}
}

// Waiting returns a channel that is closed once a call made with ctx, a
// context of WaitWatch, waits for another connection's lock.
func Waiting(ctx context.Context) <-chan struct{} {
	return ctx.(*busyWatch).waiting
}

func (w *busyWatch) notice() { w.once.Do(func() { close(w.waiting) }) }

func (w *busyWatch) Done() <-chan struct{} {
	pcs := make([]uintptr, 8)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if f.Function == "modernc.org/sqlite.busyHandler" {
			w.notice()
			break
		}
		if !more {
			break
		}
	}
	return w.Context.Done()
}

func (w *busyWatch) Value(key any) any {
	if key == (waitHook{}) {
		return w.notice
	}
	return w.Context.Value(key)
}

// Stats returns the statistics of the pool of s: how many connections it
// has open and uses, how many calls have waited for one.
func Stats(s *Store) sql.DBStats { return s.db.Stats() }

// BusyTimeout returns the busy timeout of a connection of s's pool, in
// milliseconds: how long a call waits for another connection's lock.
func BusyTimeout(ctx context.Context, s *Store) (int, error) {
	var ms int
	err := s.db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&ms)
	return ms, err
}

// WaitLimit bounds every wait of the suite: for a channel, a condition, a
// call that may block. A fault that breaks locking (a lock taken too late,
// a read on another connection, a shared cache, rows left open) turns a
// wait that takes milliseconds into one that never ends; the suite then
// fails after WaitLimit, saying what it waited for, instead of running
// until go test's own timeout. It is no measure of speed: a wait that
// ends at all ends in milliseconds.
const WaitLimit = 5 * time.Second

// Await returns what ch gives, or fails the test after WaitLimit, naming
// what it waited for.
func Await[T any](tb testing.TB, what string, ch <-chan T) T {
	tb.Helper()
	timer := time.NewTimer(WaitLimit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		tb.Fatalf("waited %v for %s; it never came: a lock that is never released, or a wait that never ends", WaitLimit, what)
		panic("unreachable")
	}
}

// Within runs f and returns its results, or fails the test when it has not
// returned after WaitLimit, naming the call (f is then left behind,
// blocked).
func Within[T any](tb testing.TB, call string, f func() (T, error)) (T, error) {
	tb.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	r := Await(tb, call+" to return", done)
	return r.v, r.err
}

// Eventually waits until cond holds, or fails the test after WaitLimit,
// naming what it waited for.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v until %s; it never did", WaitLimit, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// Bounded returns the test's context, ending after WaitLimit: calls made
// with it that wait on each other or on a lock end then, with the
// context's error, which the test reports.
func Bounded(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeoutCause(tb.Context(), WaitLimit, fmt.Errorf("the suite's bound on a wait, %v, passed", WaitLimit))
	tb.Cleanup(cancel)
	return ctx
}
