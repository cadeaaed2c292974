package lease_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Bad input is an error on every method, checked before the store is
// touched, in the same order: ttl first, then now.

// call is one method of the store, called on "job" by owner A with fence
// 1 at now with ttl (those without a ttl ignore it).
type call struct {
	name string
	do   func(ctx context.Context, s *lease.Store, now, ttl float64) error
}

var timedCalls = []call{
	{"Claim", func(ctx context.Context, s *lease.Store, now, ttl float64) error {
		_, err := s.Claim(ctx, "job", "A", now, ttl)
		return err
	}},
	{"Renew", func(ctx context.Context, s *lease.Store, now, ttl float64) error {
		_, err := s.Renew(ctx, "job", "A", 1, now, ttl)
		return err
	}},
	{"Complete", func(ctx context.Context, s *lease.Store, now, _ float64) error {
		_, err := s.Complete(ctx, "job", "A", 1, now, "r")
		return err
	}},
	{"ClaimMany", func(ctx context.Context, s *lease.Store, now, ttl float64) error {
		_, err := s.ClaimMany(ctx, "job", []string{"A", "B"}, now, ttl)
		return err
	}},
}

func TestEveryMethod_RefusesANowThatIsNotAFiniteTime(t *testing.T) {
	for _, c := range timedCalls {
		// Negative: -1, and the negatives closest to 0, which no
		// tolerance may let through.
		for _, now := range []float64{math.Inf(1), math.Inf(-1), math.NaN(), -1, -1e-9, -math.SmallestNonzeroFloat64} {
			s := newStore(t)
			heldByA(t, s)
			if err := c.do(lease.Bounded(t), s, now, 10); !errors.Is(err, lease.ErrInvalidTime) {
				t.Errorf("%s(now=%v) error = %v, want ErrInvalidTime", c.name, now, err)
			}
			wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
		}
	}
}

func TestEveryMethod_ChecksTheTTLBeforeNow(t *testing.T) {
	for _, c := range timedCalls {
		if c.name == "Complete" {
			continue // it takes no ttl
		}
		for _, ttl := range []float64{math.NaN(), math.Inf(1), 0} {
			s := newStore(t)
			heldByA(t, s)
			if err := c.do(lease.Bounded(t), s, math.NaN(), ttl); !errors.Is(err, lease.ErrInvalidTTL) {
				t.Errorf("%s(now=NaN, ttl=%v) error = %v, want ErrInvalidTTL", c.name, ttl, err)
			}
			wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
		}
	}
}

// args are the arguments of a call, of which each method takes some.
type args struct {
	ctx       context.Context
	id, owner string
	now, ttl  float64
}

// argCall is one method, called with args.
type argCall struct {
	name                         string
	takesTTL, takesNow, takesOwn bool
	do                           func(s *lease.Store, a args) error
}

var argCalls = []argCall{
	{"Enqueue", false, false, false, func(s *lease.Store, a args) error {
		_, err := s.Enqueue(a.ctx, a.id)
		return err
	}},
	{"State", false, false, false, func(s *lease.Store, a args) error {
		_, err := s.State(a.ctx, a.id)
		return err
	}},
	{"Claim", true, true, true, func(s *lease.Store, a args) error {
		_, err := s.Claim(a.ctx, a.id, a.owner, a.now, a.ttl)
		return err
	}},
	{"Renew", true, true, true, func(s *lease.Store, a args) error {
		_, err := s.Renew(a.ctx, a.id, a.owner, 1, a.now, a.ttl)
		return err
	}},
	{"Complete", false, true, true, func(s *lease.Store, a args) error {
		_, err := s.Complete(a.ctx, a.id, a.owner, 1, a.now, "r")
		return err
	}},
	{"Release", false, false, true, func(s *lease.Store, a args) error {
		_, err := s.Release(a.ctx, a.id, a.owner, 1)
		return err
	}},
	{"ClaimMany", true, true, true, func(s *lease.Store, a args) error {
		_, err := s.ClaimMany(a.ctx, a.id, []string{"B", a.owner}, a.now, a.ttl)
		return err
	}},
}

// Every method checks what it takes in one order: the ttl, now, the id,
// the owner, and then the context. Starting from a call where all of them
// are wrong, each is put right in turn: the error is always that of the
// first one still wrong, and nothing is written.
func TestEveryMethod_ChecksItsArgumentsInOneOrder(t *testing.T) {
	cancelled, cancel := context.WithCancel(lease.Bounded(t))
	cancel()
	steps := []struct {
		arg  string
		want error
		fix  func(a *args)
		of   func(c argCall) bool
	}{
		{"ttl", lease.ErrInvalidTTL, func(a *args) { a.ttl = 10 }, func(c argCall) bool { return c.takesTTL }},
		{"now", lease.ErrInvalidTime, func(a *args) { a.now = 5 }, func(c argCall) bool { return c.takesNow }},
		{"id", lease.ErrEmptyID, func(a *args) { a.id = "job" }, func(argCall) bool { return true }},
		{"owner", lease.ErrEmptyOwner, func(a *args) { a.owner = "A" }, func(c argCall) bool { return c.takesOwn }},
		{"context", context.Canceled, func(a *args) { a.ctx = lease.Bounded(t) }, func(argCall) bool { return true }},
	}
	for _, c := range argCalls {
		t.Run(c.name, func(t *testing.T) {
			s := newStore(t)
			heldByA(t, s)
			a := args{ctx: cancelled, ttl: 0, now: -1}
			for _, step := range steps {
				if !step.of(c) {
					continue
				}
				if err := c.do(s, a); !errors.Is(err, step.want) {
					t.Errorf("%s with the %s and what follows it wrong: error = %v, want %v", c.name, step.arg, err, step.want)
				}
				step.fix(&a)
			}
			wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
			if err := c.do(s, a); err != nil {
				t.Errorf("%s with every argument right: error = %v", c.name, err)
			}
		})
	}
}

// A ttl too small to move now is a wrong ttl, checked before the rest:
// ClaimMany reports it before an empty owner.
func TestEveryMethod_ChecksATTLTooSmallForNowFirst(t *testing.T) {
	for _, c := range argCalls {
		if !c.takesTTL {
			continue
		}
		s := newStore(t)
		heldByA(t, s)
		err := c.do(s, args{ctx: lease.Bounded(t), id: "job", owner: "", now: 1e17, ttl: 1})
		if !errors.Is(err, lease.ErrInvalidTTL) {
			t.Errorf("%s(now=1e17, ttl=1, owner \"\") error = %v, want ErrInvalidTTL", c.name, err)
		}
		wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
	}
}

// Time starts at 0, and -0 is 0: a valid now, not a negative one.
func TestEveryMethod_TakesMinusZeroAsZero(t *testing.T) {
	minusZero := math.Copysign(0, -1)
	s := newStore(t)
	enqueue(t, s, "job")
	if got := claim(t, s, "job", "A", minusZero, 5); got != 1 {
		t.Fatalf("Claim(now=-0) = %d, want fence 1", got)
	}
	if ok, err := s.Renew(lease.Bounded(t), "job", "A", 1, minusZero, 6); err != nil || !ok {
		t.Fatalf("Renew(now=-0) = %v, %v; want true, nil", ok, err)
	}
	if !complete(t, s, "job", "A", 1, minusZero, "r") {
		t.Fatalf("Complete(now=-0) = false, want true")
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 6, Fence: 1, Result: "r", Done: true})
	enqueue(t, s, "other")
	if fences, err := s.ClaimMany(lease.Bounded(t), "other", []string{"B"}, minusZero, 5); err != nil || fences[0] != 1 {
		t.Fatalf("ClaimMany(now=-0) = %v, %v; want [1], nil", fences, err)
	}
}

// now+ttl that overflows float64 is a wrong ttl: a lease until +Inf, or
// until the largest float64, would never expire.
func TestEveryMethod_RefusesATTLThatOverflowsNow(t *testing.T) {
	const now, ttl = 1e308, 1e308
	s := newStore(t)
	enqueue(t, s, "free")
	enqueue(t, s, "held")
	mustClaim(t, s, "held", "A", now, 5e307)
	for _, c := range argCalls {
		if !c.takesTTL {
			continue
		}
		id := "free"
		if c.name == "Renew" {
			id = "held"
		}
		if err := c.do(s, args{ctx: lease.Bounded(t), id: id, owner: "A", now: now, ttl: ttl}); !errors.Is(err, lease.ErrInvalidTTL) {
			t.Errorf("%s(%s, now=%v, ttl=%v) error = %v, want ErrInvalidTTL", c.name, id, now, ttl, err)
		}
	}
	wantState(t, s, lease.Job{ID: "free"})
	wantState(t, s, lease.Job{ID: "held", Owner: "A", Until: now + 5e307, Fence: 1})
}
