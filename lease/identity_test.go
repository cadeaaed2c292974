package lease_test

import (
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Ids and owners are compared byte for byte: "JOB" is not "job", "a" is
// not "A", and " " is an owner of its own, not "" (nobody).

// twins enqueues "job" and "JOB", and lets "a" claim "job" (fence 1 until
// 10) and " " claim "JOB" (fence 1 until 10), at now 1.
func twins(t *testing.T, s *lease.Store) {
	t.Helper()
	enqueue(t, s, "job")
	enqueue(t, s, "JOB")
	mustClaim(t, s, "job", "a", 1, 9)
	mustClaim(t, s, "JOB", " ", 1, 9)
}

func TestClaim_IdsAndOwnersAreComparedByteForByte(t *testing.T) {
	s := newStore(t)
	twins(t, s)
	// "JOB" is held by " ", whatever "job" is: no grant before its expiry.
	if got := claim(t, s, "JOB", "a", 5, 10); got != 0 {
		t.Fatalf(`Claim("JOB") while " " holds it = %d, want 0`, got)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "a", Until: 10, Fence: 1})
	wantState(t, s, lease.Job{ID: "JOB", Owner: " ", Until: 10, Fence: 1})
	if j, err := s.State(lease.Bounded(t), "Job"); err != nil || j != nil {
		t.Fatalf(`State("Job") = %+v, %v; want nil, nil: no such job`, j, err)
	}
}

func TestRenew_OwnerIsComparedByteForByte(t *testing.T) {
	s := newStore(t)
	twins(t, s)
	for _, tc := range []struct{ id, owner string }{{"job", "A"}, {"JOB", ""}, {"JOB", "  "}, {"Job", "a"}} {
		if ok, err := s.Renew(lease.Bounded(t), tc.id, tc.owner, 1, 5, 10); ok {
			t.Errorf("Renew(%q, %q) = true, %v; want false", tc.id, tc.owner, err)
		}
	}
	if ok, err := s.Renew(lease.Bounded(t), "JOB", " ", 1, 5, 10); err != nil || !ok {
		t.Fatalf(`Renew("JOB", " ") = %v, %v; want true, nil`, ok, err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "a", Until: 10, Fence: 1})
	wantState(t, s, lease.Job{ID: "JOB", Owner: " ", Until: 15, Fence: 1})
}

func TestComplete_OwnerIsComparedByteForByte(t *testing.T) {
	s := newStore(t)
	twins(t, s)
	for _, tc := range []struct{ id, owner string }{{"job", "A"}, {"JOB", "  "}, {"Job", "a"}} {
		if ok, err := s.Complete(lease.Bounded(t), tc.id, tc.owner, 1, 5, "r"); ok {
			t.Errorf("Complete(%q, %q) = true, %v; want false", tc.id, tc.owner, err)
		}
	}
	if !complete(t, s, "job", "a", 1, 5, "r") {
		t.Fatal(`Complete("job", "a") = false, want true`)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "a", Until: 10, Fence: 1, Result: "r", Done: true})
	wantState(t, s, lease.Job{ID: "JOB", Owner: " ", Until: 10, Fence: 1})
}

func TestRelease_OwnerIsComparedByteForByte(t *testing.T) {
	s := newStore(t)
	twins(t, s)
	for _, tc := range []struct{ id, owner string }{{"job", "A"}, {"JOB", "  "}, {"Job", "a"}} {
		if ok, err := s.Release(lease.Bounded(t), tc.id, tc.owner, 1); ok {
			t.Errorf("Release(%q, %q) = true, %v; want false", tc.id, tc.owner, err)
		}
	}
	if ok, err := s.Release(lease.Bounded(t), "JOB", " ", 1); err != nil || !ok {
		t.Fatalf(`Release("JOB", " ") = %v, %v; want true, nil`, ok, err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "a", Until: 10, Fence: 1})
	wantState(t, s, lease.Job{ID: "JOB", Fence: 1})
}
