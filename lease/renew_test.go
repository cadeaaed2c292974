package lease_test

import (
	"errors"
	"math"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 5: only the current generation may renew, and only while live.

func TestRenew_ExtendsLiveLease(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	f := mustClaim(t, s, "job", "A", 1, 9)
	ok, err := s.Renew(lease.Bounded(t), "job", "A", f, 9, 10)
	if err != nil || !ok {
		t.Fatalf("Renew(live) = %v, %v; want true, nil", ok, err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 19, Fence: f})
	// The old expiry no longer frees the job.
	if got := claim(t, s, "job", "B", 10, 10); got != 0 {
		t.Fatalf("Claim() at the pre-renewal expiry = %d, want 0", got)
	}
}

// refusal is a call that the contract refuses, made after setup; the
// stored state must be unchanged by it.
type refusal struct {
	name  string
	setup func(t *testing.T, s *lease.Store) // leaves the job in the state to refuse from
	owner string
	fence int64
	now   float64
}

// heldByA is the common starting point: A holds fence 1 until 10.
func heldByA(t *testing.T, s *lease.Store) {
	enqueue(t, s, "job")
	mustClaim(t, s, "job", "A", 1, 9)
}

// staleRefusals are the calls that renew and complete both refuse.
var staleRefusals = []refusal{
	// A fence is only ever current once granted: the next one belongs
	// to whoever claims the job next.
	{name: "FenceNeverGranted", setup: heldByA, owner: "A", fence: 2, now: 5},
	{name: "AtExactExpiry", setup: heldByA, owner: "A", fence: 1, now: 10},
	{name: "AfterExpiry", setup: heldByA, owner: "A", fence: 1, now: 11},
	{name: "OtherOwnerWithTheFence", setup: heldByA, owner: "B", fence: 1, now: 5},
	{name: "StaleFenceOfSameOwner", setup: func(t *testing.T, s *lease.Store) {
		heldByA(t, s)
		mustClaim(t, s, "job", "A", 11, 10) // A again, fence 2 until 21
	}, owner: "A", fence: 1, now: 12},
	{name: "AfterRelease", setup: func(t *testing.T, s *lease.Store) {
		heldByA(t, s)
		if ok, err := s.Release(lease.Bounded(t), "job", "A", 1); err != nil || !ok {
			t.Fatalf("Release() = %v, %v; want true, nil", ok, err)
		}
	}, owner: "A", fence: 1, now: 5},
	{name: "DoneJob", setup: func(t *testing.T, s *lease.Store) {
		heldByA(t, s)
		if !complete(t, s, "job", "A", 1, 1, "first") {
			t.Fatalf("Complete() = false, want true")
		}
	}, owner: "A", fence: 1, now: 2},
}

func TestRenew_RefusesAnythingButTheLiveLease(t *testing.T) {
	for _, tc := range staleRefusals {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			tc.setup(t, s)
			before := state(t, s, "job")
			ok, err := s.Renew(lease.Bounded(t), "job", tc.owner, tc.fence, tc.now, 100)
			if err != nil || ok {
				t.Fatalf("Renew(%q, fence=%d, now=%v) = %v, %v; want false, nil", tc.owner, tc.fence, tc.now, ok, err)
			}
			wantState(t, s, before)
		})
	}
}

func TestRenew_RefusesMissingJob(t *testing.T) {
	s := newStore(t)
	ok, err := s.Renew(lease.Bounded(t), "missing", "A", 1, 0, 10)
	if err != nil || ok {
		t.Fatalf("Renew(missing) = %v, %v; want false, nil", ok, err)
	}
	if j, err := s.State(lease.Bounded(t), "missing"); err != nil || j != nil {
		t.Fatalf("State(missing) after Renew = %+v, %v; want nil, nil", j, err)
	}
}

func TestRenew_RejectsInvalidTTL(t *testing.T) {
	for _, ttl := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		s := newStore(t)
		heldByA(t, s)
		ok, err := s.Renew(lease.Bounded(t), "job", "A", 1, 5, ttl)
		if !errors.Is(err, lease.ErrInvalidTTL) || ok {
			t.Fatalf("Renew(ttl=%v) = %v, %v; want false, ErrInvalidTTL", ttl, ok, err)
		}
		wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
	}
}

func TestRenew_RejectsBadArguments(t *testing.T) {
	s := newStore(t)
	heldByA(t, s)
	ctx := lease.Bounded(t)
	if _, err := s.Renew(ctx, "", "A", 1, 5, 10); !errors.Is(err, lease.ErrEmptyID) {
		t.Errorf(`Renew(id "") error = %v, want ErrEmptyID`, err)
	}
	if _, err := s.Renew(ctx, "job", "", 1, 5, 10); !errors.Is(err, lease.ErrEmptyOwner) {
		t.Errorf(`Renew(owner "") error = %v, want ErrEmptyOwner`, err)
	}
	if _, err := s.Renew(ctx, "job", "A", 1, math.NaN(), 10); !errors.Is(err, lease.ErrInvalidTime) {
		t.Errorf("Renew(now NaN) error = %v, want ErrInvalidTime", err)
	}
	if _, err := s.Renew(ctx, "job", "A", 1, -1, 10); !errors.Is(err, lease.ErrInvalidTime) {
		t.Errorf("Renew(now -1) error = %v, want ErrInvalidTime", err)
	}
	if _, err := s.Renew(ctx, "job", "A", 1, 5, 1e-300); !errors.Is(err, lease.ErrInvalidTTL) {
		t.Errorf("Renew(ttl too small to move now) error = %v, want ErrInvalidTTL", err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
}
