package lease_test

import (
	"path"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

func open(t *testing.T) *lease.Store {
	t.Helper()
	s, err := lease.Open(path.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Observe the boundary: at now == until the lease has expired, and the
// next claim gets the next fence.
func TestClaim_AtExactExpiryGetsTheNextFence(t *testing.T) {
	s := open(t)
	s.Enqueue(t.Context(), "job")
	if f, err := s.Claim(t.Context(), "job", "A", 1, 10); f != 1 || err != nil {
		t.Fatalf("first claim = %d, %v; want 1", f, err)
	}
	if f, err := s.Claim(t.Context(), "job", "B", 11, 10); f != 2 || err != nil {
		t.Fatalf("claim at expiry = %d, %v; want 2", f, err)
	}
}

// Over-specified: the contract says errors.Is(err, lease.ErrEmptyID), not
// these words.
func TestClaim_WithoutAnIDSaysSo(t *testing.T) {
	s := open(t)
	_, err := s.Claim(t.Context(), "", "A", 0, 10)
	if err == nil || err.Error() != "lease: job id must not be empty" {
		t.Fatalf(`Claim("") error = %v`, err)
	}
}
