package lease_test

import (
	"errors"
	"math"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 6: a completion needs the live lease; a stale one changes nothing.

func TestComplete_StoresResultUnderLiveLease(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	f := mustClaim(t, s, "job", "A", 1, 9)
	ok, err := s.Complete(lease.Bounded(t), "job", "A", f, 9.5, "result of A")
	if err != nil || !ok {
		t.Fatalf("Complete(live) = %v, %v; want true, nil", ok, err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: f, Result: "result of A", Done: true})
}

// The scenario of the package documentation: A stalls, B takes over and
// completes, then A wakes up and tries to complete with its old fence.
func TestComplete_StaleWorkerCannotOverwrite(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	fa := mustClaim(t, s, "job", "A", 1, 9)
	fb := mustClaim(t, s, "job", "B", 11, 10)
	if !complete(t, s, "job", "B", fb, 12, "result of B") {
		t.Fatalf("Complete(B) = false, want true")
	}
	if complete(t, s, "job", "A", fa, 13, "result of A") {
		t.Fatalf("Complete(A, stale fence %d) = true, want false", fa)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "B", Until: 21, Fence: fb, Result: "result of B", Done: true})
}

func TestComplete_RefusesAnythingButTheLiveLease(t *testing.T) {
	for _, tc := range staleRefusals {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			tc.setup(t, s)
			before := state(t, s, "job")
			if complete(t, s, "job", tc.owner, tc.fence, tc.now, "late") {
				t.Fatalf("Complete(%q, fence=%d, now=%v) = true, want false", tc.owner, tc.fence, tc.now)
			}
			wantState(t, s, before)
		})
	}
}

func TestComplete_RefusesMissingJob(t *testing.T) {
	s := newStore(t)
	if complete(t, s, "missing", "A", 1, 0, "r") {
		t.Fatalf("Complete(missing) = true, want false")
	}
	if j, err := s.State(lease.Bounded(t), "missing"); err != nil || j != nil {
		t.Fatalf("State(missing) after Complete = %+v, %v; want nil, nil", j, err)
	}
}

func TestComplete_RejectsBadArguments(t *testing.T) {
	s := newStore(t)
	heldByA(t, s)
	ctx := lease.Bounded(t)
	if _, err := s.Complete(ctx, "", "A", 1, 5, "r"); !errors.Is(err, lease.ErrEmptyID) {
		t.Errorf(`Complete(id "") error = %v, want ErrEmptyID`, err)
	}
	if _, err := s.Complete(ctx, "job", "", 1, 5, "r"); !errors.Is(err, lease.ErrEmptyOwner) {
		t.Errorf(`Complete(owner "") error = %v, want ErrEmptyOwner`, err)
	}
	if _, err := s.Complete(ctx, "job", "A", 1, math.NaN(), "r"); !errors.Is(err, lease.ErrInvalidTime) {
		t.Errorf("Complete(now NaN) error = %v, want ErrInvalidTime", err)
	}
	if _, err := s.Complete(ctx, "job", "A", 1, -1, "r"); !errors.Is(err, lease.ErrInvalidTime) {
		t.Errorf("Complete(now -1) error = %v, want ErrInvalidTime", err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
}
