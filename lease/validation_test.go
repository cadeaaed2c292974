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
		for _, now := range []float64{math.Inf(1), math.Inf(-1), math.NaN(), -1} {
			s := newStore(t)
			heldByA(t, s)
			if err := c.do(t.Context(), s, now, 10); !errors.Is(err, lease.ErrInvalidTime) {
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
			if err := c.do(t.Context(), s, math.NaN(), ttl); !errors.Is(err, lease.ErrInvalidTTL) {
				t.Errorf("%s(now=NaN, ttl=%v) error = %v, want ErrInvalidTTL", c.name, ttl, err)
			}
			wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
		}
	}
}
