package lease_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 4: Claim grants an expired lease atomically and advances the fence.

func TestClaim_FreshJobGetsFenceOne(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	if got, want := claim(t, s, "job", "A", 2, 3), int64(1); got != want {
		t.Fatalf("Claim(fresh) = %d, want %d", got, want)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 5, Fence: 1})
}

func TestClaim_RefusesLiveLease(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	mustClaim(t, s, "job", "A", 1, 9)
	for _, now := range []float64{1, 5, 9.999} {
		if got := claim(t, s, "job", "B", now, 10); got != 0 {
			t.Fatalf("Claim(now=%v) of a lease held until 10 = %d, want 0", now, got)
		}
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
}

func TestClaim_ReassignsAtExactExpiry(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	mustClaim(t, s, "job", "A", 1, 9)
	if got, want := claim(t, s, "job", "B", 10, 10), int64(2); got != want {
		t.Fatalf("Claim(now == until) = %d, want %d", got, want)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "B", Until: 20, Fence: 2})
}

func TestClaim_FenceAdvancesOnEveryGrant(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	owners := []string{"A", "B", "A", "C", "A"}
	for i, owner := range owners {
		now := float64(i)*10 + 1 // the previous grant expired at now-5
		want := int64(i + 1)
		if got := claim(t, s, "job", owner, now, 5); got != want {
			t.Fatalf("grant %d: Claim() = %d, want %d", i+1, got, want)
		}
		wantState(t, s, lease.Job{ID: "job", Owner: owner, Until: now + 5, Fence: want})
	}
}

func TestClaim_RefusesDoneJob(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	f := mustClaim(t, s, "job", "A", 1, 9)
	if !complete(t, s, "job", "A", f, 1, "r") {
		t.Fatalf("Complete() = false, want true")
	}
	// Long after the lease expired, a completed job stays completed.
	if got := claim(t, s, "job", "B", 100, 10); got != 0 {
		t.Fatalf("Claim(done job) = %d, want 0", got)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1, Result: "r", Done: true})
}

func TestClaim_RefusesMissingJob(t *testing.T) {
	s := newStore(t)
	if got := claim(t, s, "missing", "A", 1, 9); got != 0 {
		t.Fatalf("Claim(missing) = %d, want 0", got)
	}
	if j, err := s.State(lease.Bounded(t), "missing"); err != nil || j != nil {
		t.Fatalf("State(missing) after Claim = %+v, %v; want nil, nil", j, err)
	}
}

func TestClaim_RejectsInvalidTTL(t *testing.T) {
	cases := []struct {
		name     string
		now, ttl float64
	}{
		{"Zero", 5, 0},
		{"NegativeZero", 5, math.Copysign(0, -1)},
		{"Negative", 5, -1},
		{"NaN", 5, math.NaN()},
		{"PlusInf", 5, math.Inf(1)},
		{"MinusInf", 5, math.Inf(-1)},
		{"EndOverflows", math.MaxFloat64, math.MaxFloat64},
		// A positive ttl that rounding swallows would grant a lease that
		// has already expired: the next claim at the same now would take
		// the job, and the holder could never complete it.
		{"TooSmallToMoveALargeNow", 1e17, 1},
		{"TooSmallToMoveNow", 1.7e9, 1e-8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			enqueue(t, s, "job")
			fence, err := s.Claim(lease.Bounded(t), "job", "A", tc.now, tc.ttl)
			if !errors.Is(err, lease.ErrInvalidTTL) || fence != 0 {
				t.Fatalf("Claim(ttl=%v) = %d, %v; want 0, ErrInvalidTTL", tc.ttl, fence, err)
			}
			wantState(t, s, lease.Job{ID: "job"})
		})
	}
}

func TestClaim_RejectsBadArguments(t *testing.T) {
	cases := []struct {
		name      string
		id, owner string
		now, ttl  float64
		want      error
	}{
		{"EmptyID", "", "A", 0, 10, lease.ErrEmptyID},
		{"EmptyOwner", "job", "", 0, 10, lease.ErrEmptyOwner},
		{"NaNNow", "job", "A", math.NaN(), 10, lease.ErrInvalidTime},
		{"InfNow", "job", "A", math.Inf(-1), 10, lease.ErrInvalidTime},
		// Time starts at 0: a job nobody holds has until 0, which must be
		// expired at every valid now.
		{"NegativeNow", "job", "A", -1, 10, lease.ErrInvalidTime},
		{"TTLCheckedFirst", "", "", math.NaN(), 0, lease.ErrInvalidTTL},
		{"InfiniteTTLCheckedBeforeNow", "job", "A", math.NaN(), math.Inf(1), lease.ErrInvalidTTL},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			enqueue(t, s, "job")
			fence, err := s.Claim(lease.Bounded(t), tc.id, tc.owner, tc.now, tc.ttl)
			if !errors.Is(err, tc.want) || fence != 0 {
				t.Fatalf("Claim(%q, %q, now=%v, ttl=%v) = %d, %v; want 0, %v", tc.id, tc.owner, tc.now, tc.ttl, fence, err, tc.want)
			}
			wantState(t, s, lease.Job{ID: "job"})
		})
	}
}

func TestClaim_FreeJobAtTimeZero(t *testing.T) {
	s := newStore(t)
	enqueue(t, s, "job")
	if got := claim(t, s, "job", "A", 0, 10); got != 1 {
		t.Fatalf("Claim(fresh job, now=0) = %d, want 1", got)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
}

// Fences never go back: a job whose fence is the largest int64 cannot be
// granted another (it would wrap around to a negative one). Claim says so,
// naming the job, and stores nothing; the grant before it still works.
func TestClaim_RefusesToWrapTheFenceAround(t *testing.T) {
	path, _ := createJobs(t, jobsDDL,
		fmt.Sprintf(`INSERT INTO jobs(id, fence) VALUES('last', %d), ('almost', %d)`, int64(math.MaxInt64), int64(math.MaxInt64-1)))
	s := openAt(t, path)
	if got, want := claim(t, s, "almost", "A", 1, 9), int64(math.MaxInt64); got != want {
		t.Fatalf("Claim(fence MaxInt64-1) = %d, want %d", got, want)
	}
	fence, err := s.Claim(lease.Bounded(t), "last", "A", 1, 9)
	if !errors.Is(err, lease.ErrFenceExhausted) || fence != 0 || !strings.Contains(err.Error(), `"last"`) {
		t.Fatalf("Claim(fence MaxInt64) = %d, %v; want 0, ErrFenceExhausted naming the job", fence, err)
	}
	wantState(t, s, lease.Job{ID: "last", Fence: math.MaxInt64})
	// The job that got the last fence cannot be claimed again either.
	if _, err := s.Claim(lease.Bounded(t), "almost", "B", 11, 10); !errors.Is(err, lease.ErrFenceExhausted) {
		t.Fatalf("Claim(after the last fence) error = %v, want ErrFenceExhausted", err)
	}
	wantState(t, s, lease.Job{ID: "almost", Owner: "A", Until: 10, Fence: math.MaxInt64})
}
