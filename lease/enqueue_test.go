package lease_test

import (
	"errors"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 2: Enqueue registers a job only the first time.

func TestEnqueue_NewJobHasDefaultState(t *testing.T) {
	s := newStore(t)
	added, err := s.Enqueue(lease.Bounded(t), "job")
	if err != nil || !added {
		t.Fatalf("Enqueue(new) = %v, %v; want true, nil", added, err)
	}
	wantState(t, s, lease.Job{ID: "job"})
}

func TestEnqueue_DuplicateKeepsLeaseInFlight(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	mustClaim(t, s, "job", "A", 1, 9)

	added, err := s.Enqueue(lease.Bounded(t), "job")
	if err != nil || added {
		t.Fatalf("Enqueue(existing) = %v, %v; want false, nil", added, err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
	if got := claim(t, s, "job", "B", 5, 10); got != 0 {
		t.Fatalf("Claim() of a live lease after duplicate Enqueue = %d, want 0", got)
	}
}

func TestEnqueue_DuplicateKeepsCompletedResult(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	f := mustClaim(t, s, "job", "A", 1, 9)
	if !complete(t, s, "job", "A", f, 1, "done by A") {
		t.Fatalf("Complete() = false, want true")
	}

	if added, err := s.Enqueue(lease.Bounded(t), "job"); err != nil || added {
		t.Fatalf("Enqueue(completed) = %v, %v; want false, nil", added, err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1, Result: "done by A", Done: true})
}

func TestEnqueue_RejectsEmptyID(t *testing.T) {
	s := newStore(t)
	added, err := s.Enqueue(lease.Bounded(t), "")
	if !errors.Is(err, lease.ErrEmptyID) || added {
		t.Fatalf(`Enqueue("") = %v, %v; want false, ErrEmptyID`, added, err)
	}
}

// A new job is held by nobody: its owner is NULL in the table, as a
// released job's is, never the empty string, which other readers of the
// file would take for an owner.
func TestEnqueue_ANewJobsOwnerIsNullInTheTable(t *testing.T) {
	path := newPath(t)
	enqueue(t, openAt(t, path), "job")
	if got := ownerType(t, path, "job"); got != "null" {
		t.Fatalf("a new job's owner is stored as %s, want null", got)
	}
}
