package lease_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// A context that has ended stops every call: nothing is written, and the
// error wraps the context's error and the cause it was given.

var errWorkerStopped = errors.New("the worker is stopping")

// write is a call that writes, on a store where A holds "job" with fence
// 1 until 10: with a live context it changes the stored state.
type write struct {
	name string
	do   func(ctx context.Context, s *lease.Store) error
}

var writes = []write{
	{"Enqueue", func(ctx context.Context, s *lease.Store) error {
		_, err := s.Enqueue(ctx, "new")
		return err
	}},
	{"Claim", func(ctx context.Context, s *lease.Store) error {
		_, err := s.Claim(ctx, "job", "B", 11, 10)
		return err
	}},
	{"Renew", func(ctx context.Context, s *lease.Store) error {
		_, err := s.Renew(ctx, "job", "A", 1, 5, 10)
		return err
	}},
	{"Complete", func(ctx context.Context, s *lease.Store) error {
		_, err := s.Complete(ctx, "job", "A", 1, 5, "r")
		return err
	}},
	{"Release", func(ctx context.Context, s *lease.Store) error {
		_, err := s.Release(ctx, "job", "A", 1)
		return err
	}},
	{"ClaimMany", func(ctx context.Context, s *lease.Store) error {
		_, err := s.ClaimMany(ctx, "job", []string{"B", "C"}, 11, 10)
		return err
	}},
}

// stored returns the stored state of "job" and "new", the zero Job for
// one that is missing.
func stored(t *testing.T, s *lease.Store) [2]lease.Job {
	t.Helper()
	var jobs [2]lease.Job
	for i, id := range []string{"job", "new"} {
		j, err := s.State(context.Background(), id)
		if err != nil {
			t.Fatalf("State(%q) error = %v", id, err)
		}
		if j != nil {
			jobs[i] = *j
		}
	}
	return jobs
}

// untouched is what stored returns when nothing was written after heldByA.
var untouched = [2]lease.Job{{ID: "job", Owner: "A", Until: 10, Fence: 1}}

// wantEnded fails the test unless err wraps the end of a context
// cancelled with errWorkerStopped.
func wantEnded(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errWorkerStopped) {
		t.Errorf("%s error = %v, want one that wraps context.Canceled and its cause (%v)", what, err, errWorkerStopped)
	}
}

func TestEveryMethod_WritesNothingOnceTheContextHasEnded(t *testing.T) {
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			live := newStore(t)
			heldByA(t, live)
			if err := w.do(t.Context(), live); err != nil {
				t.Fatalf("%s() with a live context error = %v", w.name, err)
			}
			if stored(t, live) == untouched {
				t.Fatalf("%s() with a live context wrote nothing: the case shows nothing", w.name)
			}

			s := newStore(t)
			heldByA(t, s)
			ctx, cancel := context.WithCancelCause(t.Context())
			cancel(errWorkerStopped)
			wantEnded(t, w.name+"(ended context)", w.do(ctx, s))
			if got := stored(t, s); got != untouched {
				t.Errorf("%s(ended context) stored %+v; want nothing written: %+v", w.name, got, untouched)
			}
		})
	}
}

// A context that ends while the call waits for another connection's write
// lock stops it there: once the lock ends, nothing has been written.
func TestEveryMethod_WritesNothingWhenTheContextEndsWhileItWaits(t *testing.T) {
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			path := newPath(t)
			s := openAt(t, path)
			heldByA(t, s)
			commit := holdWriteLock(t, path)
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			ctx = lease.WaitWatch(ctx)
			go func() {
				<-lease.Waiting(ctx)
				cancel(errWorkerStopped)
			}()
			err := w.do(ctx, s)
			commit()
			wantEnded(t, w.name+"(context ended while it waited)", err)
			if got := stored(t, s); got != untouched {
				t.Errorf("%s(context ended while it waited) stored %+v; want nothing written: %+v", w.name, got, untouched)
			}
		})
	}
}

// State under an ended context cannot tell whether the job exists: it is
// an error, never "no such job".
func TestState_IsAnErrorOnceTheContextHasEnded(t *testing.T) {
	s := newStore(t)
	heldByA(t, s)
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errWorkerStopped)
	for _, id := range []string{"job", "missing"} {
		j, err := s.State(ctx, id)
		if j != nil {
			t.Errorf("State(%q, ended context) = %+v, want nil and an error", id, *j)
		}
		wantEnded(t, "State("+id+", ended context)", err)
	}
}

func TestOpenContext_ErrorWrapsTheContextsCause(t *testing.T) {
	t.Run("EndedBeforeOpen", func(t *testing.T) {
		path := newPath(t)
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(errWorkerStopped)
		s, err := lease.OpenContext(ctx, path)
		if err == nil {
			s.Close()
		}
		wantEnded(t, "OpenContext(ended context)", err)
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("OpenContext(ended context) created the file (stat: %v), want nothing written", err)
		}
	})
	t.Run("EndedWhileItWaits", func(t *testing.T) {
		path := newPath(t)
		commit := holdWriteLock(t, path)
		defer commit()
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		ctx = lease.WaitWatch(ctx)
		go func() {
			<-lease.Waiting(ctx)
			cancel(errWorkerStopped)
		}()
		s, err := lease.OpenContext(ctx, path)
		if err == nil {
			s.Close()
		}
		wantEnded(t, "OpenContext(context ended while it waited)", err)
	})
}
