package lease_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

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
			if err := w.do(lease.Bounded(t), live); err != nil {
				t.Fatalf("%s() with a live context error = %v", w.name, err)
			}
			if stored(t, live) == untouched {
				t.Fatalf("%s() with a live context wrote nothing: the case shows nothing", w.name)
			}

			s := newStore(t)
			heldByA(t, s)
			ctx, cancel := context.WithCancelCause(lease.Bounded(t))
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
			ctx, cancel := context.WithCancelCause(lease.Bounded(t))
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
	ctx, cancel := context.WithCancelCause(lease.Bounded(t))
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
		ctx, cancel := context.WithCancelCause(lease.Bounded(t))
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
		ctx, cancel := context.WithCancelCause(lease.Bounded(t))
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

// A write's error means that nothing was written, and its answer that the
// write is stored: each write, its context ended at moments spread over
// the time one takes (before it starts, while it waits, while its
// statement runs, at the commit, after), is either stored and answered
// true, or refused and reported as an error, never stored and reported as
// cancelled (a worker that then retried would get false, and believe it
// had lost its lease).
func TestEveryWrite_AnErrorMeansNothingWasWritten(t *testing.T) {
	s := newStore(t)
	// How long one write takes here (the median of a few), which sets the
	// spread of the moments.
	var took []time.Duration
	for i := range 9 {
		start := time.Now()
		enqueue(t, s, fmt.Sprint("timing-", i))
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	spread := took[len(took)/2]
	rnd := rand.New(rand.NewPCG(1, 2))
	// ClaimMany's write is the claim of the owner it granted, if any: its
	// answer is that owner's, and an owner with an error got no fence.
	var granted string
	claimMany := func(ctx context.Context, id string) (bool, error) {
		owners := []string{"B", "C"}
		fences, err := s.ClaimMany(ctx, id, owners, 20, 5)
		granted = ""
		for i, fence := range fences {
			switch oerr := ownerErr(err, i); {
			case fence != 0 && oerr != nil:
				t.Fatalf("ClaimMany() gave %s fence %d and the error %v", owners[i], fence, oerr)
			case fence != 0:
				granted = owners[i]
				return true, nil
			}
		}
		return false, err
	}
	writes := []struct {
		name  string
		do    func(ctx context.Context, id string) (bool, error)
		wrote func(j *lease.Job) bool // whether the write is in j
	}{
		{"Enqueue", func(ctx context.Context, id string) (bool, error) { return s.Enqueue(ctx, id+"-new") },
			nil},
		{"Renew", func(ctx context.Context, id string) (bool, error) { return s.Renew(ctx, id, "A", 1, 5, 100) },
			func(j *lease.Job) bool { return j.Until == 105 }},
		{"Complete", func(ctx context.Context, id string) (bool, error) { return s.Complete(ctx, id, "A", 1, 5, "r") },
			func(j *lease.Job) bool { return j.Done && j.Result == "r" }},
		{"Release", func(ctx context.Context, id string) (bool, error) { return s.Release(ctx, id, "A", 1) },
			func(j *lease.Job) bool { return j.Owner == "" }},
		{"Claim", func(ctx context.Context, id string) (bool, error) {
			fence, err := s.Claim(ctx, id, "B", 20, 5)
			return fence == 2, err
		}, func(j *lease.Job) bool { return j.Owner == "B" && j.Fence == 2 }},
		{"ClaimMany", claimMany,
			func(j *lease.Job) bool { return j.Fence == 2 && (granted == "" || j.Owner == granted) }},
	}
	const tries = 100
	for _, w := range writes {
		stored, refused := 0, 0
		for i := range tries {
			id := fmt.Sprintf("%s-%d", w.name, i)
			enqueue(t, s, id)
			mustClaim(t, s, id, "A", 1, 10)
			ctx, cancel := context.WithCancel(lease.Bounded(t))
			if i == 0 {
				// Before it starts, whatever the machine's load: each
				// write is refused at least once.
				cancel()
			}
			stop := time.AfterFunc(time.Duration(rnd.Int64N(int64(spread)+1)), cancel)
			ok, err := w.do(ctx, id)
			stop.Stop()
			cancel()
			var j *lease.Job
			if w.wrote == nil {
				j, _ = s.State(lease.Bounded(t), id+"-new")
			} else {
				got := state(t, s, id)
				j = &got
			}
			wrote := j != nil && (w.wrote == nil || w.wrote(j))
			switch {
			case err != nil && wrote:
				t.Fatalf("%s(context ended at a random moment) error = %v, and the write is stored: %+v", w.name, err, j)
			case err == nil && ok != wrote:
				t.Fatalf("%s(context ended at a random moment) = %v, nil, and the write is stored: %v (%+v)", w.name, ok, wrote, j)
			case err != nil && !errors.Is(err, context.Canceled):
				t.Fatalf("%s(context ended at a random moment) error = %v, want one that wraps context.Canceled", w.name, err)
			case err != nil:
				refused++
			default:
				stored++
			}
		}
		t.Logf("%s: %d stored, %d refused, of %d with their context ended within %v", w.name, stored, refused, tries, spread)
	}
}

// ownerErr returns the *lease.OwnerError at place i of err, an error of
// ClaimMany; nil if there is none.
func ownerErr(err error, i int) error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil
	}
	for _, e := range joined.Unwrap() {
		var oe *lease.OwnerError
		if errors.As(e, &oe) && oe.Index == i {
			return oe
		}
	}
	return nil
}
