// learner:
// (Your name after "learner:": your instructor's class page shows it.)
package lease_test

import (
	"path"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// open opens a store of its own for the test, closed when it ends.
func open(t *testing.T) *lease.Store {
	t.Helper()
	s, err := lease.Open(path.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A worked example. The observation is the boundary: a lease granted at
// now=1 for ttl=10 lasts until 11, and at now == until it has expired, so
// the next claim is granted, with the next fence. A test like this one
// catches a fault that makes the expiry comparison inclusive. Write yours
// below it, in this file: go tool mutate check lease/starter_test.go
// checks them and runs them on the package; your instructor grades them.
func TestClaim_AtExactExpiryGetsTheNextFence(t *testing.T) {
	s := open(t)
	if ok, err := s.Enqueue(t.Context(), "job"); !ok || err != nil {
		t.Fatalf(`Enqueue("job") = %v, %v; want true, nil`, ok, err)
	}
	if f, err := s.Claim(t.Context(), "job", "A", 1, 10); f != 1 || err != nil {
		t.Fatalf("first claim = %d, %v; want 1", f, err)
	}
	if f, err := s.Claim(t.Context(), "job", "B", 11, 10); f != 2 || err != nil {
		t.Fatalf("claim at now == until = %d, %v; want fence 2", f, err)
	}
}
