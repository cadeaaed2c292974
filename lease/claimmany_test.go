package lease_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 8: concurrent claims have exactly one winner.

// winners returns the indexes of the granted fences.
func winners(fences []int64) []int {
	var idx []int
	for i, f := range fences {
		if f != 0 {
			idx = append(idx, i)
		}
	}
	return idx
}

func TestClaimMany_FreshJobHasExactlyOneWinner(t *testing.T) {
	owners := []string{"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"}
	for round := range 5 {
		s := newStore(t)
		enqueue(t, s, "job")
		fences, err := s.ClaimMany(lease.Bounded(t), "job", owners, 1, 9)
		if err != nil {
			t.Fatalf("round %d: ClaimMany() error = %v", round, err)
		}
		if len(fences) != len(owners) {
			t.Fatalf("round %d: ClaimMany() returned %d fences for %d owners", round, len(fences), len(owners))
		}
		won := winners(fences)
		if len(won) != 1 || fences[won[0]] != 1 {
			t.Fatalf("round %d: ClaimMany() = %v, want exactly one fence 1", round, fences)
		}
		// Input order: the winner's slot names the owner that is stored.
		wantState(t, s, lease.Job{ID: "job", Owner: owners[won[0]], Until: 10, Fence: 1})
	}
}

func TestClaimMany_LiveLeaseHasNoWinner(t *testing.T) {
	s := newStore(t)
	heldByA(t, s)
	fences, err := s.ClaimMany(lease.Bounded(t), "job", []string{"B", "C", "D"}, 5, 10)
	if err != nil {
		t.Fatalf("ClaimMany() error = %v", err)
	}
	if got, want := fmt.Sprint(fences), "[0 0 0]"; got != want {
		t.Fatalf("ClaimMany(live lease) = %s, want %s", got, want)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
}

func TestClaimMany_RejectsBadArguments(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	ctx := lease.Bounded(t)
	if _, err := s.ClaimMany(ctx, "job", []string{"A", "B"}, 0, 0); !errors.Is(err, lease.ErrInvalidTTL) {
		t.Errorf("ClaimMany(ttl 0) error = %v, want ErrInvalidTTL", err)
	}
	// The ttl first, then now, then the id, then the owners: the error is
	// the first bad argument's.
	if _, err := s.ClaimMany(ctx, "", []string{""}, math.NaN(), 0); !errors.Is(err, lease.ErrInvalidTTL) {
		t.Errorf(`ClaimMany("", [""], now=NaN, ttl=0) error = %v, want ErrInvalidTTL`, err)
	}
	if _, err := s.ClaimMany(ctx, "", []string{""}, math.NaN(), 10); !errors.Is(err, lease.ErrInvalidTime) {
		t.Errorf(`ClaimMany("", [""], now=NaN, ttl=10) error = %v, want ErrInvalidTime`, err)
	}
	// An empty id is an error whatever else is empty.
	for _, owners := range [][]string{nil, {}, {"A"}, {""}} {
		if fences, err := s.ClaimMany(ctx, "", owners, 0, 10); !errors.Is(err, lease.ErrEmptyID) || fences != nil {
			t.Errorf(`ClaimMany("", %q) = %v, %v; want nil, ErrEmptyID`, owners, fences, err)
		}
	}
	// Nothing was claimed by the rejected calls.
	wantState(t, s, lease.Job{ID: "job"})
}

// Each invalid owner's error is reported at its place, and nothing is
// claimed for the valid ones.
func TestClaimMany_NamesEveryInvalidOwnerAtItsPlace(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	fences, err := s.ClaimMany(lease.Bounded(t), "job", []string{"A", "", "B", ""}, 0, 10)
	if !errors.Is(err, lease.ErrEmptyOwner) || fences != nil {
		t.Fatalf(`ClaimMany(owners "A", "", "B", "") = %v, %v; want nil, ErrEmptyOwner`, fences, err)
	}
	var places []int
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var oe *lease.OwnerError
		if !errors.As(e, &oe) || !errors.Is(oe, lease.ErrEmptyOwner) {
			t.Fatalf("error %v is not an OwnerError of ErrEmptyOwner", e)
		}
		places = append(places, oe.Index)
	}
	if fmt.Sprint(places) != "[1 3]" {
		t.Errorf("the errors are at places %v, want [1 3]", places)
	}
	// Each line names its owner's place and the owner, then the error; the
	// wording is not the contract (see the wheats in mutants/wheats.yaml).
	lines := strings.Split(err.Error(), "\n")
	for i, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		oe := e.(*lease.OwnerError)
		if i >= len(lines) || !strings.Contains(lines[i], strconv.Itoa(oe.Index)) || !strings.Contains(lines[i], `""`) ||
			!strings.HasSuffix(lines[i], oe.Err.Error()) {
			t.Errorf("ClaimMany() error says %q; want line %d to name place %d, owner \"\" and then %q", err, i+1, oe.Index, oe.Err)
		}
	}
	wantState(t, s, lease.Job{ID: "job"})
}

// A claim that fails while it runs is reported as an invalid owner is: an
// OwnerError at its owner's place. Here every owner meets a job whose
// fences are used up.
func TestClaimMany_ReportsAFailedClaimAtItsOwnersPlace(t *testing.T) {
	path, _ := createJobs(t, jobsDDL, fmt.Sprintf(`INSERT INTO jobs(id, fence) VALUES('last', %d)`, int64(math.MaxInt64)))
	s := openAt(t, path)
	fences, err := s.ClaimMany(lease.Bounded(t), "last", []string{"A", "B", "C"}, 1, 9)
	if !errors.Is(err, lease.ErrFenceExhausted) || fmt.Sprint(fences) != "[0 0 0]" {
		t.Fatalf(`ClaimMany("last" at the largest fence, owners A, B, C) = %v, %v; want [0 0 0], ErrFenceExhausted`, fences, err)
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("ClaimMany() error = %v, want one error per owner", err)
	}
	var places []string
	for _, e := range joined.Unwrap() {
		var oe *lease.OwnerError
		if !errors.As(e, &oe) || !errors.Is(oe, lease.ErrFenceExhausted) {
			t.Fatalf("error %v is not an OwnerError of ErrFenceExhausted", e)
		}
		places = append(places, fmt.Sprintf("%d %s", oe.Index, oe.Owner))
	}
	if got, want := strings.Join(places, ", "), "0 A, 1 B, 2 C"; got != want {
		t.Errorf("the errors are at places %s, want %s", got, want)
	}
	wantState(t, s, lease.Job{ID: "last", Fence: math.MaxInt64})
}

// With no owners there is nobody to claim for: an empty result, no error,
// nothing stored.
func TestClaimMany_NoOwnersClaimsNothing(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	for _, owners := range [][]string{nil, {}} {
		fences, err := s.ClaimMany(lease.Bounded(t), "job", owners, 0, 10)
		if err != nil || fences == nil || len(fences) != 0 {
			t.Errorf("ClaimMany(%#v) = %#v, %v; want [], nil", owners, fences, err)
		}
	}
	wantState(t, s, lease.Job{ID: "job"})
}

// A cancelled context stops ClaimMany: no fence is granted.
func TestClaimMany_StopsWhenTheContextIsCancelled(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	ctx, cancel := context.WithCancel(lease.Bounded(t))
	cancel()
	fences, err := s.ClaimMany(ctx, "job", []string{"A", "B", "C"}, 0, 10)
	if !errors.Is(err, context.Canceled) || len(winners(fences)) != 0 {
		t.Fatalf("ClaimMany(cancelled context) = %v, %v; want no fence, context.Canceled", fences, err)
	}
	wantState(t, s, lease.Job{ID: "job"})
}

func TestClaim_ManyStoresOnOneFileHaveOneWinner(t *testing.T) {
	const workers, rounds = 8, 10
	path := newPath(t)
	stores := make([]*lease.Store, workers)
	for i := range stores {
		stores[i] = openAt(t, path)
	}
	enqueue(t, stores[0], "job")
	for round := range rounds {
		// Each round starts after the previous grant has expired.
		now := float64(round)*10 + 1
		fences := make([]int64, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for i, s := range stores {
			wg.Go(func() {
				fences[i], errs[i] = s.Claim(lease.Bounded(t), "job", fmt.Sprintf("w%d", i), now, 5)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: Claim() error = %v", round, err)
		}
		won := winners(fences)
		if len(won) != 1 || fences[won[0]] != int64(round+1) {
			t.Fatalf("round %d: fences = %v, want exactly one fence %d", round, fences, round+1)
		}
		wantState(t, stores[0], lease.Job{ID: "job", Owner: fmt.Sprintf("w%d", won[0]), Until: now + 5, Fence: int64(round + 1)})
	}
}

func TestClaimMany_ManyMoreOwnersThanPooledConnections(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	owners := make([]string, 64)
	for i := range owners {
		owners[i] = fmt.Sprintf("w%02d", i)
	}
	fences, err := s.ClaimMany(lease.Bounded(t), "job", owners, 0, 10)
	if err != nil {
		t.Fatalf("ClaimMany(64 owners) error = %v, want nil", err)
	}
	winner := -1
	for i, f := range fences {
		switch {
		case f == 1 && winner < 0:
			winner = i
		case f != 0:
			t.Fatalf("ClaimMany(64 owners) = %v; want one fence 1 and zeros", fences)
		}
	}
	if winner < 0 {
		t.Fatalf("ClaimMany(64 owners) = %v; want one winner", fences)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: owners[winner], Until: 10, Fence: 1})
}

// A context that ends while the claims wait for another connection's
// write lock stops them all: no fence is granted.
func TestClaimMany_StopsWhenTheContextEndsWhileItWaits(t *testing.T) {
	path := newPath(t)
	s := openAt(t, path)
	enqueue(t, s, "job")
	commit := holdWriteLock(t, path)
	ctx, cancel := context.WithCancel(lease.Bounded(t))
	defer cancel()
	ctx = lease.WaitWatch(ctx)
	go func() {
		<-lease.Waiting(ctx)
		cancel()
	}()
	owners := []string{"A", "B", "C"}
	fences, err := s.ClaimMany(ctx, "job", owners, 0, 10)
	commit()
	if !errors.Is(err, context.Canceled) || fmt.Sprint(fences) != "[0 0 0]" {
		t.Fatalf("ClaimMany(context ended while waiting) = %v, %v; want [0 0 0], context.Canceled", fences, err)
	}
	// Each claim was stopped: each is an OwnerError at its place.
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != len(owners) {
		t.Fatalf("ClaimMany(context ended while waiting) error = %v, want one error per owner", err)
	}
	for i, e := range joined.Unwrap() {
		var oe *lease.OwnerError
		if !errors.As(e, &oe) || oe.Index != i || oe.Owner != owners[i] || !errors.Is(oe, context.Canceled) {
			t.Errorf("error %d = %v, want an OwnerError of %q at %d that wraps context.Canceled", i, e, owners[i], i)
		}
	}
	wantState(t, s, lease.Job{ID: "job"})
}

// ClaimMany with no owners checks its context as any call does: under an
// ended one it is an error, as with owners, not an empty answer.
func TestClaimMany_NoOwnersUnderAnEndedContextIsAnError(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	ctx, cancel := context.WithCancelCause(lease.Bounded(t))
	cancel(errWorkerStopped)
	fences, err := s.ClaimMany(ctx, "job", nil, 0, 10)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errWorkerStopped) || len(fences) != 0 {
		t.Fatalf("ClaimMany(ended context, no owners) = %v, %v; want no fence and an error that wraps context.Canceled and its cause", fences, err)
	}
}
