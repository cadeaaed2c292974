package lease_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 3: State reads the stored row, or nil for a missing job.

func TestState_MissingJobIsNil(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "other")
	j, err := s.State(lease.Bounded(t), "missing")
	if err != nil || j != nil {
		t.Fatalf("State(missing) = %+v, %v; want nil, nil", j, err)
	}
}

func TestState_SeesWritesOfAnotherStore(t *testing.T) {
	path := newPath(t)
	writer := openAt(t, path)
	reader := openAt(t, path)

	enqueue(t, writer, "job")
	wantState(t, reader, lease.Job{ID: "job"})
	f := mustClaim(t, writer, "job", "A", 3, 4)
	wantState(t, reader, lease.Job{ID: "job", Owner: "A", Until: 7, Fence: f})
	if !complete(t, writer, "job", "A", f, 5, "ok") {
		t.Fatalf("Complete() = false, want true")
	}
	wantState(t, reader, lease.Job{ID: "job", Owner: "A", Until: 7, Fence: f, Result: "ok", Done: true})
}

// In WAL mode a reader does not wait for a writer: State reads the last
// commit at once, while another connection holds the write lock and has
// changed the job without committing yet.
func TestState_ReadsAtOnceWhileAnotherConnectionWrites(t *testing.T) {
	path := newPath(t)
	s := openAt(t, path)
	heldByA(t, s)
	commit := holdLock(t, path, "BEGIN IMMEDIATE", "UPDATE jobs SET owner = 'X' WHERE id = 'job'")
	defer commit()
	ctx, cancel := context.WithCancel(lease.Bounded(t))
	defer cancel()
	ctx = lease.WaitWatch(ctx)
	type read struct {
		j   *lease.Job
		err error
	}
	done := make(chan read, 1)
	go func() {
		j, err := s.State(ctx, "job")
		done <- read{j, err}
	}()
	select {
	case <-lease.Waiting(ctx):
		cancel()
		<-done
		t.Fatal("State() waited for the other connection's write lock, want it to read at once")
	case r := <-done:
		if r.err != nil || r.j == nil || *r.j != (lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1}) {
			t.Fatalf("State() = %+v, %v; want the last commit: A holds fence 1 until 10", r.j, r.err)
		}
	}
}

func TestState_RejectsEmptyID(t *testing.T) {
	s := newStore(t)
	j, err := s.State(lease.Bounded(t), "")
	if !errors.Is(err, lease.ErrEmptyID) || j != nil {
		t.Fatalf(`State("") = %+v, %v; want nil, ErrEmptyID`, j, err)
	}
}

// State reads on connections of its own: with every connection of the
// writes' pool held by a claim that waits for another connection's write
// lock, and more claims waiting for one of them, State still reads the
// last commit, before the lock ends.
func TestState_DoesNotWaitBehindTheWritePool(t *testing.T) {
	path := newPath(t)
	s := openAt(t, path)
	heldByA(t, s)
	commit := holdWriteLock(t, path)
	defer commit()
	var wg sync.WaitGroup
	defer wg.Wait()
	// The claims wait for the lock until the test ends, longer than the
	// suite's bound on State's wait: State cannot pass by getting a
	// connection of the writes' pool that a claim let go.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for i := range 12 {
		wg.Go(func() { s.Claim(ctx, "job", fmt.Sprint("w", i), 20, 10) })
	}
	lease.Eventually(t, "every connection of the writes' pool is held and a claim waits for one", func() bool {
		st := lease.Stats(s)
		return st.InUse == 8 && st.WaitCount > 0
	})
	j, err := lease.Within(t, "State() while the writes' pool is busy", func() (*lease.Job, error) { return s.State(lease.Bounded(t), "job") })
	if err != nil || j == nil || *j != (lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1}) {
		t.Fatalf("State() while the writes' pool waits for a lock = %+v, %v; want the last commit: A holds fence 1 until 10", j, err)
	}
}
