package lease_test

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/fencelab/fencelab/lease"
)

// Step 7: only the current holder may release, and the fence is kept.

func TestRelease_ClearsOwnerAndUntilKeepsFence(t *testing.T) {
	path := newPath(t)
	s := openAt(t, path)
	heldByA(t, s)
	ok, err := s.Release(lease.Bounded(t), "job", "A", 1)
	if err != nil || !ok {
		t.Fatalf("Release() = %v, %v; want true, nil", ok, err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "", Until: 0, Fence: 1})
	// Nobody is NULL in the table, as for a job never claimed: not the
	// empty string, which other readers of the file would take for an
	// owner.
	if got := ownerType(t, path, "job"); got != "null" {
		t.Fatalf("the released job's owner is stored as %s, want null", got)
	}
}

// ownerType returns the type of the stored owner of job id, as another
// reader of the file sees it: "null" for nobody, "text" for an owner.
func ownerType(t *testing.T, path, id string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var typ string
	if err := db.QueryRow(`SELECT typeof(owner) FROM jobs WHERE id = ?`, id).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	return typ
}

func TestRelease_NextClaimGetsNewFenceAtOnce(t *testing.T) {
	s := newStore(t)
	heldByA(t, s)
	if ok, err := s.Release(lease.Bounded(t), "job", "A", 1); err != nil || !ok {
		t.Fatalf("Release() = %v, %v; want true, nil", ok, err)
	}
	// A's lease would have run until 10; after the release B need not wait,
	// and B's token must not repeat A's.
	if got, want := claim(t, s, "job", "B", 3, 10), int64(2); got != want {
		t.Fatalf("Claim() after Release = %d, want %d", got, want)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "B", Until: 13, Fence: 2})
	if complete(t, s, "job", "A", 1, 4, "late A") {
		t.Fatalf("Complete(A, released fence 1) = true, want false")
	}
}

func TestRelease_RefusesAnythingButTheCurrentHolder(t *testing.T) {
	cases := []refusal{
		{name: "FenceNeverGranted", setup: heldByA, owner: "A", fence: 2},
		{name: "OtherOwnerWithTheFence", setup: heldByA, owner: "B", fence: 1},
		{name: "StaleFenceOfSameOwner", setup: func(t *testing.T, s *lease.Store) {
			heldByA(t, s)
			mustClaim(t, s, "job", "A", 11, 10)
		}, owner: "A", fence: 1},
		{name: "SecondRelease", setup: func(t *testing.T, s *lease.Store) {
			heldByA(t, s)
			if ok, err := s.Release(lease.Bounded(t), "job", "A", 1); err != nil || !ok {
				t.Fatalf("Release() = %v, %v; want true, nil", ok, err)
			}
		}, owner: "A", fence: 1},
		{name: "DoneJob", setup: func(t *testing.T, s *lease.Store) {
			heldByA(t, s)
			if !complete(t, s, "job", "A", 1, 1, "r") {
				t.Fatalf("Complete() = false, want true")
			}
		}, owner: "A", fence: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			tc.setup(t, s)
			before := state(t, s, "job")
			ok, err := s.Release(lease.Bounded(t), "job", tc.owner, tc.fence)
			if err != nil || ok {
				t.Fatalf("Release(%q, fence=%d) = %v, %v; want false, nil", tc.owner, tc.fence, ok, err)
			}
			wantState(t, s, before)
		})
	}
}

func TestRelease_RejectsBadArguments(t *testing.T) {
	s := newStore(t)
	heldByA(t, s)
	if _, err := s.Release(lease.Bounded(t), "", "A", 1); !errors.Is(err, lease.ErrEmptyID) {
		t.Errorf(`Release(id "") error = %v, want ErrEmptyID`, err)
	}
	if _, err := s.Release(lease.Bounded(t), "job", "", 1); !errors.Is(err, lease.ErrEmptyOwner) {
		t.Errorf(`Release(owner "") error = %v, want ErrEmptyOwner`, err)
	}
	wantState(t, s, lease.Job{ID: "job", Owner: "A", Until: 10, Fence: 1})
}
