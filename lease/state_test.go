package lease_test

import (
	"errors"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 3: State reads the stored row, or nil for a missing job.

func TestState_MissingJobIsNil(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "other")
	j, err := s.State(t.Context(), "missing")
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

func TestState_RejectsEmptyID(t *testing.T) {
	s := newStore(t)
	j, err := s.State(t.Context(), "")
	if !errors.Is(err, lease.ErrEmptyID) || j != nil {
		t.Fatalf(`State("") = %+v, %v; want nil, ErrEmptyID`, j, err)
	}
}
