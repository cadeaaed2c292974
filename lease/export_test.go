package lease

import (
	"context"
	"database/sql"
	"runtime"
	"sync"
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
